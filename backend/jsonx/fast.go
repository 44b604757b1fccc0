package jsonx

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// The decoders here read a value in one pass with jsontext, where
// encoding/json first validates the whole input and then decodes it (and
// a map of raw values, then each value again). They are fast paths only:
// on any input they do not take cleanly they report false and the caller
// decodes with encoding/json as before, so results and error messages are
// exactly encoding/json's (FuzzFastDecode holds them to it). Duplicate
// names are allowed, the last one winning, as encoding/json does; invalid
// UTF-8 is left to the slow path, which replaces it.

// fastObject splits the object t (trimmed, starting with '{') into its
// members. The values share t's bytes.
func fastObject(t []byte) (Object, bool) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(t), jsontext.AllowDuplicateNames(true))
	o, ok := readObject(dec)
	return o, ok && atEOF(dec)
}

// readObject reads the object that comes next from dec, its values
// sharing the decoder's input.
func readObject(dec *jsontext.Decoder) (Object, bool) {
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	o := Object{}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		k := name.String()
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		o[k] = json.RawMessage(v)
	}
	tok, err := dec.ReadToken()
	return o, err == nil && tok.Kind() == '}'
}

// fastString unquotes the string literal raw.
func fastString(raw []byte) (string, bool) {
	t := trimJSONSpace(raw)
	if len(t) < 2 || t[0] != '"' {
		return "", false
	}
	b, err := jsontext.AppendUnquote(nil, t)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// fastStrings decodes an array whose elements are strings or null (read
// as "", as encoding/json leaves a string it is given null).
func fastStrings(raw []byte) ([]string, bool) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(trimJSONSpace(raw)))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return nil, false
	}
	out := []string{}
	for {
		switch dec.PeekKind() {
		case '"':
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, false
			}
			out = append(out, tok.String())
		case 'n':
			if _, err := dec.ReadToken(); err != nil {
				return nil, false
			}
			out = append(out, "")
		default:
			return out, closes(dec, ']')
		}
	}
}

// fastObjects decodes an array of objects, their values copied or
// sharing raw's bytes. Each object is split as the array is read, not
// read whole first and split again.
func fastObjects(raw []byte, copied bool) ([]Object, bool) {
	t := trimJSONSpace(raw)
	if copied {
		t = bytes.Clone(t)
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(t), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return nil, false
	}
	out := []Object{}
	for dec.PeekKind() == '{' {
		o, ok := readObject(dec)
		if !ok {
			return nil, false
		}
		out = append(out, o)
	}
	return out, closes(dec, ']')
}

// closes reads the token ending what dec was reading, and makes sure
// nothing but whitespace follows it.
func closes(dec *jsontext.Decoder, end jsontext.Kind) bool {
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != end {
		return false
	}
	return atEOF(dec)
}

// atEOF reports whether nothing but whitespace is left in dec's input.
func atEOF(dec *jsontext.Decoder) bool {
	_, err := dec.ReadToken()
	return err == io.EOF
}

// trimJSONSpace drops JSON's whitespace (space, tab, CR, LF) around raw;
// encoding/json refuses any other, such as bytes.TrimSpace's \v.
func trimJSONSpace(raw []byte) []byte {
	return bytes.Trim(raw, " \t\r\n")
}
