package agent

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSeenTextBounded: a model reading every other line thousands of
// times keeps at most maxSeenSpans spans of a file; what is forgotten is
// unseen again, and a gap never read is never taken for seen.
func TestSeenTextBounded(t *testing.T) {
	t.Parallel()
	var s seenText
	for i := range 5000 {
		s = s.with(span{i * 10, i*10 + 5})
		if len(s.spans) > maxSeenSpans {
			t.Fatalf("%d spans after %d reads", len(s.spans), i+1)
		}
		if got := s.unseen(span{i * 10, i*10 + 5}); got != nil {
			t.Fatalf("the read just made is unseen: %v", got)
		}
	}
	for _, sp := range s.spans {
		if sp.end-sp.start != 5 || sp.start%10 != 0 {
			t.Fatalf("span %v takes in a gap nobody read", sp)
		}
	}
	s = s.with(span{0, 50_000})
	if len(s.spans) != 1 || s.unseen(span{0, 50_000}) != nil {
		t.Fatalf("a read of everything left %v", s.spans)
	}
}

// TestSeenTextAgainstBytes checks with, unseen, unread and replaced
// against a byte-by-byte model: random texts of short lines, random reads,
// random patches.
func TestSeenTextAgainstBytes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		text := randomText(rng, rng.IntN(80))
		var s seenText
		mask := make([]bool, len(text))
		for range rng.IntN(6) {
			a, b := rng.IntN(len(text)+1), rng.IntN(len(text)+1)
			sp := span{min(a, b), max(a, b)}
			s = s.with(sp)
			for i := sp.start; i < sp.end; i++ {
				mask[i] = true
			}
		}
		if got, want := s.spans, spansOf(mask); !slices.Equal(got, want) {
			t.Fatalf("spans %v; want %v", got, want)
		}
		old := randomText(rng, 1+rng.IntN(3))
		if !strings.Contains(text, old) {
			continue
		}
		at := occurrences(text, old, true)
		ranges, more := s.unread(text, at, len(old))
		wantLines := unreadLines(text, mask, at, len(old))
		if !more && !slices.Equal(linesOf(ranges), wantLines) {
			t.Fatalf("unread in %q of %q with %v: %v; want lines %v", text, old, s.spans, ranges, wantLines)
		}
		if len(ranges) > 0 {
			continue
		}
		repl := randomText(rng, rng.IntN(4))
		next := strings.ReplaceAll(text, old, repl)
		got := s.replaced("h", at, len(old), len(repl))
		if want := spansOf(replacedMask(text, mask, old, repl)); !slices.Equal(got.spans, want) || got.hash != "h" {
			t.Fatalf("%q → %q: spans %v; want %v", text, next, got.spans, want)
		}
	}
}

// TestRangesText renders the lines a stale-file error names.
func TestRangesText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ranges []lineRange
		more   bool
		want   string
	}{
		{[]lineRange{{40, 40}}, false, "line 40"},
		{[]lineRange{{38, 41}}, false, "lines 38–41"},
		{[]lineRange{{3, 3}, {38, 41}, {90, 90}}, false, "lines 3, 38–41 and 90"},
		{[]lineRange{{3, 3}}, true, "lines 3 and more"},
	} {
		if got := rangesText(c.ranges, c.more); got != c.want {
			t.Errorf("rangesText(%v, %v) = %q; want %q", c.ranges, c.more, got, c.want)
		}
	}
}

func randomText(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "ab\n"[rng.IntN(3)]
	}
	return string(b)
}

// spansOf is the runs of true in mask.
func spansOf(mask []bool) []span {
	var out []span
	for i := 0; i < len(mask); i++ {
		if !mask[i] {
			continue
		}
		j := i
		for j < len(mask) && mask[j] {
			j++
		}
		out = append(out, span{i, j})
		i = j
	}
	return out
}

// unreadLines is the lines, 1-based and ascending, of the bytes of the
// occurrences at that mask leaves unseen.
func unreadLines(text string, mask []bool, at func(func(int) bool), n int) []int {
	var out []int
	for o := range at {
		for i := o; i < o+n; i++ {
			if line := 1 + strings.Count(text[:i], "\n"); !mask[i] && !slices.Contains(out, line) {
				out = append(out, line)
			}
		}
	}
	slices.Sort(out)
	return out
}

// linesOf lists the lines of ranges.
func linesOf(ranges []lineRange) []int {
	var out []int
	for _, r := range ranges {
		for l := r.first; l <= r.last; l++ {
			out = append(out, l)
		}
	}
	return out
}

// replacedMask is mask carried through replacing every old in text with
// repl: kept bytes keep their mark, new bytes are seen.
func replacedMask(text string, mask []bool, old, repl string) []bool {
	var out []bool
	for i := 0; i < len(text); {
		if strings.HasPrefix(text[i:], old) {
			for range len(repl) {
				out = append(out, true)
			}
			i += len(old)
			continue
		}
		out = append(out, mask[i])
		i++
	}
	return out
}
