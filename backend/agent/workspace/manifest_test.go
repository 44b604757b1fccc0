package workspace

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestScan(t *testing.T) {
	t.Parallel()
	d, b := newWorkspace(t)
	mustWrite(t, d, "output/main.md", "main")
	mustWrite(t, d, "persist/deep/a/b.json", `{"a":1}`)
	if err := os.WriteFile(filepath.Join(d.Root(), "stray.txt"), []byte("not under a root"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _, err := Scan(d, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"output/main.md", "persist/deep/a/b.json"}; !slices.Equal(m.Paths(), want) {
		t.Fatalf("paths = %v, want %v", m.Paths(), want)
	}
	for p, e := range m {
		data, err := b.Get(e.SHA256)
		if err != nil || int64(len(data)) != e.Bytes {
			t.Errorf("%s: blob %v, %d bytes vs %d", p, err, len(data), e.Bytes)
		}
	}
}

// TestUpdateMatchesScan is the property behind the fast path: after any
// mix of writes, removals and folder moves, Update with the changed paths
// gives what a full Scan gives, and leaves prev alone.
func TestUpdateMatchesScan(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 42))
			d, b := newWorkspace(t)
			prev, _, err := Scan(d, b)
			if err != nil {
				t.Fatal(err)
			}
			for round := range 30 {
				changed := randomChanges(t, rng, d)
				snapshot := maps.Clone(prev)
				next, _, err := Update(d, b, prev, changed)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if !maps.Equal(prev, snapshot) {
					t.Fatalf("round %d: Update mutated prev", round)
				}
				want, _, err := Scan(d, b)
				if err != nil {
					t.Fatal(err)
				}
				if !maps.Equal(next, want) {
					t.Fatalf("round %d after %v:\nupdate %v\nscan   %v", round, changed, next.Paths(), want.Paths())
				}
				prev = next
			}
		})
	}
}

// randomChanges applies a few random edits and returns the paths touched,
// the way a watcher would report them.
func randomChanges(t *testing.T, rng *rand.Rand, d *Dir) []string {
	t.Helper()
	var changed []string
	for range 1 + rng.IntN(4) {
		dir := Roots[rng.IntN(len(Roots))] + "/" + []string{"", "a/", "a/b/"}[rng.IntN(3)]
		p := dir + fmt.Sprintf("f%d.txt", rng.IntN(4))
		switch rng.IntN(6) {
		case 0, 1:
			modelError(t, d.Write(p, fmt.Appendf(nil, "%d", rng.IntN(3))))
		case 2:
			_ = d.Remove(p)
		case 3:
			modelError(t, d.Append(p, []byte("+")))
		case 4: // a folder removed or moved away from outside
			dir = strings.TrimSuffix(dir, "/")
			if !strings.Contains(dir, "/") {
				continue
			}
			if rng.IntN(2) == 0 {
				_ = os.RemoveAll(filepath.Join(d.Root(), filepath.FromSlash(dir)))
			} else {
				to := Roots[rng.IntN(len(Roots))] + fmt.Sprintf("/moved%d", rng.IntN(100))
				if err := os.Rename(filepath.Join(d.Root(), filepath.FromSlash(dir)), filepath.Join(d.Root(), filepath.FromSlash(to))); err != nil {
					continue
				}
				changed = append(changed, to)
			}
			p = dir
		case 5: // a file becomes a folder or a folder a file, reported once
			p = strings.TrimSuffix(dir, "/") + "/a"
			abs := filepath.Join(d.Root(), filepath.FromSlash(p))
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				if err := os.RemoveAll(abs); err != nil {
					t.Fatal(err)
				}
				modelError(t, d.Write(p, []byte("was a folder")))
			} else {
				_ = os.Remove(abs)
				modelError(t, d.Write(p+"/f0.txt", []byte("was a file")))
			}
		}
		changed = append(changed, p)
	}
	return changed
}

// modelError fails on an error that is not one of the package's typed
// ones: writing where a folder or a file is in the way is expected here.
func modelError(t *testing.T, err error) {
	t.Helper()
	if err != nil && apperr.As(err) == nil {
		t.Fatal(err)
	}
}

