// Package msgorder maps a chat's stored message positions to the dense
// indexes callers see.
//
// A message row stores a position (messages.idx), unique in its chat and
// in chat order. Positions used to be the indexes themselves, so deleting
// a message in the middle of a long chat renumbered every row after it:
// three index seeks a row, most of such a delete's time. Now a delete
// leaves its position vacant and the chat lists its vacancies (its gaps):
// a message's index is its position less the gaps below it. The list is
// short (a chat compacts its positions once it passes MaxGaps) and sorted,
// so both directions are a binary search.
package msgorder

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// MaxGaps is how many vacant positions a chat keeps before a delete
// renumbers its rows and starts over with none. Translating costs a binary
// search whatever the count; the list is read and written with the chat
// row (about two bytes a gap), and compacting costs what one delete in the
// middle used to, once per MaxGaps such deletes.
const MaxGaps = 1024

// Gaps lists the vacant positions of one chat, ascending. Every gap lies
// below the chat's last message (a vacancy at the end is no gap: the next
// message appended takes the next position after the last one).
type Gaps []int

// Index is the index of the message stored at pos.
func (g Gaps) Index(pos int) int { return pos - sort.SearchInts(g, pos) }

// Pos is where the message at index is stored (or, for an index one past
// the last message, where the next one appended goes).
func (g Gaps) Pos(index int) int {
	// g[i]-i (the index the i-th gap sits before) never decreases: count
	// the gaps at or below index's place, each moving it up by one.
	k := sort.Search(len(g), func(i int) bool { return g[i]-i > index })
	return index + k
}

// Top is the position the next appended message takes in a chat of count
// messages.
func (g Gaps) Top(count int) int { return count + len(g) }

// Below returns the gaps under pos: those of a copy of the chat's messages
// up to the one stored at pos.
func (g Gaps) Below(pos int) Gaps {
	n := sort.SearchInts(g, pos)
	if n == 0 {
		return nil
	}
	return append(Gaps(nil), g[:n]...)
}

// Vacate returns the gaps after the messages at positions (ascending,
// each occupied) are deleted from a chat of count messages. Vacancies that
// end up at the end of the chat are dropped.
func (g Gaps) Vacate(positions []int, count int) Gaps {
	out := make(Gaps, 0, len(g)+len(positions))
	i, j := 0, 0
	for i < len(g) || j < len(positions) {
		if j == len(positions) || (i < len(g) && g[i] < positions[j]) {
			out = append(out, g[i])
			i++
		} else {
			out = append(out, positions[j])
			j++
		}
	}
	left := count - len(positions)
	for len(out) > 0 && out[len(out)-1] == left+len(out)-1 {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Place finds where to store messages inserted into a chat of count
// messages so that they end up at indexes (ascending, final indexes) with
// no stored message moving: each goes in a gap between its neighbours, or
// past the end. It returns their positions and the gaps left, or false
// when some message has no gap where it must go.
func (g Gaps) Place(count int, indexes []int) (positions []int, left Gaps, ok bool) {
	positions = make([]int, len(indexes))
	taken := map[int]bool{}
	prev := -1
	for j, index := range indexes {
		// Of the chat's messages, before come first in the final order.
		before := index - j
		if before < 0 || before > count || (j > 0 && index <= indexes[j-1]) {
			return nil, nil, false
		}
		lo := prev
		if before > 0 {
			lo = max(lo, g.Pos(before-1))
		}
		p := lo + 1
		if before < count {
			k := sort.SearchInts(g, lo+1)
			if k == len(g) || g[k] >= g.Pos(before) {
				return nil, nil, false
			}
			p = g[k]
			taken[p] = true
		}
		positions[j], prev = p, p
	}
	for _, p := range g {
		if !taken[p] {
			left = append(left, p)
		}
	}
	return positions, left, true
}

// Encode renders the gaps for storage: each as an unsigned varint of its
// distance from the one before (the first, from -1). No gaps encode empty.
func (g Gaps) Encode() []byte {
	if len(g) == 0 {
		return []byte{}
	}
	b := make([]byte, 0, 2*len(g))
	prev := -1
	for _, p := range g {
		b = binary.AppendUvarint(b, uint64(p-prev))
		prev = p
	}
	return b
}

// errCorrupt is the cause of every refusal to decode.
var errCorrupt = errors.New("corrupt message gaps")

// decodeCap bounds the gaps Decode accepts: far above MaxGaps (a later
// version may keep more or fewer), far below what would cost memory.
const decodeCap = 64 * MaxGaps

// Decode reads what Encode wrote, refusing anything it could not have
// written: a truncated varint, a zero step (a repeat), a step past 2^40,
// or more gaps than any version keeps.
func Decode(b []byte) (Gaps, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var g Gaps
	prev := -1
	for len(b) > 0 {
		step, n := binary.Uvarint(b)
		if n <= 0 || step == 0 || step > 1<<40 {
			return nil, fmt.Errorf("%w: bad step at gap %d", errCorrupt, len(g))
		}
		if len(g) == decodeCap {
			return nil, fmt.Errorf("%w: more than %d gaps", errCorrupt, decodeCap)
		}
		prev += int(step)
		g = append(g, prev)
		b = b[n:]
	}
	return g, nil
}
