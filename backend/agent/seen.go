package agent

import (
	"fmt"
	"iter"
	"math"
	"sort"
	"strings"
)

// maxSeenSpans bounds the spans kept per file: reads of scattered lines
// leave one span each, and a model can issue thousands. Past the bound
// only the newest span is kept; the older are forgotten, never joined
// across their gaps: forgetting costs at most a read the stale-file error
// asks for, joining would let a patch touch lines the model never saw.
const maxSeenSpans = 64

// maxListedRanges bounds the line ranges a stale-file error names.
const maxListedRanges = 5

// span is the bytes [start, end) of a file's content.
type span struct{ start, end int }

// seenText is what a run has seen of one version of a file, so that
// apply_patch touches only text the run has read since the file last
// changed (AGENT.md §5): the hash of that content and the spans of it the
// model read or wrote, sorted, apart and none empty. A record whose hash
// is not the file's current one is void.
type seenText struct {
	hash  string
	spans []span
}

// with returns s plus sp, joining the spans that overlap or touch it.
// s is not changed, so a record handed out stays as it was.
func (s seenText) with(sp span) seenText {
	if sp.start >= sp.end {
		return s
	}
	out := make([]span, 0, len(s.spans)+1)
	i := 0
	for ; i < len(s.spans) && s.spans[i].end < sp.start; i++ {
		out = append(out, s.spans[i])
	}
	for ; i < len(s.spans) && s.spans[i].start <= sp.end; i++ {
		sp.start, sp.end = min(sp.start, s.spans[i].start), max(sp.end, s.spans[i].end)
	}
	out = append(append(out, sp), s.spans[i:]...)
	if len(out) > maxSeenSpans {
		out = []span{sp}
	}
	return seenText{hash: s.hash, spans: out}
}

// unseen returns the parts of sp outside every seen span, in order.
func (s seenText) unseen(sp span) []span {
	var out []span
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].end > sp.start })
	for ; i < len(s.spans) && s.spans[i].start < sp.end; i++ {
		if s.spans[i].start > sp.start {
			out = append(out, span{sp.start, s.spans[i].start})
		}
		sp.start = s.spans[i].end
	}
	if sp.start < sp.end {
		out = append(out, sp)
	}
	return out
}

// lineRange is the lines first to last of a file, 1-based, as
// workspace.read_file numbers them.
type lineRange struct{ first, last int }

// unread returns the lines of text where the occurrences at (offsets,
// ascending, each n bytes long) reach outside the seen text, ranges that
// overlap or touch joined; at most maxListedRanges of them, and whether
// there are more. Reading those lines makes every occurrence seen.
func (s seenText) unread(text string, at iter.Seq[int], n int) (ranges []lineRange, more bool) {
	lines := lineCounter{text: text, line: 1}
	for o := range at {
		for _, gap := range s.unseen(span{o, o + n}) {
			r := lineRange{lines.at(gap.start), lines.at(gap.end - 1)}
			if k := len(ranges) - 1; k >= 0 && r.first <= ranges[k].last+1 {
				ranges[k].last = max(ranges[k].last, r.last)
				continue
			}
			if len(ranges) == maxListedRanges {
				return ranges, true
			}
			ranges = append(ranges, r)
		}
	}
	return ranges, false
}

// replaced returns what the run has seen of the content with hash that
// replacing the oldLen bytes at each offset of at (ascending) with newLen
// bytes made: the same text, moved by the replacements before it, and the
// new bytes where the old were. Every replaced occurrence lies inside one
// span (applyPatch checked), so no span ends inside a replacement.
func (s seenText) replaced(hash string, at iter.Seq[int], oldLen, newLen int) seenText {
	bounds := make([]int, 0, 2*len(s.spans))
	for _, sp := range s.spans {
		bounds = append(bounds, sp.start, sp.end)
	}
	next, done := 0, 0
	// moveBefore moves the bounds below end by the done replacements,
	// all of which end at or before them.
	moveBefore := func(end int) {
		for ; next < len(bounds) && bounds[next] < end; next++ {
			bounds[next] += done * (newLen - oldLen)
		}
	}
	for o := range at {
		moveBefore(o + oldLen)
		done++
	}
	moveBefore(math.MaxInt)
	out := seenText{hash: hash}
	for i := 0; i < len(bounds); i += 2 {
		out = out.with(span{bounds[i], bounds[i+1]})
	}
	return out
}

// occurrences yields the offsets of sub in text, left to right and not
// overlapping, as strings.Replace finds them; only the first unless all.
func occurrences(text, sub string, all bool) iter.Seq[int] {
	return func(yield func(int) bool) {
		for from := 0; ; {
			i := strings.Index(text[from:], sub)
			if i < 0 || !yield(from+i) || !all {
				return
			}
			from += i + len(sub)
		}
	}
}

// lineCounter numbers the lines of text at offsets that only grow, so a
// file with many occurrences is scanned once.
type lineCounter struct {
	text string
	pos  int
	line int
}

// at returns the line of the byte at off.
func (c *lineCounter) at(off int) int {
	c.line += strings.Count(c.text[c.pos:off], "\n")
	c.pos = off
	return c.line
}

// rangesText renders ranges for a message: "line 4", "lines 38–41",
// "lines 3, 38–41 and 90".
func rangesText(ranges []lineRange, more bool) string {
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		parts[i] = fmt.Sprint(r.first)
		if r.last > r.first {
			parts[i] += fmt.Sprintf("–%d", r.last)
		}
	}
	if more {
		parts = append(parts, "more")
	}
	word := "lines "
	if len(ranges) == 1 && ranges[0].first == ranges[0].last && !more {
		word = "line "
	}
	if len(parts) == 1 {
		return word + parts[0]
	}
	return word + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