func TestUpdateIgnoresWhatScanIgnores(t *testing.T) {
	t.Parallel()
	d, b := newWorkspace(t)
	for _, p := range []string{"stray.txt", "output/odd.", "output/" + TmpPrefix + "1"} {
		if err := os.WriteFile(filepath.Join(d.Root(), filepath.FromSlash(p)), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m, _, err := Update(d, b, nil, []string{"../x", "stray.txt", "output/odd.", "output/" + TmpPrefix + "1", "output/none"})
	if err != nil || m == nil || len(m) != 0 {
		t.Errorf("Update = %v, %v", m, err)
	}
	if s, _, err := Scan(d, b); err != nil || len(s) != 0 {
		t.Errorf("Scan = %v, %v", s, err)
	}
}

// TestRestoreRoundTrip: a restore brings back every file of the manifest,
// removes the rest and reshapes files into folders and back. A file over
// MaxFileBytes dropped in from outside is in no manifest (never read, never
// stored), so a restore can neither bring it back nor, unless the manifest
// needs its place, remove it: it is left alone.
func TestRestoreRoundTrip(t *testing.T) {
	t.Parallel()
	d, b := newWorkspace(t)
	mustWrite(t, d, "output/main.md", "v1")
	mustWrite(t, d, "output/node", "a file that becomes a folder")
	mustWrite(t, d, "plan/folder/x.md", "a folder that becomes a file")
	mustWrite(t, d, "persist/keep.json", "{}")
	big := strings.Repeat("L", MaxFileBytes+10) // dropped in from outside
	dropIn := func(rel string) {
		if err := os.WriteFile(filepath.Join(d.Root(), filepath.FromSlash(rel)), []byte(big), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dropIn("scratch/big.log")
	m1, skipped, err := Scan(d, b)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m1["scratch/big.log"]; ok || skipped.Count != 1 || skipped.More ||
		skipped.Files[0] != (Skip{Path: "scratch/big.log", Reason: LimitFileBytes, Bytes: MaxFileBytes + 10}) {
		t.Fatalf("Scan took the big file (%v) or reported %+v", ok, skipped)
	}
	before := readAll(t, d)

	mustWrite(t, d, "output/main.md", "v2")
	if err := d.Remove("output/node"); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "output/node/child.md", "child")
	if err := os.RemoveAll(filepath.Join(d.Root(), "plan", "folder")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "plan/folder", "now a file")
	mustWrite(t, d, "summaries/new.md", "new")
	dropIn("summaries/later.log")

	changed, err := Restore(d, b, m1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"output/main.md", "output/node", "output/node/child.md", "plan/folder", "plan/folder/x.md", "summaries/new.md"}
	if !slices.Equal(changed, want) {
		t.Errorf("changed = %v, want %v", changed, want)
	}
	before["summaries/later.log"] = big
	if got := readAll(t, d); !equalFiles(got, before) {
		t.Errorf("after restore %v, want %v", keys(got), keys(before))
	}
	assertNoTemp(t, d.Root())
	if changed, err := Restore(d, b, m1); err != nil || len(changed) != 0 {
		t.Errorf("second restore changed %v, %v", changed, err)
	}

	// A big file standing where the manifest needs a folder goes.
	if err := d.Remove("plan/folder/x.md"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(d.Root(), "plan", "folder")); err != nil {
		t.Fatal(err)
	}
	dropIn("plan/folder")
	if changed, err := Restore(d, b, m1); err != nil || !slices.Equal(changed, []string{"plan/folder", "plan/folder/x.md"}) {
		t.Errorf("restore over a big file in the way changed %v, %v", changed, err)
	}
	if got, err := d.Read("plan/folder/x.md"); err != nil || string(got) != "a folder that becomes a file" {
		t.Errorf("plan/folder/x.md = %q, %v", got, err)
	}
}

func TestRestoreRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    func(good Manifest) Manifest
		code string
	}{
		{
			name: "missing blob",
			m: func(good Manifest) Manifest {
				m := maps.Clone(good)
				m["output/gone.md"] = Entry{SHA256: strings.Repeat("0", 64), Bytes: 1}
				return m
			},
			code: CodeBlobMissing,
		},
		{
			name: "invalid sha",
			m: func(good Manifest) Manifest {
				return Manifest{"output/main.md": {SHA256: "../../x", Bytes: 1}}
			},
			code: CodeBlobMissing,
		},
		{
			name: "path outside the roots",
			m: func(good Manifest) Manifest {
				m := maps.Clone(good)
				m["../evil"] = good["output/main.md"]
				return m
			},
			code: CodePathDenied,
		},
		{
			name: "path not normal",
			m: func(good Manifest) Manifest {
				m := maps.Clone(good)
				m["output//main.md"] = good["output/main.md"]
				return m
			},
			code: apperr.CodeInvalidArgument,
		},
		{
			name: "file below a file",
			m: func(good Manifest) Manifest {
				m := maps.Clone(good)
				m["output/main.md/x"] = good["output/main.md"]
				return m
			},
			code: apperr.CodeInvalidArgument,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, b := newWorkspace(t)
			mustWrite(t, d, "output/main.md", "v1")
			good, _, err := Scan(d, b)
			if err != nil {
				t.Fatal(err)
			}
			mustWrite(t, d, "output/main.md", "v2")
			mustWrite(t, d, "scratch/extra.md", "extra")
			before := readAll(t, d)
			changed, err := Restore(d, b, tc.m(good))
			if apperr.CodeOf(err) != tc.code || changed != nil {
				t.Fatalf("Restore = %v, %v; want code %s", changed, err, tc.code)
			}
			if got := readAll(t, d); !equalFiles(got, before) {
				t.Errorf("workspace changed: %v", keys(got))
			}
		})
	}
}

func TestManifestPaths(t *testing.T) {
	t.Parallel()
	m := Manifest{"plan/b": {}, "output/z": {}, "output/a": {}}
	if got := m.Paths(); !slices.Equal(got, []string{"output/a", "output/z", "plan/b"}) {
		t.Errorf("Paths = %v", got)
	}
	if got := Manifest(nil).Paths(); len(got) != 0 {
		t.Errorf("nil Paths = %v", got)
	}
}

// TestRestoreCorruptBlob: a blob whose bytes no longer match its name is
// caught while streaming, and the file it would have replaced stays whole.
func TestRestoreCorruptBlob(t *testing.T) {
	t.Parallel()
	d, b := newWorkspace(t)
	mustWrite(t, d, "output/main.md", "v1")
	m, _, err := Scan(d, b)
	if err != nil {
		t.Fatal(err)
	}
	sha := m["output/main.md"].SHA256
	if err := os.WriteFile(filepath.Join(b.dir, sha[:2], sha), []byte("XX"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, d, "output/main.md", "v2")
	if _, err := Restore(d, b, m); apperr.CodeOf(err) != CodeBlobCorrupt {
		t.Fatalf("err = %v, want %s", err, CodeBlobCorrupt)
	}
	if got, err := d.Read("output/main.md"); err != nil || string(got) != "v2" {
		t.Errorf("file = %q, %v; want it untouched", got, err)
	}
	assertNoTemp(t, d.Root())
}
