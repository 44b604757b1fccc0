package state

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// A floor state's value is an object, and an operation on /k/... reads and
// writes key k alone. Each commit's keys are recorded (its first in its
// row, others in floor_commit_keys; migrations 0006 and 0018), so
// settling replays only the keys a change affects.
// Operations on the whole value, or moving or copying one key into
// another, entangle the keys: the namespace is then always replayed whole.

// commitKeys returns the top-level keys ops touch, as written in their
// pointers (escapes kept), and whether they entangle keys.
func commitKeys(ops []byte) (keys []string, entangled bool, err error) {
	var list []struct {
		Op   string  `json:"op"`
		Path *string `json:"path"`
		From *string `json:"from"`
	}
	if err := json.Unmarshal(ops, &list); err != nil {
		return nil, false, fmt.Errorf("read floor commit keys: %w", err)
	}
	seen := map[string]bool{}
	for _, o := range list {
		key, ok := topKey(o.Path)
		if !ok {
			entangled = true
			continue
		}
		if o.Op == "move" || o.Op == "copy" {
			if from, ok := topKey(o.From); !ok || from != key {
				entangled = true
			}
		}
		if !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
	}
	return keys, entangled, nil
}

// topKey is the first segment of a JSON pointer, escapes kept; ok is
// false for the root ("") and for anything that is not a pointer.
func topKey(p *string) (string, bool) {
	if p == nil || !strings.HasPrefix(*p, "/") {
		return "", false
	}
	rest := (*p)[1:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

// unescapeKey turns a pointer segment into the object key it names.
func unescapeKey(seg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
}

// appendCommit stores a commit with the keys it touches: the first in its
// row, any others in floor_commit_keys (migration 0018); a commit that
// calls for it entangles its namespace.
func appendCommit(ctx context.Context, q queryer, chat int64, ns string, seq, row int64, swipe int, ops []byte) error {
	keys, entangled, err := commitKeys(ops)
	if err != nil {
		return err
	}
	var first any
	if len(keys) > 0 {
		first = keys[0]
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO floor_commits (chat_id, ns, seq, message_id, swipe_id, ops, key) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		chat, ns, seq, row, swipe, string(ops), first); err != nil {
		return fmt.Errorf("append floor commit %s: %w", ns, err)
	}
	for _, k := range keys[min(len(keys), 1):] {
		if _, err := q.ExecContext(ctx, `INSERT INTO floor_commit_keys (chat_id, ns, key, seq) VALUES (?, ?, ?, ?)`, chat, ns, k, seq); err != nil {
			return fmt.Errorf("record floor commit keys %s: %w", ns, err)
		}
	}
	if entangled {
		if _, err := q.ExecContext(ctx, `UPDATE floor_states SET entangled = 1 WHERE chat_id = ? AND ns = ?`, chat, ns); err != nil {
			return fmt.Errorf("record floor commit keys %s: %w", ns, err)
		}
	}
	return nil
}

// canonical is the stored form of a floor state's value: top-level keys
// sorted, each value as replay built it. Whole replays and key-by-key ones
// then store equal values as equal bytes, whatever order the commits
// added the keys in.
func canonical(value []byte) ([]byte, error) {
	es, ok := objectEntries(value)
	if !ok {
		return nil, fmt.Errorf("floor state value is not an object")
	}
	return writeObject(es), nil
}

// entry is one top-level member of an object: its key decoded and as
// JSON text, and its value's JSON text.
type entry struct {
	key           string
	keyJSON, json []byte
}

// objectEntries splits a JSON object into its members without decoding
// their values (gjson walks the text). Values here were all built by
// replay, so they are valid JSON.
func objectEntries(obj []byte) ([]entry, bool) {
	r := gjson.ParseBytes(obj)
	if !r.IsObject() {
		return nil, false
	}
	var out []entry
	r.ForEach(func(k, v gjson.Result) bool {
		out = append(out, entry{key: k.Str, keyJSON: span(obj, k), json: span(obj, v)})
		return true
	})
	return out, true
}

// span is r's text as a slice of obj, the text gjson read it from, rather
// than a copy: a settle splits every floor state it touches (20 of 40 KB
// each in the state benchmark), and copying each member twice was most of
// the cost.
func span(obj []byte, r gjson.Result) []byte {
	end := r.Index + len(r.Raw)
	if r.Index <= 0 || end > len(obj) || string(obj[r.Index:end]) != r.Raw {
		return []byte(r.Raw)
	}
	return obj[r.Index:end:end]
}

// writeObject writes members as a compact object, keys sorted.
func writeObject(es []entry) []byte {
	sort.SliceStable(es, func(i, j int) bool { return es[i].key < es[j].key })
	n := 2
	for _, e := range es {
		n += len(e.keyJSON) + len(e.json) + 2
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	for i, e := range es {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e.keyJSON...)
		out = append(out, ':')
		out = append(out, e.json...)
	}
	return append(out, '}')
}
