package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// fillFiles puts n empty files into dir (workspace-relative) from outside.
func fillFiles(t *testing.T, d *Dir, dir string, n int) {
	t.Helper()
	abs := filepath.Join(d.Root(), filepath.FromSlash(dir))
	mkdir(t, abs)
	for i := range n {
		if err := os.WriteFile(filepath.Join(abs, fmt.Sprintf("f%05d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// fillBytes puts n files of MaxFileBytes into dir from outside, sparse so
// they cost no disk.
func fillBytes(t *testing.T, d *Dir, dir string, n int) {
	t.Helper()
	abs := filepath.Join(d.Root(), filepath.FromSlash(dir))
	mkdir(t, abs)
	for i := range n {
		p := filepath.Join(abs, fmt.Sprintf("big%02d", i))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, MaxFileBytes); err != nil {
			t.Fatal(err)
		}
	}
}

// tree is every entry under the workspace root as the OS sees it: folders
// as "/", files as the hash of their content.
func tree(t *testing.T, d *Dir) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(d.Root(), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(d.Root(), p)
		if e.IsDir() {
			out[rel] = "/"
			return nil
		}
		data, err := os.ReadFile(p)
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWriteQuota: a write or append that would take the workspace past
// one of its caps fails with CodeQuotaExceeded naming the cap, and the
// workspace is left exactly as it was; one that adds nothing the cap
// counts still goes through, even in a workspace already past a cap.
func TestWriteQuota(t *testing.T) {
	t.Parallel()
	type write struct {
		path, content string
		append        bool
	}
	tests := []struct {
		name    string
		fill    func(t *testing.T, d *Dir)
		refused []write
		limit   string
		wouldBe int64 // -1: the workspace is past the cap already
		allowed []write
	}{
		{
			name: "files",
			fill: func(t *testing.T, d *Dir) {
				fillFiles(t, d, "scratch/many", MaxWorkspaceFiles-1)
				mustWrite(t, d, "output/main.md", "draft")
			},
			refused: []write{{path: "output/new.md", content: "x"}, {path: "plan/new.md", content: "x", append: true}},
			limit:   LimitFiles, wouldBe: MaxWorkspaceFiles + 1,
			allowed: []write{{path: "output/main.md", content: "a longer draft"}, {path: "scratch/many/f00007", content: "+", append: true}},
		},
		{
			name: "folders",
			fill: func(t *testing.T, d *Dir) {
				for i := range MaxWorkspaceFolders {
					mkdir(t, filepath.Join(d.Root(), "scratch", fmt.Sprintf("d%03d", i)))
				}
			},
			refused: []write{{path: "output/a/main.md", content: "x"}, {path: "scratch/d000/deeper/x.md", content: "x", append: true}},
			limit:   LimitFolders, wouldBe: MaxWorkspaceFolders + 1,
			allowed: []write{{path: "output/main.md", content: "x"}, {path: "scratch/d005/x.md", content: "x"}},
		},
		{
			name:    "bytes",
			fill:    func(t *testing.T, d *Dir) { fillBytes(t, d, "scratch", MaxWorkspaceBytes/MaxFileBytes) },
			refused: []write{{path: "output/main.md", content: "x"}, {path: "plan/x.md", content: "x", append: true}},
			limit:   LimitBytes, wouldBe: MaxWorkspaceBytes + 1,
			allowed: []write{{path: "scratch/big03", content: "shorter now"}, {path: "scratch/big03", content: strings.Repeat("y", 100), append: true}},
		},
		{
			name:    "past the cap already",
			fill:    func(t *testing.T, d *Dir) { fillFiles(t, d, "persist", MaxWorkspaceFiles+1) },
			refused: []write{{path: "output/main.md", content: "x"}, {path: "persist/f00001", content: "grows", append: true}},
			limit:   LimitFiles, wouldBe: -1,
			allowed: []write{{path: "persist/f00002", content: ""}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, _ := newWorkspace(t)
			tc.fill(t, d)
			before := tree(t, d)
			for _, w := range tc.refused {
				var err error
				if w.append {
					err = d.Append(w.path, []byte(w.content))
				} else {
					err = d.Write(w.path, []byte(w.content))
				}
				e := apperr.As(err)
				if e == nil || e.Code != CodeQuotaExceeded {
					t.Fatalf("%+v: err = %v, want %s", w, err, CodeQuotaExceeded)
				}
				if e.Details["limit"] != tc.limit || e.Details["path"] != w.path || e.Details["max"] != limitMax[tc.limit] {
					t.Fatalf("%+v: details %v", w, e.Details)
				}
				if got, ok := e.Details["wouldBe"]; tc.wouldBe >= 0 && got != tc.wouldBe || tc.wouldBe < 0 && ok {
					t.Fatalf("%+v: wouldBe %v, want %d", w, got, tc.wouldBe)
				}
				if after := tree(t, d); !maps.Equal(after, before) {
					t.Fatalf("%+v: a refused write changed the workspace", w)
				}
			}
			for _, w := range tc.allowed {
				var err error
				if w.append {
					err = d.Append(w.path, []byte(w.content))
				} else {
					err = d.Write(w.path, []byte(w.content))
				}
				if err != nil {
					t.Fatalf("%+v, which adds nothing past the cap: %v", w, err)
				}
			}
		})
	}
}

// TestFolderDepthIsBounded: no write can make a folder deeper than
// MaxFolderDepth, and walks do not go below it.
func TestFolderDepthIsBounded(t *testing.T) {
	t.Parallel()
	d, b := newWorkspace(t)
	deep := "output/" + strings.Repeat("d/", MaxPathSegments-1) + "x.md"
	if err := d.Write(deep, []byte("x")); apperr.CodeOf(err) != CodePathDenied {
		t.Fatalf("a path of %d segments: %v", MaxPathSegments+1, err)
	}
	ok := "output/" + strings.Repeat("d/", MaxPathSegments-2) + "x.md"
	mustWrite(t, d, ok, "deepest a file can be")
	// From outside, deeper still.
	far := filepath.Join(d.Root(), "output", filepath.FromSlash(strings.Repeat("d/", MaxPathSegments+3)))
	mkdir(t, far)
	if err := os.WriteFile(filepath.Join(far, "lost.md"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _, err := Scan(d, b)
	if err != nil || len(m) != 1 || m[ok].Bytes == 0 {
		t.Fatalf("Scan = %v, %v", m.Paths(), err)
	}
	u, err := d.Usage()
	// The folders down to MaxFolderDepth, and the one below it seen but
	// not entered.
	if err != nil || u.Files != 1 || u.Folders != MaxFolderDepth {
		t.Fatalf("Usage = %+v, %v; want 1 file and %d folders", u, err, MaxFolderDepth)
	}
}

// TestUsage counts what a workspace holds and stops at the first cap: a
// folder of more entries than any walk reads is past the files cap, not a
// cost in proportion to its size.
func TestUsage(t *testing.T) {
	t.Parallel()
	d, _ := newWorkspace(t)
	mustWrite(t, d, "output/a/b/main.md", "12345")
	mustWrite(t, d, "plan/p.md", "123")
	if err := os.Symlink("/etc/passwd", filepath.Join(d.Root(), "scratch", "link")); err != nil {
		t.Fatal(err)
	}
	u, err := d.Usage()
	if err != nil || u != (Usage{Files: 3, Folders: 2, Bytes: 8}) {
		t.Fatalf("Usage = %+v, %v", u, err)
	}
	fillFiles(t, d, "scratch/flood", maxWalkEntries+1)
	u, err = d.Usage()
	if err != nil || u.Over != LimitFiles || u.Files != MaxWorkspaceFiles+1 {
		t.Fatalf("Usage of a flooded workspace = %+v, %v", u, err)
	}
	files, truncated, err := d.List("", 4)
	if err != nil || !truncated || len(files) != MaxListFiles {
		t.Fatalf("List of a flooded workspace: %d files, truncated %v, %v", len(files), truncated, err)
	}
}

// TestCheckpointCaps: files put in from outside past the caps are left out
// of a checkpoint (never read, never stored) and reported; Update keeps
// the same caps and takes the paths it is given in order.
func TestCheckpointCaps(t *testing.T) {
	t.Parallel()
	t.Run("files", func(t *testing.T) {
		t.Parallel()
		d, b := newWorkspace(t)
		fillFiles(t, d, "scratch", MaxWorkspaceFiles+3)
		m, skipped, err := Scan(d, b)
		if err != nil || len(m) != MaxWorkspaceFiles || !skipped.More || skipped.Count != 1 ||
			skipped.Files[0] != (Skip{Path: fmt.Sprintf("scratch/f%05d", MaxWorkspaceFiles), Reason: LimitFiles}) {
			t.Fatalf("Scan: %d files, skipped %+v, %v", len(m), skipped, err)
		}
		// A file named first is taken before the walk's, whatever its place.
		mustWriteOutside(t, d, "summaries/own.md", "the run's")
		first, _, err := Scan(d, b, "summaries/own.md")
		if _, ok := first["summaries/own.md"]; err != nil || !ok || len(first) != MaxWorkspaceFiles {
			t.Fatalf("Scan with a first file: %d files, own taken %v, %v", len(first), ok, err)
		}
		// A full manifest takes no new file, but a file it lists changes.
		mustWriteOutside(t, d, "output/new.md", "new")
		mustWriteOutside(t, d, "scratch/f00000", "changed")
		next, skipped, err := Update(d, b, m, []string{"scratch/f00000", "output/new.md"})
		if err != nil || len(next) != MaxWorkspaceFiles || next["scratch/f00000"].Bytes != 7 || skipped.Count != 1 || skipped.Files[0].Path != "output/new.md" {
			t.Fatalf("Update: %d files, scratch/f00000 %+v, skipped %+v, %v", len(next), next["scratch/f00000"], skipped, err)
		}
		// A removal named after the new file still makes room for it:
		// every changed path is dropped before any is taken in.
		if err := os.Remove(filepath.Join(d.Root(), "scratch", "f00001")); err != nil {
			t.Fatal(err)
		}
		next, skipped, err = Update(d, b, next, []string{"output/new.md", "scratch/f00001"})
		if _, ok := next["output/new.md"]; err != nil || !ok || len(next) != MaxWorkspaceFiles || !skipped.None() {
			t.Fatalf("Update after a removal: %d files, new taken %v, skipped %+v, %v", len(next), ok, skipped, err)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		t.Parallel()
		d, b := newWorkspace(t)
		n := MaxWorkspaceBytes / MaxFileBytes
		mustWriteOutside(t, d, "output/small.md", "first in")
		fillBytes(t, d, "scratch", n)
		mustWriteOutside(t, d, "summaries/tiny.md", "fits")
		m, skipped, err := Scan(d, b)
		last := fmt.Sprintf("scratch/big%02d", n-1)
		if err != nil || len(m) != n+1 || skipped.Count != 1 || skipped.More || skipped.Files[0] != (Skip{Path: last, Reason: LimitBytes, Bytes: MaxFileBytes}) {
			t.Fatalf("Scan took %v and skipped %+v, %v", m.Paths(), skipped, err)
		}
		if _, ok := m["summaries/tiny.md"]; !ok {
			t.Fatalf("a small file after a skipped one was left out too: %v", m.Paths())
		}
	})
}

func mustWriteOutside(t *testing.T, d *Dir, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(d.Root(), filepath.FromSlash(rel)), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
