package library

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// object is a JSON object with its keys in their order and its values as
// their bytes. An export edits SillyTavern's settings.json through it:
// the keys Hearth writes change, every other key stays where it was with
// its bytes, so an unchanged file comes back as it went in.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject reads raw, which must be a JSON object. A key given twice
// keeps its first place and its last value, as JSON.parse does.
func parseObject(raw []byte) (*object, error) {
	o := &object{vals: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("bad object key %v", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

// child returns the object under key, an empty one when key is missing or
// holds no object.
func (o *object) child(key string) *object {
	if raw, ok := o.vals[key]; ok {
		if c, err := parseObject(raw); err == nil {
			return c
		}
	}
	return &object{vals: map[string]json.RawMessage{}}
}

// set puts v under key, in key's place when it has one, else last.
func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// setValue puts v, encoded as JavaScript's JSON.stringify would (no HTML
// escaping), under key.
func (o *object) setValue(key string, v any) {
	o.set(key, encodeJS(v))
}

// setObject puts c under key.
func (o *object) setObject(key string, c *object) { o.set(key, c.marshal()) }

// marshal writes o compactly.
func (o *object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(encodeJS(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// encodeJS encodes v without encoding/json's HTML escaping of <, > and &.
func encodeJS(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// indentJS writes raw as JSON.stringify(value, null, 4) does, which is
// how SillyTavern writes settings.json.
func indentJS(raw []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "    "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
