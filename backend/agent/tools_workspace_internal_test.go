package agent

import (
	"math"
	"testing"
)

// TestPatchedSize: the size a patch would give, exact while it fits in an
// int64 and math.MaxInt64 past that, so a new_string long enough to
// overflow the product can never wrap to a small size that passes the
// limit.
func TestPatchedSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		size, n, oldLen, newLen int
		want                    int64
	}{
		{size: 10, n: 2, oldLen: 3, newLen: 1, want: 6},
		{size: 10, n: 2, oldLen: 3, newLen: 3, want: 10},
		{size: 10, n: 2, oldLen: 3, newLen: 5, want: 14},
		{size: 4 << 20, n: 4 << 20, oldLen: 1, newLen: 4 << 20, want: 4<<20 + (4<<20)*(4<<20-1)},
		{size: 1, n: 1, oldLen: 1, newLen: math.MaxInt, want: math.MaxInt},
		{size: 2, n: 2, oldLen: 1, newLen: math.MaxInt / 2, want: 2 + 2*(math.MaxInt/2-1)},
		{size: 3, n: 3, oldLen: 1, newLen: math.MaxInt / 2, want: math.MaxInt64},
		{size: 4 << 20, n: 4 << 20, oldLen: 1, newLen: math.MaxInt / (2 << 20), want: math.MaxInt64},
	} {
		if got := patchedSize(c.size, c.n, c.oldLen, c.newLen); got != c.want {
			t.Errorf("patchedSize(%d, %d, %d, %d) = %d; want %d", c.size, c.n, c.oldLen, c.newLen, got, c.want)
		}
	}
}
