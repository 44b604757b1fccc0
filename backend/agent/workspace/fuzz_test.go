package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// FuzzClean checks the policy's promise for any input: an accepted path
// joins to a place inside the workspace, under a visible root, with no NUL
// or backslash; and writing it through Dir never creates anything outside
// the workspace.
func FuzzClean(f *testing.F) {
	for _, seed := range []string{
		"output/main.md", "../x", "output/../../x", `output\..\x`, "C:/x", "c:", "//server/share",
		`\\server\share\x`, "output/\x00", "output/./a", "output/\u2025/x", "output/\uff0e\uff0e/x",
		"output/..\u2215x", "/output/x", "output/CON", "output/a:b", "output/a.", "scratch/../../../etc/passwd",
		"output//a", "./output", "persist/.hearth-tmp-x", "output/\xc0\xaf", "plan/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o",
	} {
		f.Add(seed)
	}
	base := f.TempDir()
	sibling := filepath.Join(base, "sibling")
	if err := os.MkdirAll(sibling, 0o700); err != nil {
		f.Fatal(err)
	}
	d, err := Open(filepath.Join(base, "ws"))
	if err != nil {
		f.Fatal(err)
	}
	visible := []string{"output", "plan", "persist"}

	f.Fuzz(func(t *testing.T, p string) {
		clean, err := Clean(p, visible)
		if err != nil {
			if apperr.CodeOf(err) != CodePathDenied {
				t.Fatalf("Clean(%q) err = %v", p, err)
			}
			if err := d.Write(p, []byte("x")); err == nil && !slices.Contains(Roots, firstSegment(mustCleanAll(p))) {
				t.Fatalf("Write(%q) accepted a path Clean refused for every root", p)
			}
		} else {
			if strings.ContainsAny(clean, "\x00\\") {
				t.Fatalf("Clean(%q) = %q holds NUL or backslash", p, clean)
			}
			if !slices.Contains(visible, firstSegment(clean)) {
				t.Fatalf("Clean(%q) = %q is not under a visible root", p, clean)
			}
			joined := filepath.Join(d.Root(), filepath.FromSlash(clean))
			rel, err := filepath.Rel(d.Root(), joined)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
				t.Fatalf("Clean(%q) = %q leaves the workspace: %q", p, clean, rel)
			}
			if again, err := Clean(clean, visible); err != nil || again != clean {
				t.Fatalf("Clean is not idempotent on %q: %q, %v", clean, again, err)
			}
			if err := d.Write(p, []byte("x")); err != nil && apperr.As(err) == nil {
				t.Fatalf("Write(%q) failed outside the policy: %v", p, err)
			}
		}
		if entries, _ := os.ReadDir(sibling); len(entries) != 0 {
			t.Fatalf("after %q a file appeared next to the workspace", p)
		}
		if entries, _ := os.ReadDir(base); len(entries) != 2 {
			t.Fatalf("after %q the workspace's parent holds %d entries", p, len(entries))
		}
	})
}

func firstSegment(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}

func mustCleanAll(p string) string {
	c, _ := Clean(p, Roots)
	return c
}
