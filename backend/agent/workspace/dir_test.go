package workspace

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"hearth/backend/apperr"
)

func TestOpenCreatesRoots(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "agent", "workspaces", "ws_1", "runs", "run_1")
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if d.Root() != root {
		t.Errorf("Root() = %q, want %q", d.Root(), root)
	}
	for _, r := range Roots {
		fi, err := os.Stat(filepath.Join(root, r))
		if err != nil || !fi.IsDir() {
			t.Fatalf("root %s: %v", r, err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
			t.Errorf("root %s mode %v, want 0700", r, fi.Mode().Perm())
		}
	}
	if _, err := Open(root); err != nil {
		t.Errorf("reopen: %v", err)
	}
}

func TestReadWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, d *Dir)
		op    func(d *Dir) error
		code  string
		want  map[string]string // files after the op
	}{
		{
			name: "write creates parents",
			op:   func(d *Dir) error { return d.Write("output/a/b/c.md", []byte("hi")) },
			want: map[string]string{"output/a/b/c.md": "hi"},
		},
		{
			name:  "write replaces",
			setup: func(t *testing.T, d *Dir) { mustWrite(t, d, "plan/p.md", "old content, longer") },
			op:    func(d *Dir) error { return d.Write("plan/p.md", []byte("new")) },
			want:  map[string]string{"plan/p.md": "new"},
		},
		{
			name: "write empty file",
			op:   func(d *Dir) error { return d.Write("scratch/empty", nil) },
			want: map[string]string{"scratch/empty": ""},
		},
		{
			name: "write at the limit",
			op:   func(d *Dir) error { return d.Write("scratch/big", make([]byte, MaxFileBytes)) },
			want: map[string]string{"scratch/big": string(make([]byte, MaxFileBytes))},
		},
		{
			name: "write over the limit",
			op:   func(d *Dir) error { return d.Write("scratch/big", make([]byte, MaxFileBytes+1)) },
			code: CodeFileTooLarge,
			want: map[string]string{},
		},
		{
			name: "write onto a directory",
			setup: func(t *testing.T, d *Dir) {
				mustWrite(t, d, "output/dir/x", "x")
			},
			op:   func(d *Dir) error { return d.Write("output/dir", []byte("y")) },
			code: CodeNotAFile,
			want: map[string]string{"output/dir/x": "x"},
		},
		{
			name: "write onto a root",
			op:   func(d *Dir) error { return d.Write("output", []byte("y")) },
			code: CodeNotAFile,
			want: map[string]string{},
		},
		{
			name:  "write below a file",
			setup: func(t *testing.T, d *Dir) { mustWrite(t, d, "output/f", "f") },
			op:    func(d *Dir) error { return d.Write("output/f/g", []byte("g")) },
			code:  CodeNotADirectory,
			want:  map[string]string{"output/f": "f"},
		},
		{
			name: "write denied path",
			op:   func(d *Dir) error { return d.Write("../escape", []byte("x")) },
			code: CodePathDenied,
			want: map[string]string{},
		},
		{
			name: "append creates",
			op:   func(d *Dir) error { return d.Append("summaries/s.md", []byte("one\n")) },
			want: map[string]string{"summaries/s.md": "one\n"},
		},
		{
			name:  "append appends",
			setup: func(t *testing.T, d *Dir) { mustWrite(t, d, "summaries/s.md", "one\n") },
			op:    func(d *Dir) error { return d.Append("summaries/s.md", []byte("two\n")) },
			want:  map[string]string{"summaries/s.md": "one\ntwo\n"},
		},
		{
			name:  "append over the limit",
			setup: func(t *testing.T, d *Dir) { mustWrite(t, d, "scratch/s", strings.Repeat("a", MaxFileBytes-1)) },
			op:    func(d *Dir) error { return d.Append("scratch/s", []byte("bc")) },
			code:  CodeFileTooLarge,
			want:  map[string]string{"scratch/s": strings.Repeat("a", MaxFileBytes-1)},
		},
		{
			name:  "remove",
			setup: func(t *testing.T, d *Dir) { mustWrite(t, d, "persist/k.json", "{}") },
			op:    func(d *Dir) error { return d.Remove("persist/k.json") },
			want:  map[string]string{},
		},
		{
			name: "remove missing",
			op:   func(d *Dir) error { return d.Remove("persist/none") },
			code: CodeFileNotFound,
			want: map[string]string{},
		},
		{
			name:  "remove directory",
			setup: func(t *testing.T, d *Dir) { mustWrite(t, d, "persist/sub/k", "k") },
			op:    func(d *Dir) error { return d.Remove("persist/sub") },
			code:  CodeNotAFile,
			want:  map[string]string{"persist/sub/k": "k"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, _ := newWorkspace(t)
			if tc.setup != nil {
				tc.setup(t, d)
			}
			err := tc.op(d)
			if apperr.CodeOf(err) != tc.code {
				t.Fatalf("err = %v, want code %q", err, tc.code)
			}
			if got := readAll(t, d); !equalFiles(got, tc.want) {
				t.Errorf("files = %v, want %v", keys(got), keys(tc.want))
			}
			assertNoTemp(t, d.Root())
		})
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	d, _ := newWorkspace(t)
	mustWrite(t, d, "output/a.md", "alpha")
	mustWrite(t, d, "output/sub/b.md", "beta")
	if err := os.WriteFile(filepath.Join(d.Root(), "scratch", "huge"), make([]byte, MaxFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel, want, code string
	}{
		{rel: "output/a.md", want: "alpha"},
		{rel: "output//sub/./b.md", want: "beta"},
		{rel: "output/missing.md", code: CodeFileNotFound},
		{rel: "output/a.md/below", code: CodeFileNotFound},
		{rel: "output/sub", code: CodeNotAFile},
		{rel: "output", code: CodeNotAFile},
		{rel: "scratch/huge", code: CodeFileTooLarge},
		{rel: "/etc/passwd", code: CodePathDenied},
	}
	for _, tc := range tests {
		got, err := d.Read(tc.rel)
		if apperr.CodeOf(err) != tc.code || string(got) != tc.want {
			t.Errorf("Read(%q) = %q, %v; want %q, code %q", tc.rel, got, err, tc.want, tc.code)
		}
	}
}

// TestWriteIsAtomic has a reader race a writer that alternates two contents:
// every read must see one of them whole, never a mix or an empty file.
func TestWriteIsAtomic(t *testing.T) {
	t.Parallel()
	d, _ := newWorkspace(t)
	a := bytes.Repeat([]byte("a"), 64<<10)
	b := bytes.Repeat([]byte("b"), 3<<10)
	if err := d.Write("output/race.md", a); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			got, err := d.Read("output/race.md")
			if err != nil {
				t.Errorf("read: %v", err)
				return
			}
			if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
				t.Errorf("torn read: %d bytes", len(got))
				return
			}
		}
	})
	for i := range 40 {
		data := a
		if i%2 == 0 {
			data = b
		}
		if err := d.Write("output/race.md", data); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	assertNoTemp(t, d.Root())
}

