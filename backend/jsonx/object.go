package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"hearth/backend/apperr"
)

// Object is a JSON object whose values stay raw, so unknown keys and number
// formats survive a round-trip untouched.
type Object map[string]json.RawMessage

// Clone returns a shallow copy (values are immutable raw bytes).
func (o Object) Clone() Object {
	out := make(Object, len(o))
	for k, v := range o {
		out[k] = v
	}
	return out
}

// MarshalJSON encodes with sorted keys so bytes are stable: the change
// journal and the idempotent-add check compare them.
func (o Object) MarshalJSON() ([]byte, error) {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	size := 2
	for _, k := range keys {
		size += len(k) + len(o[k]) + 4
	}
	var buf bytes.Buffer
	buf.Grow(size)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeName(&buf, k)
		buf.WriteByte(':')
		v := bytes.TrimSpace(o[k])
		if len(v) == 0 {
			v = []byte("null")
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// writeName writes the member name k as encoding/json quotes it. Names
// are nearly always plain ASCII, written as they are; json.Marshal for
// each one was a reflective call and an allocation per member, and an
// import encodes several objects per message.
func writeName(buf *bytes.Buffer, k string) {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(k)
	buf.WriteByte('"')
}

// Set stores v under k, encoding it.
func (o Object) Set(k string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with plain values
	}
	o[k] = b
}

// DecodeObject parses raw as a JSON object; name labels errors. The
// values are a copy: raw may change after.
func DecodeObject(raw json.RawMessage, name string) (Object, error) {
	return decodeObject(raw, name, true)
}

// DecodeObjectShared is DecodeObject whose values share raw's bytes, for
// input no one changes after (a call's arguments, a line an import made):
// a large import would otherwise copy every line once more.
func DecodeObjectShared(raw json.RawMessage, name string) (Object, error) {
	return decodeObject(raw, name, false)
}

func decodeObject(raw json.RawMessage, name string, copied bool) (Object, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return nil, apperr.Invalid("%s must be an object", name)
	}
	if copied {
		t = bytes.Clone(t)
	}
	if o, ok := fastObject(t); ok {
		return o, nil
	}
	var o Object
	if err := json.Unmarshal(t, &o); err != nil {
		return nil, apperr.Invalid("%s is not valid JSON: %v", name, err)
	}
	if o == nil {
		o = Object{}
	}
	return o, nil
}

// IsNull reports whether raw is JSON null (or empty).
func IsNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// String decodes a required string value.
func String(raw json.RawMessage, name string) (string, error) {
	if s, ok := fastString(raw); ok {
		return s, nil
	}
	var s string
	if IsNull(raw) || json.Unmarshal(raw, &s) != nil {
		return "", apperr.Invalid("%s must be a string", name)
	}
	return s, nil
}

// Bool decodes a required boolean value.
func Bool(raw json.RawMessage, name string) (bool, error) {
	var b bool
	if IsNull(raw) || json.Unmarshal(raw, &b) != nil {
		return false, apperr.Invalid("%s must be a boolean", name)
	}
	return b, nil
}

// Strings decodes an array of strings.
func Strings(raw json.RawMessage, name string) ([]string, error) {
	if ss, ok := fastStrings(raw); ok {
		return ss, nil
	}
	var ss []string
	if IsNull(raw) || json.Unmarshal(raw, &ss) != nil {
		return nil, apperr.Invalid("%s must be an array of strings", name)
	}
	if ss == nil {
		ss = []string{}
	}
	return ss, nil
}

// StrictStrings is Strings for a caller's input: a null element (what
// JSON makes of undefined or NaN) is refused, naming its index, where
// Strings, kept lenient for stored data, would read it as "".
func StrictStrings(raw json.RawMessage, name string) ([]string, error) {
	var items []json.RawMessage
	if IsNull(raw) || json.Unmarshal(raw, &items) != nil {
		return nil, apperr.Invalid("%s must be an array of strings", name)
	}
	out := make([]string, len(items))
	for i, it := range items {
		if IsNull(it) || json.Unmarshal(it, &out[i]) != nil {
			return nil, apperr.Invalid("%s[%d] must be a string, got %s", name, i, abbreviate(it)).
				WithDetails(map[string]any{"field": fmt.Sprintf("%s[%d]", name, i)})
		}
	}
	return out, nil
}

// Objects decodes an array of objects.
func Objects(raw json.RawMessage, name string) ([]Object, error) {
	return objects(raw, name, true)
}

// ObjectsShared is Objects whose objects' values share raw's bytes, as
// DecodeObjectShared's do.
func ObjectsShared(raw json.RawMessage, name string) ([]Object, error) {
	return objects(raw, name, false)
}

func objects(raw json.RawMessage, name string, copied bool) ([]Object, error) {
	if out, ok := fastObjects(raw, copied); ok {
		return out, nil
	}
	var items []json.RawMessage
	if IsNull(raw) || json.Unmarshal(raw, &items) != nil {
		return nil, apperr.Invalid("%s must be an array of objects", name)
	}
	out := make([]Object, len(items))
	for i, it := range items {
		o, err := decodeObject(it, name+"[]", copied)
		if err != nil {
			return nil, err
		}
		out[i] = o
	}
	return out, nil
}

// Raw encodes v, panicking only on values that cannot be JSON (a bug).
func Raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
