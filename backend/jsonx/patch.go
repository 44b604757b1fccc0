package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// ApplyPatch applies p to doc as p.ApplyWithOptions does (opts nil: the
// library's defaults). Every patch of a document goes through here.
//
// The library (evanphx/json-patch v5.9.11) panics when a test operation
// compares arrays that hold null (`[null]` against `[null]` included): its
// comparison follows array elements without checking for the nil it keeps
// for a null one. A request must never panic halfway through a write, so
// such a patch is applied again one operation at a time, with test
// operations judged here, by the library's own rules.
func ApplyPatch(doc []byte, p jsonpatch.Patch, opts *jsonpatch.ApplyOptions) (out []byte, err error) {
	if opts == nil {
		opts = jsonpatch.NewApplyOptions()
	}
	if out, err, panicked := applyGuarded(doc, p, opts); !panicked {
		return out, err
	}
	return applyEach(doc, p, opts)
}

func applyGuarded(doc []byte, p jsonpatch.Patch, opts *jsonpatch.ApplyOptions) (out []byte, err error, panicked bool) {
	defer func() {
		if recover() != nil {
			out, err, panicked = nil, nil, true
		}
	}()
	out, err = p.ApplyWithOptions(doc, opts)
	return out, err, false
}

// applyEach applies p one operation at a time, test operations judged
// here, the others by the library; the copies count against one budget, as
// in one call.
func applyEach(doc []byte, p jsonpatch.Patch, opts *jsonpatch.ApplyOptions) ([]byte, error) {
	single := *opts
	single.AccumulatedCopySizeLimit = 0
	var copied int64
	for _, op := range p {
		switch op.Kind() {
		case "test":
			if err := testOp(doc, op, opts); err != nil {
				return nil, err
			}
			continue
		case "copy":
			if opts.AccumulatedCopySizeLimit <= 0 {
				break
			}
			if from, err := op.From(); err == nil {
				if v, ok := pointerGet(doc, from, opts); ok {
					copied += int64(len(v))
				}
			}
			if copied > opts.AccumulatedCopySizeLimit {
				return nil, jsonpatch.NewAccumulatedCopySizeError(opts.AccumulatedCopySizeLimit, copied)
			}
		}
		next, err := jsonpatch.Patch{op}.ApplyWithOptions(doc, &single)
		if err != nil {
			return nil, err
		}
		doc = next
	}
	return doc, nil
}

// testOp judges a test operation on doc as the library does: a path that
// leads through something missing is an error, and so is an array index
// that is not one; a missing or null value passes only against null;
// strings compare by their text, other scalars by their compact JSON,
// objects and arrays member by member.
func testOp(doc []byte, op jsonpatch.Operation, opts *jsonpatch.ApplyOptions) error {
	path, err := op.Path()
	if err != nil {
		return fmt.Errorf("test operation failed to decode path: %w", err)
	}
	want := json.RawMessage("null")
	if v, ok := op["value"]; ok && v != nil {
		want = *v
	}
	got := json.RawMessage(doc)
	if path != "" {
		i := strings.LastIndexByte(path, '/')
		parent, ok := pointerGet(doc, path[:max(i, 0)], opts)
		if i < 0 || !ok || !isContainer(parent) {
			return fmt.Errorf("test operation does not apply: is missing path: %s: %w", path, jsonpatch.ErrMissing)
		}
		if got, _, err = member(parent, unescapeToken(path[i+1:]), opts); err != nil {
			return fmt.Errorf("error in test for path: '%s': %w", path, err)
		}
	}
	if IsNull(got) || IsNull(want) {
		if IsNull(got) && IsNull(want) {
			return nil
		}
		return fmt.Errorf("testing value %s failed: %w", path, jsonpatch.ErrTestFailed)
	}
	if !Equal(got, want) {
		return fmt.Errorf("testing value %s failed: %w", path, jsonpatch.ErrTestFailed)
	}
	return nil
}

// pointerGet returns the value at an RFC 6901 pointer in doc.
func pointerGet(doc []byte, pointer string, opts *jsonpatch.ApplyOptions) (json.RawMessage, bool) {
	if pointer == "" {
		return doc, true
	}
	if pointer[0] != '/' {
		return nil, false
	}
	tokens := strings.Split(pointer[1:], "/")
	for i, tok := range tokens {
		tokens[i] = unescapeToken(tok)
	}
	return Lookup(doc, tokens, opts)
}

// Lookup follows tokens (a JSON pointer's segments, unescaped) into v
// without decoding what it passes over, reading array indexes as the
// patch library does under opts; ok is false where nothing is.
func Lookup(v json.RawMessage, tokens []string, opts *jsonpatch.ApplyOptions) (json.RawMessage, bool) {
	for _, tok := range tokens {
		next, found, err := member(v, tok, opts)
		if !found || err != nil {
			return nil, false
		}
		v = next
	}
	return v, true
}

// member returns the member named key of an object, or the element at
// index key of an array, read as the library reads it (an index out of
// range, or not a number, is an error; "" is the array itself).
func member(v json.RawMessage, key string, opts *jsonpatch.ApplyOptions) (json.RawMessage, bool, error) {
	t := bytes.TrimSpace(v)
	switch {
	case len(t) > 0 && t[0] == '{':
		o, _ := SplitEncoded(t)
		m, ok := o[key]
		return m, ok, nil
	case len(t) > 0 && t[0] == '[':
		if key == "" {
			return t, true, nil
		}
		i, err := strconv.Atoi(key)
		if err != nil {
			return nil, false, err
		}
		elems, _ := SplitEncodedArray(t)
		if i < 0 && opts.SupportNegativeIndices {
			i += len(elems)
		}
		if i < 0 || i >= len(elems) {
			return nil, false, fmt.Errorf("unable to access invalid index: %s: %w", key, jsonpatch.ErrInvalidIndex)
		}
		return elems[i], true, nil
	}
	return nil, false, nil
}

func isContainer(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

func unescapeToken(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// Equal reports whether two JSON texts are the same value: strings by
// their text, numbers and literals by their compact JSON (1 and 1.0
// differ, as they do for the patch library), objects whatever their
// member order. Invalid JSON equals nothing.
func Equal(a, b []byte) bool {
	var x, y any
	if decodeNumbers(a, &x) != nil || decodeNumbers(b, &y) != nil {
		return false
	}
	return equalValues(x, y)
}

func equalValues(x, y any) bool {
	switch x := x.(type) {
	case map[string]any:
		y, ok := y.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equalValues(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := y.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValues(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := y.(json.Number)
		return ok && x == y
	default:
		return x == y
	}
}
