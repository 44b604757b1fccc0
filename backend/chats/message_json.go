package chats

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"hearth/backend/jsonx"
)

// appendMessageJSON writes one SillyTavern message object. It is the only
// place that lays out the object, for reads straight from rows and for
// MarshalJSON alike. infos, extra and fields are JSON objects as stored
// (fields' members are spliced in, never re-encoded), so a whole-chat read
// costs one pass over the bytes.
func appendMessageJSON(b []byte, id, name string, isUser, isSystem bool, swipeID int, swipes []string, infos [][]byte, extra, fields []byte) []byte {
	b = append(b, '{')
	if id != "" {
		b = append(b, `"id":`...)
		b = appendString(b, id)
		b = append(b, ',')
	}
	b = append(b, `"name":`...)
	b = appendString(b, name)
	b = append(b, `,"is_user":`...)
	b = strconv.AppendBool(b, isUser)
	b = append(b, `,"is_system":`...)
	b = strconv.AppendBool(b, isSystem)
	b = append(b, `,"mes":`...)
	b = appendString(b, swipes[swipeID])
	b = append(b, `,"swipe_id":`...)
	b = strconv.AppendInt(b, int64(swipeID), 10)
	b = append(b, `,"swipes":[`...)
	for i, s := range swipes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	b = append(b, `],"swipe_info":[`...)
	for i, info := range infos {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, info...)
	}
	b = append(b, `],"extra":`...)
	b = append(b, extra...)
	if inner := objectInner(fields); len(inner) > 0 {
		b = append(b, ',')
		b = append(b, inner...)
	}
	return append(b, '}')
}

// messageJSONLen is len(appendMessageJSON(nil, ...)) with the same
// arguments, counted without writing the object: an import measures every
// message it stores (chats.bytes), and laying each out only to measure it
// escaped its text once more (the active swipe twice).
func messageJSONLen(id, name string, isUser, isSystem bool, swipeID int, swipes []string, infos [][]byte, extra, fields []byte) int {
	n := len(`{"name":,"is_user":,"is_system":,"mes":,"swipe_id":,"swipes":[],"swipe_info":[],"extra":}`)
	if id != "" {
		n += len(`"id":,`) + stringJSONLen(id)
	}
	n += stringJSONLen(name) + boolJSONLen(isUser) + boolJSONLen(isSystem) + len(strconv.Itoa(swipeID))
	for i, s := range swipes {
		l := stringJSONLen(s)
		if i == swipeID {
			l *= 2 // mes too
		}
		n += l
	}
	for _, info := range infos {
		n += len(info)
	}
	n += max(0, len(swipes)-1) + max(0, len(infos)-1) // the commas between them
	n += len(extra)
	if inner := objectInner(fields); len(inner) > 0 {
		n += 1 + len(inner)
	}
	return n
}

func boolJSONLen(v bool) int {
	if v {
		return len("true")
	}
	return len("false")
}

// stringJSONLen is len(appendString(nil, s)).
func stringJSONLen(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plainASCII(s[i:i+8]) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n++
			case c < 0x20:
				n += len(`\u00XX`) - 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += len(`\ufffd`) - 1
		case r == '\u2028' || r == '\u2029':
			n += len(`\u2028`) - size
		}
		i += size
	}
	return n
}

// plainASCII reports whether the eight bytes of s are ASCII that a JSON
// string holds as it is: jsonx.PlainWord, and no byte at or above 0x80
// (which may need a \ufffd or \u2028). Prose is mostly such runs;
// stringJSONLen passes them whole.
func plainASCII(s string) bool {
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	return w&0x8080808080808080 == 0 && jsonx.PlainWord(w)
}

// objectInner returns the members of a JSON object text without its braces.
func objectInner(obj []byte) []byte {
	obj = bytes.TrimSpace(obj)
	if len(obj) < 2 {
		return nil
	}
	return bytes.TrimSpace(obj[1 : len(obj)-1])
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Invalid UTF-8 becomes U+FFFD and
// U+2028/U+2029 are escaped so the output is also valid JavaScript.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
