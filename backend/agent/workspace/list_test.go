package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
)

func TestList(t *testing.T) {
	t.Parallel()
	d, _ := newWorkspace(t)
	for _, p := range []string{
		"output/main.md", "output/a/one.md", "output/a.md", "output/a/b/two.md",
		"output/a/b/c/three.md", "output/a/b/c/d/four.md", "scratch/s.txt", "persist/state.json",
	} {
		mustWrite(t, d, p, "content of "+p)
	}
	// Debris a listing must not show: an in-flight temp file and a symlink.
	if err := os.WriteFile(filepath.Join(d.Root(), "output", TmpPrefix+"123"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(d.Root(), "output", "main.md"), filepath.Join(d.Root(), "output", "link.md")); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		rel   string
		depth int
		want  []string
		code  string
	}{
		{rel: "output", depth: 1, want: []string{"output/a.md", "output/main.md"}},
		{rel: "output", depth: 0, want: []string{"output/a.md", "output/main.md"}},
		{rel: "output", depth: 2, want: []string{"output/a.md", "output/a/one.md", "output/main.md"}},
		{rel: "output", depth: 4, want: []string{"output/a.md", "output/a/b/c/three.md", "output/a/b/two.md", "output/a/one.md", "output/main.md"}},
		{rel: "output", depth: 99, want: []string{"output/a.md", "output/a/b/c/three.md", "output/a/b/two.md", "output/a/one.md", "output/main.md"}},
		{rel: "output/a/b", depth: 1, want: []string{"output/a/b/two.md"}},
		{rel: "", depth: 1, want: []string{"output/a.md", "output/main.md", "persist/state.json", "scratch/s.txt"}},
		{rel: ".", depth: 1, want: []string{"output/a.md", "output/main.md", "persist/state.json", "scratch/s.txt"}},
		{rel: "output/main.md", depth: 1, want: []string{"output/main.md"}},
		{rel: "plan", depth: 4, want: nil},
		{rel: "output/none", depth: 1, code: CodeFileNotFound},
		{rel: "../", depth: 1, code: CodePathDenied},
	}
	for _, tc := range tests {
		files, truncated, err := d.List(tc.rel, tc.depth)
		if apperr.CodeOf(err) != tc.code {
			t.Errorf("List(%q, %d) err = %v, want %q", tc.rel, tc.depth, err, tc.code)
			continue
		}
		var got []string
		for _, f := range files {
			got = append(got, f.Path)
		}
		if !slices.Equal(got, tc.want) || truncated {
			t.Errorf("List(%q, %d) = %v (truncated %v), want %v", tc.rel, tc.depth, got, truncated, tc.want)
		}
	}
}

func TestListFileInfo(t *testing.T) {
	t.Parallel()
	d, _ := newWorkspace(t)
	before := time.Now().Add(-time.Second).UnixMilli()
	mustWrite(t, d, "plan/p.md", "plan text")
	files, _, err := d.List("plan", 1)
	if err != nil || len(files) != 1 {
		t.Fatalf("List = %v, %v", files, err)
	}
	sum := sha256.Sum256([]byte("plan text"))
	f := files[0]
	if f.Path != "plan/p.md" || f.Bytes != 9 || f.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("info = %+v", f)
	}
	if f.ModifiedMs < before || f.ModifiedMs > time.Now().Add(time.Second).UnixMilli() {
		t.Errorf("modifiedMs = %d, not around now", f.ModifiedMs)
	}
}

func TestListTruncates(t *testing.T) {
	t.Parallel()
	d, _ := newWorkspace(t)
	dir := filepath.Join(d.Root(), "scratch", "many")
	mkdir(t, dir)
	for i := range MaxListFiles + 5 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), []byte{byte(i)}, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	files, truncated, err := d.List("scratch", 2)
	if err != nil || !truncated || len(files) != MaxListFiles {
		t.Fatalf("List = %d files, truncated %v, %v", len(files), truncated, err)
	}
	if !slices.IsSortedFunc(files, func(a, b FileInfo) int { return strings.Compare(a.Path, b.Path) }) {
		t.Error("not sorted")
	}
	files, truncated, err = d.List("scratch", 1)
	if err != nil || truncated || len(files) != 0 {
		t.Errorf("depth 1 = %d files, truncated %v, %v", len(files), truncated, err)
	}
}

func TestCheckListDepth(t *testing.T) {
	t.Parallel()
	for depth := 1; depth <= MaxListDepth; depth++ {
		if err := CheckListDepth(depth); err != nil {
			t.Errorf("CheckListDepth(%d) = %v", depth, err)
		}
	}
	for _, depth := range []int{-3, 0, MaxListDepth + 1, 99} {
		if err := CheckListDepth(depth); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("CheckListDepth(%d) = %v, want %s", depth, err, apperr.CodeInvalidArgument)
		}
	}
}
