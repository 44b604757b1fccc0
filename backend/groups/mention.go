package groups

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// mentioned returns the members text mentions, in the order of their
// first mention: SillyTavern's natural-order mentions, found by Unicode
// words where SillyTavern's /\b\w+\b/ knows only ASCII ones (so "Алиса"
// and "小明" were never found).
//
// As in SillyTavern, a member is mentioned when one of the words of its
// name is a word of the text, compared in lower case ("Smith" mentions
// "John Smith"), and a word shared by several names belongs to the first
// of them in the group's order. Words are runs of letters, digits, marks
// and connectors ('_'). Scripts written without spaces between words
// (Chinese, Japanese, Thai, Lao, Khmer, Burmese), and Korean, whose names
// take particles without a space ("민수야"), have no word boundaries to
// go by: a name word in one of them is mentioned wherever it occurs in
// the text, inside a longer run too. So a one-character name in those
// scripts is mentioned by any text that holds the character. Words are
// not stemmed: the Russian "Алисе" does not mention "Алиса".
func mentioned(text string, members []Member) []string {
	if text == "" || len(members) == 0 {
		return nil
	}
	owner := map[string]int{}
	for i, m := range members {
		eachWord(strings.ToLower(m.Name), func(w string, _ int) {
			if _, taken := owner[w]; !taken {
				owner[w] = i
			}
		})
	}
	if len(owner) == 0 {
		return nil
	}
	first := make([]int, len(members))
	for i := range first {
		first[i] = -1
	}
	found := func(i, at int) {
		if first[i] < 0 || at < first[i] {
			first[i] = at
		}
	}
	// The text's words are folded one at a time into buf (a map lookup
	// of string(buf) does not allocate); lower-casing the whole text
	// first was a third of the time.
	var buf []byte
	eachWord(text, func(w string, at int) {
		buf = appendLower(buf[:0], w)
		if i, ok := owner[string(buf)]; ok {
			found(i, at)
		}
	})
	for w, i := range owner {
		// An unspaced word has no case (its letters have none, and
		// eachWord cut it from any that have), so the text is searched
		// as it is.
		if r, _ := utf8.DecodeRuneInString(w); unspaced(r) {
			if at := strings.Index(text, w); at >= 0 {
				found(i, at)
			}
		}
	}
	var hit []int
	for i, at := range first {
		if at >= 0 {
			hit = append(hit, i)
		}
	}
	slices.SortStableFunc(hit, func(a, b int) int { return cmp.Compare(first[a], first[b]) })
	out := make([]string, len(hit))
	for k, i := range hit {
		out[k] = members[i].Avatar
	}
	return out
}

// appendLower appends w in lower case to dst, as strings.ToLower would
// write it.
func appendLower(dst []byte, w string) []byte {
	for i := 0; i < len(w); {
		if c := w[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(w[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += size
	}
	return dst
}

// eachWord calls fn with every word of s and its byte offset. A word is a
// run of letters, digits, marks and connector punctuation, cut where a
// letter of an unspaced script meets a letter of another: "Alice你好" is
// "Alice" and "你好". A mark belongs to the word it follows.
func eachWord(s string, fn func(word string, at int)) {
	start, startUnspaced := -1, false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		word, mark, u := classify(r)
		switch {
		case !word:
			if start >= 0 {
				fn(s[start:i], start)
				start = -1
			}
		case mark && start >= 0:
		case start < 0:
			start, startUnspaced = i, u
		case u != startUnspaced:
			fn(s[start:i], start)
			start, startUnspaced = i, u
		}
		i += size
	}
	if start >= 0 {
		fn(s[start:], start)
	}
}

// classify says whether r belongs in a word (a letter, digit, mark or
// connector), whether it is a mark, and whether it is a letter of an
// unspaced script. ASCII is decided without Unicode's tables, which
// cost a table search per character.
func classify(r rune) (word, mark, unspacedLetter bool) {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_', false, false
	}
	if unicode.IsLetter(r) {
		return true, false, unspaced(r)
	}
	if unicode.IsMark(r) {
		return true, true, false
	}
	return unicode.IsDigit(r) || unicode.Is(unicode.Pc, r), false, unspaced(r)
}

// unspacedScripts are the scripts whose words are found anywhere in a
// text (see mentioned).
var unspacedScripts = []*unicode.RangeTable{
	unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
	unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar,
}

// unspaced reports whether r is a letter of an unspaced script, or the
// prolonged sound mark (ー, half-width ｰ) that Japanese words hold but
// Unicode counts as common to all scripts.
func unspaced(r rune) bool {
	if r < 0x0E00 {
		return false
	}
	return r == 'ー' || r == 'ｰ' || unicode.In(r, unspacedScripts...)
}
