package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// snippetRunes is about how many characters of text a snippet shows.
const snippetRunes = 100

// snippet cuts plain text around the first case-folded occurrence of the
// query out of body: the hit centred in about snippetRunes characters, cut
// on character boundaries, whitespace runs collapsed to one space, … where
// text was left out. Without an occurrence (a tokenizer corner the matcher
// does not share), it shows the start of the body. It reads only as far
// into body as the first hit, whatever the body's size.
func snippet(body string, m *foldedMatcher) string {
	at, n := m.index(body), len(m.pat)
	if at < 0 {
		at, n = 0, 0
	}
	start := at
	if n < snippetRunes {
		for i := 0; i < (snippetRunes-n)/2 && start > 0; i++ {
			_, size := utf8.DecodeLastRuneInString(body[:start])
			start -= size
		}
	}
	end, count := start, 0
	for ; count < snippetRunes && end < len(body); count++ {
		_, size := utf8.DecodeRuneInString(body[end:])
		end += size
	}
	for ; count < snippetRunes && start > 0; count++ {
		_, size := utf8.DecodeLastRuneInString(body[:start])
		start -= size
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	b.WriteString(collapseSpace(body[start:end]))
	if end < len(body) {
		b.WriteString("…")
	}
	return b.String()
}

// collapseSpace turns every whitespace run into one space and trims the ends.
func collapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}
