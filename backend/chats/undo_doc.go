package chats

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
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
	meta jsonx.Object
	// metaPatched is set once an op changed the metadata.
	metaPatched bool
	// order lists the messages by position: a value >= 0 is the index of a
	// stored message, -(k+1) is added[k]. nil while no op inserted or
	// removed a message (position i is stored message i).
	order []int
	n     int
	// docs holds the stored messages an op reached, by stored index, as
	// objects whose members stay raw: an op inside one member re-encodes
	// that member, not the whole message. patched marks those an op
	// changed, removed those it removed. No object is changed in place
	// once stored here, so clones share them.
	docs    map[int]jsonx.Object
	patched map[int]bool
	removed map[int]bool
	added   []jsonx.Object
	// loaded caches the stored messages read (with their JSON) and their
	// objects (shared by clones).
	loaded    map[int]storedMessage
	loadedDoc map[int]jsonx.Object
}

func newSparseDoc(ctx context.Context, q queryer, chat *chatRow) *sparseDoc {
	return &sparseDoc{ctx: ctx, q: q, chat: chat, meta: chat.metadata, n: chat.messageCount,
		docs: map[int]jsonx.Object{}, patched: map[int]bool{}, removed: map[int]bool{},
		loaded: map[int]storedMessage{}, loadedDoc: map[int]jsonx.Object{}}
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

// stored returns stored message i and its document, reading it on first
// use.
func (d *sparseDoc) stored(i int) (storedMessage, jsonx.Object, error) {
	if o, ok := d.loadedDoc[i]; ok {
		return d.loaded[i], o, nil
	}
	sm, err := loadAt(d.ctx, d.q, d.chat, i)
	if err != nil {
		return storedMessage{}, nil, err
	}
	b := sm.msg.mustJSON()
	o, _ := jsonx.SplitEncoded(b)
	sm.encoded = b
	d.loaded[i], d.loadedDoc[i] = sm, o
	return sm, o, nil
}

// doc returns the message at position pos.
func (d *sparseDoc) doc(pos int) (jsonx.Object, error) {
	s := d.slot(pos)
	if s < 0 {
		return d.added[-s-1], nil
	}
	if b, ok := d.docs[s]; ok {
		return b, nil
	}
	_, o, err := d.stored(s)
	if err != nil {
		return nil, err
	}
	d.docs[s] = o
	return o, nil
}

func (d *sparseDoc) setDoc(pos int, o jsonx.Object) {
	s := d.slot(pos)
	if s < 0 {
		d.added[-s-1] = o
		return
	}
	d.docs[s] = o
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
		next, err := applyMembers(d.meta, ops, 1, first)
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
	next, err := applyMembers(doc, ops, 2, first)
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
			o, err := jsonx.DecodeObject(op.val, "metadata")
			if err != nil {
				return apperr.New(apperr.CodePatchInvalid, "metadata must stay an object")
			}
			d.meta, d.metaPatched = o, true
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
		o, err := jsonx.DecodeObject(op.val, "message")
		if err != nil {
			return patchInvalid(i, "a message must be an object")
		}
		d.materialize()
		d.added = append(d.added, o)
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
		o, err := jsonx.DecodeObject(op.val, "message")
		if err != nil {
			return patchInvalid(i, "a message must be an object")
		}
		d.setDoc(pos, o)
	default:
		return errWholeDocument
	}
	return nil
}

// differences compares d, after the operations that should have brought
// it back, with the stored chat, and returns the paths that differ: the
// metadata, and each message that is not what is stored at its position.
// Message ids are not compared (a message restored under a new id is the
// same message).
func (d *sparseDoc) differences() ([]string, error) {
	var out []string
	if d.metaPatched && !sameMembers(d.chat.metadata, d.meta, false) {
		out = append(out, "/metadata")
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
		if !sameMembers(doc, cur, true) {
			out = append(out, messagePath(pos))
		}
	}
	return out, nil
}
