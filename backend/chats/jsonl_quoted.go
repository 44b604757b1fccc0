package chats

import (
	"bytes"
	"encoding/json"
	"iter"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
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
// not UTF-8 (kept by the router, as encoding/json keeps it) can fail here:
// encoding/json then unquotes it as it would have the whole string,
// replacing what is not UTF-8.
func unquoteLine(escaped string) []byte {
	quoted := make([]byte, 0, len(escaped)+2)
	quoted = append(append(append(quoted, '"'), escaped...), '"')
	b, err := jsontext.AppendUnquote(make([]byte, 0, len(escaped)), quoted)
	if err != nil {
		var s string
		_ = json.Unmarshal(quoted, &s)
		b = []byte(s)
	}
	return bytes.TrimSuffix(b, []byte("\r"))
}
