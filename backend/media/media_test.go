package media

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPutIsContentAddressedAndIdempotent(t *testing.T) {
	t.Parallel()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Put([]byte("hello"), "png")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Put([]byte("hello"), ".PNG")
	if err != nil || a != b {
		t.Fatalf("same bytes stored as %q and %q (%v)", a, b, err)
	}
	p, err := s.Path(a)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "hello" {
		t.Errorf("content = %q", data)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".tmp-*")); len(leftovers) > 0 {
		t.Errorf("temp files left: %v", leftovers)
	}
	for _, bad := range []string{"../hearth.db", "x.png", a + "/..", ""} {
		if _, err := s.Path(bad); err == nil {
			t.Errorf("Path(%q) accepted", bad)
		}
	}
	if _, err := s.Put([]byte("x"), "p/ng"); err == nil {
		t.Error("bad extension accepted")
	}
}
