package chats

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/apperr"
)

// errWholeDocument marks operations the sparse document cannot follow
// (ops on /messages itself, a message id changed, a move between
// messages): the caller applies them to the whole document instead.
var errWholeDocument = errors.New("operations need the whole document")

// sparseDoc is the chat document { metadata, messages } as a sequence of
// journal operations sees it, materializing only what they reach: the
// metadata and the messages an op names, read on first use. A 10,000-message
// chat costs an undo of one edit one message read.
type sparseDoc struct {
	ctx  context.Context
	q    queryer
	chat *chatRow
	meta []byte
	// metaPatched is set once an op changed the metadata.
	metaPatched bool
	// order lists the messages by position: a value >= 0 is the index of a
	// stored message, -(k+1) is added[k]. nil while no op inserted or
	// removed a message (position i is stored message i).
	order []int
	n     int
	// docs holds the JSON of the stored messages an op reached, by stored
	// index; patched marks those an op changed, removed those it removed.
	docs    map[int][]byte
	patched map[int]bool
	removed map[int]bool
	added   [][]byte
	// loaded caches the stored messages read, and their JSON (shared by
	// clones).
	loaded     map[int]storedMessage
	loadedJSON map[int][]byte
}

func newSparseDoc(ctx context.Context, q queryer, chat *chatRow) *sparseDoc {
	meta, _ := chat.metadata.MarshalJSON()
	return &sparseDoc{ctx: ctx, q: q, chat: chat, meta: meta, n: chat.messageCount,
		docs: map[int][]byte{}, patched: map[int]bool{}, removed: map[int]bool{},
		loaded: map[int]storedMessage{}, loadedJSON: map[int][]byte{}}
}

