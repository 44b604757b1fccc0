package chats

import (
	"bytes"
	"encoding/json"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// testEqual is the test op on a whole object: op's value must equal doc.
func testEqual(i int, op patchOp, doc jsonx.Object) error {
	if o, err := jsonx.DecodeObject(op.val, "value"); err == nil && sameMembers(o, doc, false) {
		return nil
	}
	return testFailed(i, op)
}

func testFailed(i int, op patchOp) error {
	return apperr.New(apperr.CodePatchTestFailed, "patch op %d: test failed at %s", i, joinPointer(op.path)).
		WithDetails(map[string]any{"op": i, "path": joinPointer(op.path)})
}

// patchOptions keep values as they were written (no HTML escaping), read
// array indexes strictly and bound what copy ops may add.
var patchOptions = func() *jsonpatch.ApplyOptions {
	o := jsonpatch.NewApplyOptions()
	o.EscapeHTML = false
	o.SupportNegativeIndices = false
	o.AccumulatedCopySizeLimit = jsonx.MaxCopyBytes
	return o
}()

// applyMembers applies ops, which all work inside obj, to a copy of obj.
// The patch library sees only the members the ops name (by the first
// segment past strip of their path or from): an edit of a message's text
// leaves its swipes as the bytes they were, instead of parsing and encoding
// them twice. An op's effect depends only on the members it names, so the
// result is the one the whole object would give.
func applyMembers(obj jsonx.Object, ops []patchOp, strip, first int) (jsonx.Object, error) {
	if next, ok := applyPlainOps(obj, ops, strip); ok {
		return next, nil
	}
	named := map[string]bool{}
	for _, op := range ops {
		named[op.path[strip]] = true
		if op.from != nil {
			named[op.from[strip]] = true
		}
	}
	part := make(jsonx.Object, len(named))
	for k := range named {
		if v, ok := obj[k]; ok {
			part[k] = v
		}
	}
	doc, _ := part.MarshalJSON()
	out, err := applyStripped(doc, ops, strip, first)
	if err != nil {
		return nil, err
	}
	patched, ok := jsonx.SplitEncoded(out)
	if !ok {
		return nil, patchInvalid(first, "the patched object is no longer an object")
	}
	next := obj.Clone()
	for k := range named {
		if v, ok := patched[k]; ok {
			next[k] = v
		} else {
			delete(next, k)
		}
	}
	return next, nil
}

// applyPlainOps applies ops that each add, replace, remove or test one
// whole member of obj, or replace one element of an array member, without
// the patch library: it would parse those members and encode them again,
// a tenth of an undo of an edit (which replaces a message's "mes" and its
// swipe in "swipes"). It takes only the plain cases (ok); a member or
// element missing, a test whose value is not the same bytes, or any other
// op leaves the whole batch to the library, which decides it and words
// its error.
func applyPlainOps(obj jsonx.Object, ops []patchOp, strip int) (next jsonx.Object, ok bool) {
	for _, op := range ops {
		if len(op.path) > strip+2 || op.from != nil || (len(op.path) == strip+2 && op.op != "replace") {
			return nil, false
		}
	}
	next = obj.Clone()
	for _, op := range ops {
		k := op.path[strip]
		cur, exists := next[k]
		if len(op.path) == strip+2 {
			if !exists {
				return nil, false
			}
			v, ok := replaceElement(cur, op.path[strip+1], op.val)
			if !ok {
				return nil, false
			}
			next[k] = v
			continue
		}
		switch op.op {
		case "add", "replace":
			if op.op == "replace" && !exists {
				return nil, false
			}
			v, err := compactValue(op.val)
			if err != nil {
				return nil, false
			}
			next[k] = v
		case "remove":
			if !exists {
				return nil, false
			}
			delete(next, k)
		case "test":
			if !exists || !bytes.Equal(cur, op.val) {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return next, true
}

// replaceElement replaces element seg (read as messageIndex reads one)
// of arr, an array this program encoded, with val.
func replaceElement(arr json.RawMessage, seg string, val json.RawMessage) (json.RawMessage, bool) {
	i, ok := messageIndex(seg)
	if !ok {
		return nil, false
	}
	elems, ok := jsonx.SplitEncodedArray(arr)
	if !ok || i >= len(elems) {
		return nil, false
	}
	v, err := compactValue(val)
	if err != nil {
		return nil, false
	}
	elems[i] = v
	size := 1 + len(elems)
	for _, e := range elems {
		size += len(e)
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for j, e := range elems {
		if j > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']'), true
}

// compactValue returns v as the patch library would store it: compact. A
// string, number or literal has no space to drop, so only an object or an
// array is rewritten.
func compactValue(v json.RawMessage) (json.RawMessage, error) {
	if len(v) == 0 || (v[0] != '{' && v[0] != '[' && !isJSONSpace(v[0]) && !isJSONSpace(v[len(v)-1])) {
		return v, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// applyStripped applies ops to doc with the first strip segments of their
// paths removed. When the batch fails, the ops are replayed one at a time
// to name the one that does not apply.
func applyStripped(doc []byte, ops []patchOp, strip, first int) ([]byte, error) {
	// The patch is built as the library's operations directly: the values
	// are journal JSON already checked by decodeOps, and encoding the patch
	// only for the library to validate and parse it again would scan them
	// twice more.
	str := func(v string) *json.RawMessage {
		var b bytes.Buffer
		writeJSONString(&b, v)
		raw := json.RawMessage(b.Bytes())
		return &raw
	}
	build := func(ops []patchOp) jsonpatch.Patch {
		p := make(jsonpatch.Patch, len(ops))
		for i, op := range ops {
			o := jsonpatch.Operation{"op": str(op.op), "path": str(joinPointer(op.path[strip:]))}
			if op.val != nil {
				raw := json.RawMessage(op.val)
				o["value"] = &raw
			}
			if op.from != nil {
				o["from"] = str(joinPointer(op.from[strip:]))
			}
			p[i] = o
		}
		return p
	}
	apply := func(doc []byte, ops []patchOp) ([]byte, error) {
		return jsonx.ApplyPatch(doc, build(ops), patchOptions)
	}
	out, err := apply(doc, ops)
	if err == nil {
		return out, nil
	}
	for i, op := range ops {
		next, err := apply(doc, ops[i:i+1])
		if err != nil {
			if op.op == "test" {
				return nil, testFailed(first+i, op)
			}
			return nil, patchInvalid(first+i, err.Error())
		}
		doc = next
	}
	return nil, patchInvalid(first, err.Error())
}

func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

// sameMembers reports whether two objects are equal as JSON, member by
// member; with ignoreID, their "id" members are left out.
func sameMembers(a, b jsonx.Object, ignoreID bool) bool {
	count := func(o jsonx.Object) int {
		if _, ok := o["id"]; ok && ignoreID {
			return len(o) - 1
		}
		return len(o)
	}
	if count(a) != count(b) {
		return false
	}
	for k, v := range a {
		if k == "id" && ignoreID {
			continue
		}
		w, ok := b[k]
		if !ok || !(bytes.Equal(v, w) || jsonx.Equal(v, w)) {
			return false
		}
	}
	return true
}
