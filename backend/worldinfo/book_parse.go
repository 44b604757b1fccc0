package worldinfo

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"

	"hearth/backend/jsonx"
)

// ParseBook reads a world file (SillyTavern's worlds/<name>.json). Every
// field is kept: known entry fields are typed, the rest stays verbatim in
// Extra, and the order of keys is remembered so Encode writes the file back
// as it was. Errors are CodeInvalid and name the field.
func ParseBook(data []byte) (*Book, error) {
	if len(data) > MaxBookBytes {
		return nil, invalid("book", "is %d bytes; at most %d are allowed", len(data), MaxBookBytes)
	}
	if d := jsonx.Depth(data); d > jsonx.MaxDepth {
		return nil, invalid("book", "nests %d levels deep; at most %d are allowed", d, jsonx.MaxDepth).
			WithDetails(map[string]any{"field": "book", "maxDepth": jsonx.MaxDepth, "depth": d})
	}
	top, err := decodeMembers(data, "book")
	if err != nil {
		return nil, err
	}
	b := &Book{order: make([]string, 0, len(top))}
	var entries []byte
	for _, m := range top {
		b.order = append(b.order, m.key)
		if m.key == "entries" {
			entries = m.value
			continue
		}
		if b.Extra == nil {
			b.Extra = jsonx.Object{}
		}
		b.Extra[m.key] = m.value
	}
	if entries == nil {
		return nil, invalid("entries", "is missing")
	}
	list, err := decodeMembers(entries, "entries")
	if err != nil {
		return nil, err
	}
	if len(list) > MaxEntries {
		return nil, invalid("entries", "has %d entries; at most %d are allowed", len(list), MaxEntries)
	}
	jsOrder(list)
	b.Entries = make([]*Entry, 0, len(list))
	for _, m := range list {
		e, err := parseEntry(m.key, m.value)
		if err != nil {
			return nil, err
		}
		b.Entries = append(b.Entries, e)
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	return b, nil
}

// parseEntry reads one member of the entries object.
func parseEntry(key string, raw []byte) (*Entry, error) {
	path := entryPath(key)
	ms, err := decodeMembers(raw, path)
	if err != nil {
		return nil, err
	}
	e := absentEntry()
	e.key = key
	e.orig = make(jsonx.Object, len(ms))
	e.order = make([]string, 0, len(ms))
	for _, m := range ms {
		e.order = append(e.order, m.key)
		i, known := fieldIndex[m.key]
		if !known {
			if e.Extra == nil {
				e.Extra = jsonx.Object{}
			}
			e.Extra[m.key] = m.value
			continue
		}
		if err := entryFields[i].decode(e, m.value, path+"."+m.key); err != nil {
			return nil, err
		}
		e.orig[m.key] = m.value
	}
	if _, ok := e.orig["uid"]; !ok {
		n, ok := arrayIndex(key)
		if !ok {
			return nil, invalid(path+".uid", "is missing")
		}
		e.UID = int(n)
	}
	e.origUID = e.UID
	return e, nil
}

// Validate checks the bounds a book must keep to be stored or activated:
// the entry count, content and key sizes, unique uids and keys, and that
// every raw field is JSON. ParseBook and MarshalJSON call it; call it
// after editing a book in Go.
func (b *Book) Validate() error {
	if len(b.Entries) > MaxEntries {
		return invalid("entries", "has %d entries; at most %d are allowed", len(b.Entries), MaxEntries)
	}
	keys := make(map[string]bool, len(b.Entries))
	uids := make(map[int]string, len(b.Entries))
	for i, e := range b.Entries {
		if e == nil {
			return invalid("entries", "holds nothing at index %d", i)
		}
		k := e.mapKey()
		path := entryPath(k)
		if keys[k] {
			return invalid(path, "appears twice")
		}
		keys[k] = true
		if other, dup := uids[e.UID]; dup {
			return invalid(path+".uid", "is %d, which entry %q has too", e.UID, other)
		}
		uids[e.UID] = k
		if err := e.validate(path); err != nil {
			return err
		}
	}
	for k, v := range b.Extra {
		if !json.Valid(v) {
			return invalid(k, "is not valid JSON")
		}
	}
	return nil
}

func (e *Entry) validate(path string) error {
	if e.UID > jsonx.MaxSafeInt || e.UID < -jsonx.MaxSafeInt {
		return invalid(path+".uid", "is out of range")
	}
	if len(e.Content) > MaxContentBytes {
		return invalid(path+".content", "is %d bytes; at most %d are allowed", len(e.Content), MaxContentBytes)
	}
	if len(e.Comment) > MaxContentBytes {
		return invalid(path+".comment", "is %d bytes; at most %d are allowed", len(e.Comment), MaxContentBytes)
	}
	for name, keys := range map[string][]string{"key": e.Key, "keysecondary": e.KeySecondary} {
		if len(keys) > MaxKeys {
			return invalid(path+"."+name, "has %d keys; at most %d are allowed", len(keys), MaxKeys)
		}
		for i, k := range keys {
			if len(k) > MaxKeyBytes {
				return invalid(path+"."+name+"["+itoa(i)+"]", "is %d bytes; at most %d are allowed", len(k), MaxKeyBytes)
			}
		}
	}
	for k, v := range e.Extra {
		if !json.Valid(v) {
			return invalid(path+"."+k, "is not valid JSON")
		}
	}
	return nil
}

// decodeMembers reads raw as a JSON object, keeping its members in order
// with compact values; repeated keys merge as JSON.parse merges them.
// label names the object in errors.
func decodeMembers(raw []byte, label string) ([]jsMember, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, invalid(label, "is not valid JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, invalid(label, "must be an object")
	}
	var ms []jsMember
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, invalid(label, "is not valid JSON: %v", err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, invalid(label, "is not valid JSON: %v", err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			return nil, invalid(label, "is not valid JSON: %v", err)
		}
		ms = append(ms, jsMember{key: kt.(string), value: buf.Bytes()})
	}
	if _, err := dec.Token(); err != nil {
		return nil, invalid(label, "is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, invalid(label, "is not valid JSON: %v", errTrailing)
	}
	return dedupeMembers(ms), nil
}

// sortedKeys returns o's keys sorted, for writing fields a file did not
// have in a stable order.
func sortedKeys(o jsonx.Object) []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