// clone copies d so a second pass of operations leaves d as it is.
func (d *sparseDoc) clone() *sparseDoc {
	c := *d
	c.order = slices.Clone(d.order)
	c.docs = cloneMap(d.docs)
	c.patched = cloneMap(d.patched)
	c.removed = cloneMap(d.removed)
	c.added = slices.Clone(d.added)
	return &c
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// slot is what sits at position pos (see order).
func (d *sparseDoc) slot(pos int) int {
	if d.order == nil {
		return pos
	}
	return d.order[pos]
}

func (d *sparseDoc) materialize() {
	if d.order != nil {
		return
	}
	d.order = make([]int, d.n)
	for i := range d.order {
		d.order[i] = i
	}
}

// stored returns stored message i and its JSON, reading it on first use.
func (d *sparseDoc) stored(i int) (storedMessage, []byte, error) {
	if sm, ok := d.loaded[i]; ok {
		return sm, d.loadedJSON[i], nil
	}
	sm, err := loadAt(d.ctx, d.q, d.chat, i)
	if err != nil {
		return storedMessage{}, nil, err
	}
	b := sm.msg.mustJSON()
	d.loaded[i], d.loadedJSON[i] = sm, b
	return sm, b, nil
}

// doc returns the JSON of the message at position pos.
func (d *sparseDoc) doc(pos int) ([]byte, error) {
	s := d.slot(pos)
	if s < 0 {
		return d.added[-s-1], nil
	}
	if b, ok := d.docs[s]; ok {
		return b, nil
	}
	_, b, err := d.stored(s)
	if err != nil {
		return nil, err
	}
	d.docs[s] = b
	return b, nil
}

func (d *sparseDoc) setDoc(pos int, b []byte) {
	s := d.slot(pos)
	if s < 0 {
		d.added[-s-1] = b
		return
	}
	d.docs[s] = b
	d.patched[s] = true
}

// position parses the index segment of /messages/N; "-" and N == length
// are only valid for add.
func (d *sparseDoc) position(i int, seg string, forAdd bool) (int, error) {
	if forAdd && seg == "-" {
		return d.n, nil
	}
	n, ok := messageIndex(seg)
	if !ok || n > d.n || (!forAdd && n == d.n) {
		return 0, patchInvalid(i, fmt.Sprintf("no message at /messages/%s (the chat has %d)", seg, d.n))
	}
	return n, nil
}

// apply applies ops in order. Consecutive ops inside one message (or the
// metadata) are applied together, as one patch of that object.
func (d *sparseDoc) apply(ops []patchOp) error {
	for i := 0; i < len(ops); {
		op := ops[i]
		key, err := d.target(op)
		if err != nil {
			return err
		}
		if key == "" {
			if err := d.applyWhole(i, op); err != nil {
				return err
			}
			i++
			continue
		}
		j := i + 1
		for j < len(ops) {
			k, err := d.target(ops[j])
			if err != nil {
				return err
			}
			if k != key {
				break
			}
			j++
		}
		if err := d.applyInside(i, ops[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// target names the object an op works inside ("metadata" or
// "messages/N"), or "" for an op on a whole message or the whole metadata.
func (d *sparseDoc) target(op patchOp) (string, error) {
	key := func(p []string) (string, error) {
		switch {
		case len(p) == 0:
			return "", errWholeDocument
		case p[0] == "metadata" && len(p) == 1:
			return "", nil
		case p[0] == "metadata":
			return "metadata", nil
		case p[0] == "messages" && len(p) == 1:
			return "", errWholeDocument
		case p[0] == "messages" && len(p) == 2:
			return "", nil
		case p[0] == "messages" && p[2] == "id":
			return "", errWholeDocument
		case p[0] == "messages":
			return "messages/" + p[1], nil
		}
		return "", patchInvalid(0, "paths start with /metadata or /messages")
	}
	k, err := key(op.path)
	if err != nil || op.from == nil {
		return k, err
	}
	f, err := key(op.from)
	if err != nil {
		return "", err
	}
	if f != k || k == "" {
		return "", errWholeDocument
	}
	return k, nil
}

// applyInside applies ops that all work inside the same object.
func (d *sparseDoc) applyInside(first int, ops []patchOp) error {
	if ops[0].path[0] == "metadata" {
		next, err := applyStripped(d.meta, ops, 1, first)
		if err != nil {
			return err
		}
		d.meta, d.metaPatched = next, true
		return nil
	}
	pos, err := d.position(first, ops[0].path[1], false)
	if err != nil {
		return err
	}
	doc, err := d.doc(pos)
	if err != nil {
		return err
	}
	next, err := applyStripped(doc, ops, 2, first)
	if err != nil {
		return err
	}
	d.setDoc(pos, next)
	return nil
}

// applyWhole applies an op on a whole message or the whole metadata.
func (d *sparseDoc) applyWhole(i int, op patchOp) error {
	if op.path[0] == "metadata" {
		switch op.op {
		case "add", "replace":
			if !isObject(op.val) {
				return apperr.New(apperr.CodePatchInvalid, "metadata must stay an object")
			}
			d.meta, d.metaPatched = op.val, true
			return nil
		case "test":
			return testEqual(i, op, d.meta)
		}
		return apperr.New(apperr.CodePatchInvalid, "metadata must stay an object")
	}
	switch op.op {
	case "add":
		pos, err := d.position(i, op.path[1], true)
		if err != nil {
			return err
		}
		if !isObject(op.val) {
			return patchInvalid(i, "a message must be an object")
		}
		d.materialize()
		d.added = append(d.added, op.val)
		d.order = slices.Insert(d.order, pos, -len(d.added))
		d.n++
	case "remove":
		pos, err := d.position(i, op.path[1], false)
		if err != nil {
			return err
		}
		d.materialize()
		if s := d.order[pos]; s >= 0 {
			d.removed[s] = true
		}
		d.order = slices.Delete(d.order, pos, pos+1)
		d.n--
	case "replace", "test":
		pos, err := d.position(i, op.path[1], false)
		if err != nil {
			return err
		}
		doc, err := d.doc(pos)
		if err != nil {
			return err
		}
		if op.op == "test" {
			return testEqual(i, op, doc)
		}
		if !isObject(op.val) {
			return patchInvalid(i, "a message must be an object")
		}
		d.setDoc(pos, op.val)
	default:
		return errWholeDocument
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func testEqual(i int, op patchOp, doc []byte) error {
	if jsonpatch.Equal(doc, op.val) {
		return nil
	}
	return testFailed(i, op)
}

func testFailed(i int, op patchOp) error {
	return apperr.New(apperr.CodePatchTestFailed, "patch op %d: test failed at %s", i, joinPointer(op.path)).
		WithDetails(map[string]any{"op": i, "path": joinPointer(op.path)})
}

// patchOptions keep values as they were written (no HTML escaping) and
// read array indexes strictly.
var patchOptions = func() *jsonpatch.ApplyOptions {
	o := jsonpatch.NewApplyOptions()
	o.EscapeHTML = false
	o.SupportNegativeIndices = false
	return o
}()

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
		return build(ops).ApplyWithOptions(doc, patchOptions)
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

// differences compares d, after the operations that should have brought
// it back, with the stored chat, and returns the paths that differ: the
// metadata, and each message that is not what is stored at its position.
// Message ids are not compared (a message restored under a new id is the
// same message).
func (d *sparseDoc) differences() ([]string, error) {
	var out []string
	if d.metaPatched {
		cur, _ := d.chat.metadata.MarshalJSON()
		if !jsonpatch.Equal(cur, d.meta) {
			out = append(out, "/metadata")
		}
	}
	if d.n != d.chat.messageCount {
		return append(out, "/messages"), nil
	}
	positions := slices.Sorted(maps.Keys(d.patched))
	if d.order != nil {
		positions = positions[:0]
		for pos, s := range d.order {
			if s != pos || d.patched[s] {
				positions = append(positions, pos)
			}
		}
	}
	for _, pos := range positions {
		doc, err := d.doc(pos)
		if err != nil {
			return nil, err
		}
		_, cur, err := d.stored(pos)
		if err != nil {
			return nil, err
		}
		if !sameMessageDoc(doc, cur) {
			out = append(out, messagePath(pos))
		}
	}
	return out, nil
}

// sameMessageDoc compares two message documents as JSON, ids aside.
func sameMessageDoc(a, b []byte) bool {
	return bytes.Equal(a, b) || jsonpatch.Equal(a, b) || jsonpatch.Equal(withoutID(a), withoutID(b))
}

func withoutID(doc []byte) []byte {
	var o map[string]json.RawMessage
	if json.Unmarshal(doc, &o) != nil {
		return doc
	}
	delete(o, "id")
	b, _ := json.Marshal(o)
	return b
}
