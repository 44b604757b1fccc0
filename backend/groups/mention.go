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
	folded := strings.ToLower(text)
	first := make([]int, len(members))
	for i := range first {
		first[i] = -1
	}
	found := func(i, at int) {
		if first[i] < 0 || at < first[i] {
			first[i] = at
		}
	}
	eachWord(folded, func(w string, at int) {
		if i, ok := owner[w]; ok {
			found(i, at)
		}
	})
	for w, i := range owner {
		if r, _ := utf8.DecodeRuneInString(w); unspaced(r) {
			if at := strings.Index(folded, w); at >= 0 {
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

// eachWord calls fn with every word of s and its byte offset. A word is a
// run of letters, digits, marks and connector punctuation, cut where a
// letter of an unspaced script meets a letter of another: "Alice你好" is
// "Alice" and "你好". A mark belongs to the word it follows.
func eachWord(s string, fn func(word string, at int)) {
	start, startUnspaced := -1, false
	for i, r := range s {
		if !wordRune(r) {
			if start >= 0 {
				fn(s[start:i], start)
				start = -1
			}
			continue
		}
		if unicode.IsMark(r) && start >= 0 {
			continue
		}
		u := unspaced(r)
		switch {
		case start < 0:
			start, startUnspaced = i, u
		case u != startUnspaced:
			fn(s[start:i], start)
			start, startUnspaced = i, u
		}
	}
	if start >= 0 {
		fn(s[start:], start)
	}
}

func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Pc, r)
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
