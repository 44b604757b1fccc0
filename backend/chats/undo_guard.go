package chats

import (
	"bytes"
	"encoding/json"
	"slices"

	"hearth/backend/jsonx"
)

// replacesInPlace reports whether ops and check only replace values inside
// messages or the metadata, at the same paths, none inside another: the
// shape of every edit's journal entry. check then brings ops' result back
// to the chat exactly when the chat holds check's value at each path, so
// drift can be found by comparing those values instead of applying check
// to a copy of the result (most of an undo's second pass).
func replacesInPlace(ops, check []patchOp) bool {
	if len(ops) != len(check) {
		return false
	}
	paths := make(map[string]bool, len(ops))
	for _, op := range ops {
		if !replaceInside(op) {
			return false
		}
		paths[joinPointer(op.path)] = true
	}
	if len(paths) != len(ops) {
		return false
	}
	for _, op := range check {
		if !replaceInside(op) || !paths[joinPointer(op.path)] {
			return false
		}
	}
	for _, op := range ops {
		for k := 1; k < len(op.path); k++ {
			if paths[joinPointer(op.path[:k])] {
				return false
			}
		}
	}
	return true
}

// replaceInside: op replaces a value inside a message (not its id) or
// inside the metadata.
func replaceInside(op patchOp) bool {
	if op.op != "replace" {
		return false
	}
	p := op.path
	switch {
	case len(p) >= 2 && p[0] == "metadata":
		return true
	case len(p) >= 3 && p[0] == "messages":
		return p[2] != "id"
	}
	return false
}

// driftedValues returns where the chat as stored does not hold the value
// an op of check sets: the path of its message, or /metadata, once each.
// check's paths are those of operations already applied to d, so they
// name messages that exist.
func (d *sparseDoc) driftedValues(check []patchOp) ([]string, error) {
	var out []string
	for _, op := range check {
		where, doc, rest := "/metadata", d.chat.metadata, op.path[1:]
		if op.path[0] == "messages" {
			pos, _ := messageIndex(op.path[1])
			_, o, err := d.stored(pos)
			if err != nil {
				return nil, err
			}
			where, doc, rest = messagePath(pos), o, op.path[2:]
		}
		if slices.Contains(out, where) {
			continue
		}
		if cur, ok := valueAt(doc, rest); !ok || !(bytes.Equal(cur, op.val) || jsonx.Equal(cur, op.val)) {
			out = append(out, where)
		}
	}
	return out, nil
}

// valueAt follows path (JSON pointer segments) into o's members, reading
// array indexes as the patch that was just applied there did.
func valueAt(o jsonx.Object, path []string) (json.RawMessage, bool) {
	v, ok := o[path[0]]
	if !ok {
		return nil, false
	}
	return jsonx.Lookup(v, path[1:], patchOptions)
}
