package search

import (
	"strings"
	"unicode/utf8"
)

// foldRune case-folds r exactly as the index's trigram tokenizer does
// (SQLite's sqlite3Fts5UnicodeFold without diacritic removal, after its
// UTF-8 reader turned U+FFFE and U+FFFF into U+FFFD), so that the
// 1–2 character lookups and the snippet's hit finder agree with FTS5 about
// which text matches. Go's unicode tables are newer than SQLite's and fold
// differently in a few hundred places; trigramFold is SQLite's table,
// generated and checked against the real tokenizer by TestFoldMatchesTrigram.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	if f, ok := trigramFold[r]; ok {
		return f
	}
	return r
}

// foldString folds every rune of s (one rune in, one rune out).
func foldString(s string) string { return strings.Map(foldRune, s) }

// foldedMatcher finds a case-folded pattern in text without folding or
// copying the text: Knuth–Morris–Pratt over runes, so a message of
// megabytes and a query of a thousand characters cost one pass.
type foldedMatcher struct {
	pat  []rune
	fail []int
	// lead and leadUpper are the bytes a match can start with, when every
	// rune that folds to the pattern's first is ASCII (0: none, no skip).
	lead, leadUpper byte
	// leadRune is the UTF-8 of the pattern's first rune when it is not
	// ASCII and no other rune folds to it (most of CJK, for one): a match
	// can start only where those bytes are ("": no such skip).
	leadRune string
}

// foldTargets are the runes some other rune folds to.
var foldTargets = func() map[rune]bool {
	out := make(map[rune]bool, len(trigramFold))
	for from, to := range trigramFold {
		if from != to {
			out[to] = true
		}
	}
	return out
}()

func newFoldedMatcher(foldedPattern string) *foldedMatcher {
	pat := []rune(foldedPattern)
	fail := make([]int, len(pat))
	for i, k := 1, 0; i < len(pat); i++ {
		for k > 0 && pat[i] != pat[k] {
			k = fail[k-1]
		}
		if pat[i] == pat[k] {
			k++
		}
		fail[i] = k
	}
	fm := &foldedMatcher{pat: pat, fail: fail}
	// ſ and the Kelvin sign are the non-ASCII runes folding to ASCII.
	if len(pat) > 0 && pat[0] < utf8.RuneSelf && pat[0] != 's' && pat[0] != 'k' {
		fm.lead = byte(pat[0])
		if 'a' <= fm.lead && fm.lead <= 'z' {
			fm.leadUpper = fm.lead - 'a' + 'A'
		}
	}
	// U+FFFD also stands for every invalid byte.
	if len(pat) > 0 && pat[0] >= utf8.RuneSelf && pat[0] != utf8.RuneError && !foldTargets[pat[0]] {
		fm.leadRune = string(pat[0])
	}
	return fm
}

// scan reports each occurrence (overlapping ones too, as trigram positions
// count them) to found with the byte offset where it starts; found returns
// false to stop.
func (fm *foldedMatcher) scan(s string, found func(start int) bool) {
	n := len(fm.pat)
	if n == 0 {
		return
	}
	// starts holds the byte offsets of the last n runes read.
	starts := make([]int, n)
	k, seen := 0, 0
	for off, r := range s {
		starts[seen%n] = off
		seen++
		r = foldRune(r)
		for k > 0 && r != fm.pat[k] {
			k = fm.fail[k-1]
		}
		if r == fm.pat[k] {
			k++
		}
		if k == n {
			if !found(starts[(seen-n)%n]) {
				return
			}
			k = fm.fail[k-1]
		}
	}
}

// index is the byte offset of the first occurrence in s, or -1.
func (fm *foldedMatcher) index(s string) int {
	at := -1
	fm.scan(s, func(start int) bool {
		at = start
		return false
	})
	return at
}

// count is the number of occurrences in s, as scan reports them.
func (fm *foldedMatcher) count(s string) int {
	found := 0
	fm.ends(s, func(int) { found++ })
	return found
}

// contexts is, for a pattern of 1–2 runes, the number of distinct folded
// strings of 3 - len(pattern) runes that follow its occurrences in s, s
// being padded with two chunkPad as the index pads it: the number of the
// index's trigrams of s that start with the pattern, which a 1–2
// character query scores by (shortContexts). It is 0 for a longer pattern.
func (fm *foldedMatcher) contexts(s string) int {
	want := 3 - len(fm.pat)
	if want < 1 || want > 2 {
		return 0
	}
	seen := map[[2]rune]struct{}{}
	fm.ends(s, func(end int) {
		var next [2]rune
		for i := range want {
			if end >= len(s) {
				next[i] = chunkPad
				continue
			}
			r, size := utf8.DecodeRuneInString(s[end:])
			next[i], end = foldRune(r), end+size
		}
		seen[next] = struct{}{}
	})
	return len(seen)
}

// ends reports to found the byte offset just past each occurrence in s,
// as scan finds them, without scan's ring of start offsets, skipping to
// the next byte a match can start with while nothing is matched. A search
// of one chat, and a very common 1–2 character query, read the text of
// every message that has it: in the search benchmark's 1,000 messages
// holding a 1% word (about a megabyte), scan took about 3.8 ms to count,
// this under 0.3.
func (fm *foldedMatcher) ends(s string, found func(end int)) {
	pat, fail := fm.pat, fm.fail
	n := len(pat)
	if n == 0 {
		return
	}
	k := 0
	for i := 0; i < len(s); {
		if k == 0 && fm.lead != 0 {
			// Runes before the next lead byte leave k at 0.
			j := strings.IndexByte(s[i:], fm.lead)
			if fm.leadUpper != 0 {
				end := len(s)
				if j >= 0 {
					end = i + j
				}
				if u := strings.IndexByte(s[i:end], fm.leadUpper); u >= 0 {
					j = u
				}
			}
			if j < 0 {
				return
			}
			i += j
		} else if k == 0 && fm.leadRune != "" {
			// UTF-8 resynchronizes: the rune's lead byte never continues
			// another, and an invalid byte is read alone.
			j := strings.Index(s[i:], fm.leadRune)
			if j < 0 {
				return
			}
			i += j
		}
		var r rune
		if b := s[i]; b < utf8.RuneSelf {
			if 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
			r = rune(b)
			i++
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(s[i:])
			r = foldRune(r)
			i += size
		}
		for k > 0 && r != pat[k] {
			k = fail[k-1]
		}
		if r == pat[k] {
			k++
		}
		if k == n {
			found(i)
			k = fail[k-1]
		}
	}
}
