package jsonx

import (
	"encoding/binary"
	"encoding/json"
)

// SplitArray validates doc as a JSON array nested at most limit levels
// (Depth's count) and splits it into its elements (sharing doc's bytes,
// each capped, without surrounding whitespace). It is one pass and takes what encoding/json takes: duplicate names, and bytes
// that are not UTF-8 inside strings. ok is false for anything else —
// not JSON, not an array, or nesting past limit levels (the scan stops
// there, so no depth of input costs more than limit levels of stack) —
// and the caller then asks encoding/json what is wrong.
//
// It exists for a call's arguments: a chat file imported as one argument
// is tens of megabytes of escaped string, and checking its depth, then
// validating and splitting it with jsontext, were two scans and the
// slower half of the time before the import could start. The string scan
// here only looks for the bytes that end a run of plain text.
func SplitArray(doc []byte, limit int) (elems []json.RawMessage, ok bool) {
	s := scanner{doc: doc, limit: limit}
	i := s.space(0)
	if i >= len(doc) || doc[i] != '[' {
		return nil, false
	}
	elems = []json.RawMessage{}
	if !s.open('[') {
		return nil, false
	}
	i = s.space(i + 1)
	if i < len(doc) && doc[i] == ']' {
		return elems, s.space(i+1) == len(doc)
	}
	for {
		end := s.value(i)
		if end < 0 {
			return nil, false
		}
		elems = append(elems, doc[i:end:end])
		i = s.space(end)
		switch {
		case i < len(doc) && doc[i] == ',':
			i = s.space(i + 1)
		case i < len(doc) && doc[i] == ']':
			return elems, s.space(i+1) == len(doc)
		default:
			return nil, false
		}
	}
}

// scanner validates JSON values iteratively: stack holds the kinds of
// the containers open around the current position, at most limit.
type scanner struct {
	doc   []byte
	limit int
	stack []byte
}

// open enters a container of kind ('{' or '['), false when that is one
// level too many.
func (s *scanner) open(kind byte) bool {
	s.stack = append(s.stack, kind)
	return len(s.stack) <= s.limit
}

// value scans the value starting at doc[i] and returns the index just
// past it, or -1 when it is not valid JSON. Containers opened inside it
// are closed again when it returns.
func (s *scanner) value(i int) int {
	base := len(s.stack)
	for {
		// A value starts at i.
		if i < 0 || i >= len(s.doc) {
			return -1
		}
		switch c := s.doc[i]; c {
		case '{', '[':
			if !s.open(c) {
				return -1
			}
			i = s.space(i + 1)
			if i < len(s.doc) && s.doc[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				s.stack = s.stack[:len(s.stack)-1]
				i++
				break
			}
			if c == '{' {
				if i = s.name(i); i < 0 {
					return -1
				}
			}
			continue
		case '"':
			i = s.str(i)
		case 't':
			i = s.literal(i, "true")
		case 'f':
			i = s.literal(i, "false")
		case 'n':
			i = s.literal(i, "null")
		default:
			i = s.number(i)
		}
		// A value ended just before i: close containers, or go on to the
		// next member or element.
		for {
			if i < 0 {
				return -1
			}
			if len(s.stack) == base {
				return i
			}
			kind := s.stack[len(s.stack)-1]
			i = s.space(i)
			if i >= len(s.doc) {
				return -1
			}
			if s.doc[i] == kind+2 {
				s.stack = s.stack[:len(s.stack)-1]
				i++
				continue
			}
			if s.doc[i] != ',' {
				return -1
			}
			i = s.space(i + 1)
			if kind == '{' {
				i = s.name(i)
			}
			break
		}
		if i < 0 {
			return -1
		}
	}
}

// name scans a member's name and its colon, returning where its value
// starts.
func (s *scanner) name(i int) int {
	if i >= len(s.doc) || s.doc[i] != '"' {
		return -1
	}
	if i = s.space(s.str(i)); i < 0 || i >= len(s.doc) || s.doc[i] != ':' {
		return -1
	}
	return s.space(i + 1)
}

// plain marks the bytes a string's text may hold as they are: not a
// quote, a backslash or a control character. Bytes that are not UTF-8
// are taken, as encoding/json takes them.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str scans the string whose opening quote is doc[i].
func (s *scanner) str(i int) int {
	doc := s.doc
	for i++; i < len(doc); {
		if i+8 <= len(doc) && PlainWord(binary.LittleEndian.Uint64(doc[i:])) {
			i += 8
			continue
		}
		if plain[doc[i]] {
			i++
			continue
		}
		switch doc[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(doc) {
				return -1
			}
			switch doc[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(doc) || !isHex(doc[i+2]) || !isHex(doc[i+3]) || !isHex(doc[i+4]) || !isHex(doc[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
	return -1
}

// PlainWord reports whether none of the eight bytes of w is a quote, a
// backslash or a control character, the bytes a JSON string holds as they
// are (SWAR: a byte's high bit in the masks marks a zero byte of w^quotes
// or w^backslashes, or a byte of w below 0x20), so a scan passes plain
// text eight bytes at a time.
func PlainWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	return zero(w^(ones*'"'))|zero(w^(ones*'\\'))|(w-ones*0x20)&^w&highs == 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (s *scanner) literal(i int, word string) int {
	if len(s.doc)-i < len(word) || string(s.doc[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number(i int) int {
	doc := s.doc
	if i < len(doc) && doc[i] == '-' {
		i++
	}
	switch {
	case i < len(doc) && doc[i] == '0':
		i++
	case i < len(doc) && '1' <= doc[i] && doc[i] <= '9':
		i = s.digits(i)
	default:
		return -1
	}
	if i < len(doc) && doc[i] == '.' {
		if i+1 >= len(doc) || !isDigit(doc[i+1]) {
			return -1
		}
		i = s.digits(i + 1)
	}
	if i < len(doc) && (doc[i] == 'e' || doc[i] == 'E') {
		i++
		if i < len(doc) && (doc[i] == '+' || doc[i] == '-') {
			i++
		}
		if i >= len(doc) || !isDigit(doc[i]) {
			return -1
		}
		i = s.digits(i)
	}
	return i
}

func (s *scanner) digits(i int) int {
	for i < len(s.doc) && isDigit(s.doc[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// space skips whitespace from i; -1 (a failed scan) stays -1.
func (s *scanner) space(i int) int {
	if i < 0 {
		return -1
	}
	return skipSpace(s.doc, i)
}
