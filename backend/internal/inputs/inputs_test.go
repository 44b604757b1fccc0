package inputs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHasControl(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"Seraphina": false, "漢字 ok": false, "a\nb": true, "nul\x00": true, "del\x7f": true, "tab\t": true} {
		if got := HasControl(s); got != want {
			t.Errorf("HasControl(%q) = %v", s, got)
		}
	}
}

func TestShortCutsAtARuneBoundary(t *testing.T) {
	t.Parallel()
	if got := Short("short"); got != "short" {
		t.Fatalf("Short(short) = %q", got)
	}
	long := strings.Repeat("é", 100) // 2 bytes each: byte 80 starts a rune
	got := Short("x" + long)         // now byte 80 is inside one
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > quoteLimit+len("…") {
		t.Fatalf("Short = %q (%d bytes)", got, len(got))
	}
}
