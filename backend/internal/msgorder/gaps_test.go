package msgorder

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// model is a chat as a plain list of occupied positions, in order: the
// message at index i is stored at model[i].
type model []int

func (m model) gaps() Gaps {
	var g Gaps
	next := 0
	for _, p := range m {
		for ; next < p; next++ {
			g = append(g, next)
		}
		next = p + 1
	}
	return g
}

// TestGapsFollowAModelChat deletes and appends at random, and checks each
// translation against a chat kept as a list of positions.
func TestGapsFollowAModelChat(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for round := 0; round < 200; round++ {
		var m model
		var g Gaps
		for i := 0; i < 40; i++ {
			m = append(m, i)
		}
		for step := 0; step < 60; step++ {
			if rng.IntN(3) == 0 || len(m) == 0 {
				p := g.Top(len(m))
				want := 0
				if len(m) > 0 {
					want = m[len(m)-1] + 1
				}
				if p != want {
					t.Fatalf("round %d: Top = %d, want %d (gaps %v)", round, p, want, g)
				}
				m = append(m, p)
			} else {
				n := 1 + rng.IntN(min(4, len(m)))
				picked := rng.Perm(len(m))[:n]
				slices.Sort(picked)
				positions := make([]int, n)
				for i, idx := range picked {
					positions[i] = g.Pos(idx)
				}
				g = g.Vacate(positions, len(m))
				for i := len(picked) - 1; i >= 0; i-- {
					m = slices.Delete(m, picked[i], picked[i]+1)
				}
			}
			if want := m.gaps(); !slices.Equal(g, want) {
				t.Fatalf("round %d step %d: gaps %v, want %v (positions %v)", round, step, g, want, m)
			}
			for idx, p := range m {
				if got := g.Pos(idx); got != p {
					t.Fatalf("round %d: Pos(%d) = %d, want %d (gaps %v)", round, idx, got, p, g)
				}
				if got := g.Index(p); got != idx {
					t.Fatalf("round %d: Index(%d) = %d, want %d (gaps %v)", round, p, got, idx, g)
				}
			}
			back, err := Decode(g.Encode())
			if err != nil || !slices.Equal(back, g) {
				t.Fatalf("round %d: decode(encode(%v)) = %v, %v", round, g, back, err)
			}
		}
	}
}

func TestVacateDropsTheEnd(t *testing.T) {
	t.Parallel()
	// Positions 0..4 with 2 vacant: four messages at 0, 1, 3, 4.
	g := Gaps{2}
	if got := g.Vacate([]int{4}, 4); !slices.Equal(got, Gaps{2}) {
		t.Fatalf("deleting the last message left gaps %v, want [2] (3 is now the end)", got)
	}
	if got := (Gaps{2}).Vacate([]int{3}, 4); !slices.Equal(got, Gaps{2, 3}) {
		t.Fatalf("got %v, want [2 3]", got)
	}
	if got := (Gaps{2}).Vacate([]int{3, 4}, 4); got != nil {
		t.Fatalf("deleting the last two left gaps %v, want none (1 is now the end)", got)
	}
	if got := (Gaps{1, 2}).Vacate([]int{0, 3}, 2); got != nil {
		t.Fatalf("an emptied chat kept gaps %v", got)
	}
}

// TestPlacePutsMessagesBackInTheirGaps deletes messages at random, then
// puts them back at their old indexes, as an undo does: they always fit
// (into the positions they left, or other gaps beside them), in order.
func TestPlacePutsMessagesBackInTheirGaps(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	for round := 0; round < 300; round++ {
		var m model
		for i := 0; i < 30; i++ {
			m = append(m, i)
		}
		var g Gaps
		// Earlier deletes leave other gaps about.
		for k := 0; k < rng.IntN(4); k++ {
			idx := rng.IntN(len(m) - 1)
			g = g.Vacate([]int{m[idx]}, len(m))
			m = slices.Delete(m, idx, idx+1)
		}
		picked := rng.Perm(len(m))[:1+rng.IntN(5)]
		slices.Sort(picked)
		want := make([]int, len(picked))
		for i, idx := range picked {
			want[i] = m[idx]
		}
		g = g.Vacate(want, len(m))
		for i := len(picked) - 1; i >= 0; i-- {
			m = slices.Delete(m, picked[i], picked[i]+1)
		}
		got, left, ok := g.Place(len(m), picked)
		if !ok {
			t.Fatalf("round %d: Place(%d, %v) over gaps %v found no room; %v were free", round, len(m), picked, g, want)
		}
		for i, idx := range picked {
			m = slices.Insert(m, idx, got[i])
		}
		for i := 1; i < len(m); i++ {
			if m[i] <= m[i-1] {
				t.Fatalf("round %d: placed at %v, positions out of order: %v", round, got, m)
			}
		}
		if !slices.Equal(left, m.gaps()) {
			t.Fatalf("round %d: left %v, want %v", round, left, m.gaps())
		}
	}
}

func TestPlaceRefusesWhereNoGapIs(t *testing.T) {
	t.Parallel()
	// Five messages at 0, 1, 3, 4, 5 (gap 2).
	g := Gaps{2}
	for name, c := range map[string]struct {
		indexes []int
		ok      bool
		want    []int
	}{
		"into the gap":    {[]int{2}, true, []int{2}},
		"at the end":      {[]int{5}, true, []int{6}},
		"two at the end":  {[]int{5, 6}, true, []int{6, 7}},
		"gap and end":     {[]int{2, 6}, true, []int{2, 6}},
		"no gap before 0": {[]int{0}, false, nil},
		"no gap at 4":     {[]int{4}, false, nil},
		"two in one gap":  {[]int{2, 3}, false, nil},
		"past the end":    {[]int{7}, false, nil},
		"out of order":    {[]int{5, 2}, false, nil},
	} {
		got, _, ok := g.Place(5, c.indexes)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("%s: Place = %v, %v; want %v, %v", name, got, ok, c.want, c.ok)
		}
	}
}

func TestBelowCopiesThePrefix(t *testing.T) {
	t.Parallel()
	g := Gaps{2, 5, 9}
	b := g.Below(6)
	if !slices.Equal(b, Gaps{2, 5}) {
		t.Fatalf("Below(6) = %v", b)
	}
	b[0] = 99
	if g[0] != 2 {
		t.Fatal("Below shares its array with the chat's gaps")
	}
	if g.Below(2) != nil {
		t.Fatal("Below(2) should be empty")
	}
}

func TestDecodeRefusesWhatEncodeCannotWrite(t *testing.T) {
	t.Parallel()
	for name, b := range map[string][]byte{
		"truncated varint": {0x80},
		"zero step":        {0x01, 0x00},
		"huge step":        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
	} {
		if _, err := Decode(b); !errors.Is(err, errCorrupt) {
			t.Errorf("%s: err = %v, want corrupt", name, err)
		}
	}
	long := make([]byte, decodeCap+1)
	for i := range long {
		long[i] = 1
	}
	if _, err := Decode(long); !errors.Is(err, errCorrupt) {
		t.Errorf("over the cap: err = %v", err)
	}
	if g, err := Decode(nil); err != nil || g != nil {
		t.Errorf("empty: %v, %v", g, err)
	}
}