// newWorkspace opens a workspace and a blob store in a fresh temp dir.
func newWorkspace(t testing.TB) (*Dir, *Blobs) {
	t.Helper()
	base := t.TempDir()
	d, err := Open(filepath.Join(base, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenBlobs(filepath.Join(base, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	return d, b
}

func mustWrite(t testing.TB, d *Dir, rel, content string) {
	t.Helper()
	if err := d.Write(rel, []byte(content)); err != nil {
		t.Fatalf("write %s: %v", rel, err)
	}
}

func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

// readAll returns every regular file under the workspace root, as seen by
// the OS rather than by the package.
func readAll(t testing.TB, d *Dir) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(d.Root(), func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(d.Root(), p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// assertNoTemp fails when an in-flight temp file was left behind.
func assertNoTemp(t testing.TB, root string) {
	t.Helper()
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(e.Name(), TmpPrefix) {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}

// TestWorkingCopyWrites: a working copy writes, appends and removes like a
// durable workspace (only the fsyncs are skipped), leaving no temp files.
func TestWorkingCopyWrites(t *testing.T) {
	t.Parallel()
	d, err := OpenWorkingCopy(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write("output/deep/main.md", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := d.Append("output/deep/main.md", []byte(" two")); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read("output/deep/main.md")
	if err != nil || string(got) != "one two" {
		t.Fatalf("read %q, %v", got, err)
	}
	files, _, err := d.List("output", 4)
	if err != nil || len(files) != 1 {
		t.Fatalf("list %+v, %v", files, err)
	}
	if err := d.Remove("output/deep/main.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read("output/deep/main.md"); err == nil {
		t.Fatal("the removed file still reads")
	}
	entries, _ := os.ReadDir(filepath.Join(d.Root(), "output", "deep"))
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}
