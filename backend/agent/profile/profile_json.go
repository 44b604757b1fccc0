package profile

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
)

// JSON returns p as a profile document; nil only if p holds a value JSON
// cannot carry (a NaN temperature set by Go code).
func (p Profile) JSON() json.RawMessage {
	b, err := p.MarshalJSON()
	if err != nil {
		return nil
	}
	return b
}

// knownKeys are the top-level keys of the schema, in document order.
var knownKeys = []string{
	"schemaVersion", "kind", "id", "displayName", "description", "preset", "model",
	"run", "instructions", "tools", "skills", "workspace", "plan", "output",
}

// MarshalJSON writes the known fields, then the Extra keys in sorted order.
func (p Profile) MarshalJSON() ([]byte, error) {
	type plain Profile
	b, err := json.Marshal(plain(p))
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(p.Extra))
	for k := range p.Extra {
		if !slices.Contains(knownKeys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return b, nil
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, k := range keys {
		name, _ := json.Marshal(k)
		buf.WriteByte(',')
		buf.Write(name)
		buf.WriteByte(':')
		if err := json.Compact(&buf, p.Extra[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON parses and validates a profile document (see Parse), so a
// Profile inside a request decodes with the same rules.
func (p *Profile) UnmarshalJSON(raw []byte) error {
	q, err := Parse(raw)
	if err != nil {
		return err
	}
	*p = q
	return nil
}
