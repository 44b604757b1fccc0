package worldinfo

import (
	"bytes"
	"encoding/json"
)

// Encode writes b as SillyTavern writes a world file
// (JSON.stringify(book, null, 4)). A book read with ParseBook and not
// changed comes back with the same fields, values and order; a file
// SillyTavern wrote comes back byte for byte. Use Encode rather than
// json.Marshal: encoding/json escapes <, > and & inside strings.
func Encode(b *Book) ([]byte, error) {
	compact, err := b.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "    "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// MarshalJSON writes b compactly, after Validate.
func (b *Book) MarshalJSON() ([]byte, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	return b.appendJSON(nil), nil
}

func (b *Book) appendJSON(out []byte) []byte {
	entries := make([]jsMember, len(b.Entries))
	for i, e := range b.Entries {
		entries[i] = jsMember{key: e.mapKey(), value: appendJSObject(nil, e.members())}
	}
	entriesJSON := appendJSObject(nil, entries)

	var ms []jsMember
	written := make(map[string]bool, len(b.order)+1)
	for _, k := range b.order {
		switch v, ok := b.Extra[k]; {
		case k == "entries":
			ms = append(ms, jsMember{key: k, value: entriesJSON})
		case ok:
			ms = append(ms, jsMember{key: k, value: v})
		default:
			continue
		}
		written[k] = true
	}
	if !written["entries"] {
		ms = append(ms, jsMember{key: "entries", value: entriesJSON})
	}
	for _, k := range sortedKeys(b.Extra) {
		if !written[k] {
			ms = append(ms, jsMember{key: k, value: b.Extra[k]})
		}
	}
	return appendJSObject(out, ms)
}

// members lists the entry's fields as they are written, in order: the
// order read for a parsed entry (fields it did not have but now hold a
// value follow, then new unknown fields sorted), the template order for an
// entry made in Go. A known field whose value did not change is written
// with its original bytes.
func (e *Entry) members() []jsMember {
	var ms []jsMember
	if e.order == nil {
		for _, f := range entryFields {
			if (f.name == "characterFilter" && e.CharacterFilter == nil) || (f.name == "extensions" && e.Extensions == nil) {
				continue
			}
			ms = append(ms, jsMember{key: f.name, value: f.encode(nil, e)})
		}
	} else {
		scratch := absentEntry()
		for _, k := range e.order {
			if i, ok := fieldIndex[k]; ok {
				ms = append(ms, jsMember{key: k, value: e.knownValue(i, scratch)})
			} else if v, ok := e.Extra[k]; ok {
				ms = append(ms, jsMember{key: k, value: v})
			}
		}
		absent := absentEntry()
		for _, f := range entryFields {
			if _, ok := e.orig[f.name]; ok {
				continue
			}
			if cur := f.encode(nil, e); !bytes.Equal(cur, f.encode(nil, absent)) {
				ms = append(ms, jsMember{key: f.name, value: cur})
			}
		}
	}
	inOrder := make(map[string]bool, len(e.order))
	for _, k := range e.order {
		inOrder[k] = true
	}
	for _, k := range sortedKeys(e.Extra) {
		if !inOrder[k] {
			ms = append(ms, jsMember{key: k, value: e.Extra[k]})
		}
	}
	return ms
}

// knownValue is the JSON of known field i: the bytes read when the value
// is unchanged (so "100.0", a null or a string SillyTavern never wrote
// survives), else the value encoded afresh.
func (e *Entry) knownValue(i int, scratch *Entry) []byte {
	f := entryFields[i]
	cur := f.encode(nil, e)
	raw, ok := e.orig[f.name]
	if !ok {
		return cur
	}
	if err := f.decode(scratch, raw, f.name); err != nil {
		return cur
	}
	if bytes.Equal(f.encode(nil, scratch), cur) {
		return raw
	}
	return cur
}
