package jsonx

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// SplitEncoded splits a JSON object this program encoded (or a library it
// relies on did) into its members, sharing doc's bytes (each capped, so
// appending to one cannot write over what follows). The text is not
// validated, which is what makes it cheaper than DecodeObject: never call
// it on input. A repeated name keeps its last value, as encoding/json
// does. ok is false when doc is not an object (or is cut short).
//
// It scans instead of parsing: an undo of an edit splits the message and
// its journal entry, and a parser (gjson was used) copied the text and
// unescaped every string value on the way, a fifth of what the undo
// allocated.
func SplitEncoded(doc []byte) (o Object, ok bool) {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return nil, false
	}
	o = Object{}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return o, true
	}
	for i < len(doc) && doc[i] == '"' {
		end := stringEnd(doc, i)
		if end < 0 {
			return nil, false
		}
		name := memberName(doc[i:end])
		i = skipSpace(doc, end)
		if i >= len(doc) || doc[i] != ':' {
			return nil, false
		}
		i = skipSpace(doc, i+1)
		end = valueEnd(doc, i)
		if end < 0 {
			return nil, false
		}
		o[name] = doc[i:end:end]
		var closed bool
		switch i, closed, ok = afterItem(doc, end, '}'); {
		case !ok:
			return nil, false
		case closed:
			return o, true
		}
	}
	return nil, false
}

// SplitEncodedArray splits a JSON array this program encoded into its
// elements, sharing doc's bytes; like SplitEncoded it does not validate.
// ok is false when doc is not an array (or is cut short).
func SplitEncodedArray(doc []byte) (elems []json.RawMessage, ok bool) {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '[' {
		return nil, false
	}
	elems = []json.RawMessage{}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == ']' {
		return elems, true
	}
	for i < len(doc) {
		end := valueEnd(doc, i)
		if end < 0 {
			return nil, false
		}
		elems = append(elems, doc[i:end:end])
		var closed bool
		switch i, closed, ok = afterItem(doc, end, ']'); {
		case !ok:
			return nil, false
		case closed:
			return elems, true
		}
	}
	return nil, false
}

// afterItem reads what follows a member or an element that ends at i:
// the closer (closed) or a comma, then the next item's start (next). ok
// is false for anything else.
func afterItem(doc []byte, i int, closer byte) (next int, closed, ok bool) {
	i = skipSpace(doc, i)
	switch {
	case i < len(doc) && doc[i] == closer:
		return i + 1, true, true
	case i < len(doc) && doc[i] == ',':
		return skipSpace(doc, i+1), false, true
	}
	return i, false, false
}

func skipSpace(t []byte, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string whose opening quote is
// t[i], or -1 when it is not closed.
func stringEnd(t []byte, i int) int {
	for j := i + 1; j < len(t); {
		q := bytes.IndexByte(t[j:], '"')
		if q < 0 {
			return -1
		}
		q += j
		slashes := 0
		for k := q - 1; k > i && t[k] == '\\'; k-- {
			slashes++
		}
		if slashes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return -1
}

// valueEnd returns the index just past the value that starts at t[i], or
// -1 when there is none or it is not closed. Nesting is counted, not
// followed, so no depth of input can exhaust the stack.
func valueEnd(t []byte, i int) int {
	if i >= len(t) {
		return -1
	}
	switch t[i] {
	case '"':
		return stringEnd(t, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(t); j++ {
			switch t[j] {
			case '"':
				end := stringEnd(t, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case ',', ':', '}', ']':
		return -1
	}
	j := i
	for j < len(t) && t[j] != ',' && t[j] != '}' && t[j] != ']' && t[j] != ' ' && t[j] != '\t' && t[j] != '\n' && t[j] != '\r' {
		j++
	}
	return j
}

// memberName is a member's name (raw, quotes included) as encoding/json
// reads it: invalid UTF-8 and lone surrogate escapes become U+FFFD, so a
// name comes out the same whichever reads it.
func memberName(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
