package chats

import (
	"bytes"
	"encoding/json"
	"iter"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A chat file sent through the router arrives as one JSON string: tens of
// megabytes of escaped text. Unquoting it whole is a long serial step
// before any line can be decoded; instead its lines are found in the
// escaped form and each is unquoted by the decoding worker that decodes
// it, in parallel with the rows being written.

// quotedLines yields the lines of the JSON string literal quoted (valid
// JSON, quotes included) still escaped, numbered from 1, blank ones too
// (only unquoting tells an escaped blank line, such as `\r`, apart). A
// line ends at an escaped line feed: `\n`, or `\u000a` in either case.
func quotedLines(quoted string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		body := quoted[1 : len(quoted)-1]
		n, start := 1, 0
		for i := 0; ; {
			k := strings.IndexByte(body[i:], '\\')
			if k < 0 {
				yield(n, body[start:])
				return
			}
			k += i
			if width := escapedLineFeed(body[k:]); width > 0 {
				if !yield(n, body[start:k]) {
					return
				}
				n, start, i = n+1, k+width, k+width
				continue
			}
			// The escaped character never starts another escape.
			i = min(k+2, len(body))
		}
	}
}

// escapedLineFeed is the length of the escape at the start of s when it is
// a line feed, else 0.
func escapedLineFeed(s string) int {
	switch {
	case strings.HasPrefix(s, `\n`):
		return 2
	case len(s) >= 6 && s[1] == 'u' && strings.EqualFold(s[2:6], "000a"):
		return 6
	}
	return 0
}

// unquoteLine turns one escaped line back into text (without a trailing
// CR). The literal it came from was validated whole, so only text that is
// not UTF-8 (kept by the router, as encoding/json keeps it) or a lone
// surrogate escape can fail unquoteValid: encoding/json then unquotes it
// as it would have the whole string, replacing what is not UTF-8.
func unquoteLine(escaped string) []byte {
	b, ok := unquoteValid(escaped)
	if !ok {
		quoted := make([]byte, 0, len(escaped)+2)
		quoted = append(append(append(quoted, '"'), escaped...), '"')
		var s string
		_ = json.Unmarshal(quoted, &s)
		b = []byte(s)
	}
	return bytes.TrimSuffix(b, []byte("\r"))
}

// unquoteValid unquotes the inside of a JSON string literal already known
// to be valid JSON, copying the text between escapes whole: jsontext's
// unquote checks every byte again, and unquoting is the largest part of
// what an import's workers do. ok is false — the caller then unquotes
// with encoding/json — for what needs its rules: an escaped UTF-16
// surrogate, or a result that is not UTF-8.
func unquoteValid(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			out = append(out, s...)
			break
		}
		out = append(out, s[:i]...)
		if i+1 == len(s) {
			return nil, false
		}
		c, width := s[i+1], 2
		switch c {
		case '"', '\\', '/':
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok || utf16.IsSurrogate(r) {
				return nil, false
			}
			out, s = utf8.AppendRune(out, r), s[i+6:]
			continue
		default:
			return nil, false
		}
		out, s = append(out, c), s[i+width:]
	}
	return out, utf8.Valid(out)
}

// hex4 reads the four hex digits that start s.
func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
