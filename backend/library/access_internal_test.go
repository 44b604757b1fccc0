package library

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// accessTree is a disk laid out for the path tests: an allowed root, Hearth's
// data folder and a folder outside both, with links between them.
type accessTree struct {
	base, root, data, outside string
}

func newAccessTree(t testing.TB) accessTree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := accessTree{base: base, root: filepath.Join(base, "root"), data: filepath.Join(base, "data"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{tr.root + "/lib", tr.data + "/agent", tr.outside + "/sub"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{tr.root + "/file.txt", tr.outside + "/secret.txt"} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		tr.root + "/link-out": tr.outside,
		tr.root + "/link-in":  tr.root + "/lib",
		tr.root + "/to-data":  tr.data,
		tr.root + "/dangling": base + "/nowhere",
		base + "/rootlink":    tr.root,
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	return tr
}

// TestAccessResolve: a confined process resolves paths under its root
// (through links that stay inside it, as the root was spelled or as it
// resolves), and refuses everything else — relative paths, "..", network
// and device paths, links out, the data folder — with errors that say the
// same whatever is at the path.
func TestAccessResolve(t *testing.T) {
	t.Parallel()
	tr := newAccessTree(t)
	acc, err := NewAccess(tr.data, true, []string{tr.base + "/rootlink"})
	if err != nil {
		t.Fatal(err)
	}
	const invalid, denied = apperr.CodeInvalidArgument, CodePathNotAllowed
	for _, tc := range []struct {
		path    string
		code    string
		real    string
		missing int
	}{
		{path: "", code: invalid},
		{path: "relative/lib", code: invalid},
		{path: "./root", code: invalid},
		{path: tr.root + "/../outside", code: invalid},
		{path: tr.root + "/lib/..", code: invalid},
		{path: `\\server\share\st`, code: invalid},
		{path: "//server/share/st", code: invalid},
		{path: `\\.\PhysicalDrive0`, code: invalid},
		{path: `\\?\C:\st`, code: invalid},
		{path: `C:\Users\me\st`, code: invalid},
		{path: tr.root + "/lib\x00", code: invalid},
		{path: "/", code: denied},
		{path: "/dev/sda", code: denied},
		{path: "/etc/passwd", code: denied},
		{path: tr.outside, code: denied},
		{path: tr.outside + "/secret.txt", code: denied},
		{path: tr.outside + "/missing", code: denied},
		{path: tr.outside + "/missing/deeper", code: denied},
		{path: tr.data, code: denied},
		{path: tr.data + "/agent", code: denied},
		{path: tr.root + "/link-out", code: denied},
		{path: tr.root + "/link-out/secret.txt", code: denied},
		{path: tr.root + "/link-out/new", code: denied},
		{path: tr.root + "/to-data", code: denied},
		{path: tr.root + "/to-data/agent/x", code: denied},
		{path: tr.root, real: tr.root},
		{path: tr.root + "/", real: tr.root},
		{path: tr.root + "/lib", real: tr.root + "/lib"},
		{path: tr.root + "/./lib", real: tr.root + "/lib"},
		{path: tr.root + "/link-in", real: tr.root + "/lib"},
		{path: tr.root + "/file.txt", real: tr.root + "/file.txt"},
		{path: tr.root + "/new", real: tr.root + "/new", missing: 1},
		{path: tr.root + "/new/deeper", real: tr.root + "/new/deeper", missing: 2},
		{path: tr.root + "/dangling", real: tr.root + "/dangling", missing: 1},
		{path: tr.base + "/rootlink/lib", real: tr.root + "/lib"},
		{path: tr.base + "/rootlink/new", real: tr.root + "/new", missing: 1},
	} {
		real, missing, err := acc.resolve(tc.path)
		if tc.code != "" {
			if apperr.CodeOf(err) != tc.code {
				t.Errorf("resolve(%q) = %q, %v; want %s", tc.path, real, err, tc.code)
			}
			continue
		}
		if err != nil || real != tc.real || missing != tc.missing {
			t.Errorf("resolve(%q) = %q, %d, %v; want %q, %d", tc.path, real, missing, err, tc.real, tc.missing)
		}
	}
}

// TestAccessUniformErrors: a confined process answers a missing path, a
// file, a folder, a link out and the data folder alike, so a remote
// caller cannot tell what is on the disk; only the quoted path differs.
func TestAccessUniformErrors(t *testing.T) {
	t.Parallel()
	tr := newAccessTree(t)
	acc, err := NewAccess(tr.data, true, []string{tr.root})
	if err != nil {
		t.Fatal(err)
	}
	var first *apperr.Error
	for _, p := range []string{tr.outside + "/missing", tr.outside + "/secret.txt", tr.outside + "/sub", tr.root + "/link-out/secret.txt", tr.root + "/link-out/nothing", tr.data + "/hearth.db"} {
		_, _, err := acc.resolve(p)
		e := apperr.As(err)
		if e == nil || e.Code != CodePathNotAllowed {
			t.Fatalf("resolve(%q): %v", p, err)
		}
		e.Message = strings.Replace(e.Message, `"`+p+`"`, "PATH", 1)
		if first == nil {
			first = e
			continue
		}
		if e.Message != first.Message || len(e.Details) != len(first.Details) {
			t.Errorf("resolve(%q) says %q, another path %q", p, e.Message, first.Message)
		}
	}
	for _, want := range []string{"PATH", tr.root} {
		if !strings.Contains(first.Message, want) {
			t.Errorf("message %q does not name %s", first.Message, want)
		}
	}
	if _, err := acc.importRoot(tr.root + "/file.txt"); err != nil {
		t.Errorf("a file under the root is the import's own business: %v", err)
	}
}

// TestAccessOffAndOpen: confined with no roots refuses every path and says
// how to allow one; unconfined (the desktop) takes any absolute path but
// the data folder's, and refuses an import of a folder holding it.
func TestAccessOffAndOpen(t *testing.T) {
	t.Parallel()
	tr := newAccessTree(t)
	off, err := NewAccess(tr.data, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{tr.root, tr.outside, "/"} {
		if _, _, err := off.resolve(p); apperr.CodeOf(err) != CodePathNotAllowed || !strings.Contains(err.Error(), "--library-root") {
			t.Errorf("off: resolve(%q) = %v", p, err)
		}
	}
	open, err := NewAccess(tr.data, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if real, _, err := open.resolve(tr.outside + "/secret.txt"); err != nil || real != tr.outside+"/secret.txt" {
		t.Errorf("open: %q, %v", real, err)
	}
	for _, p := range []string{"relative", tr.root + "/../data"} {
		if _, _, err := open.resolve(p); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("open: resolve(%q) = %v", p, err)
		}
	}
	for _, p := range []string{tr.data, tr.data + "/agent/run", tr.root + "/to-data"} {
		if _, _, err := open.resolve(p); apperr.CodeOf(err) != CodePathNotAllowed || !strings.Contains(err.Error(), "inside Hearth's own data folder") {
			t.Errorf("open: resolve(%q) = %v", p, err)
		}
	}
	if _, err := open.importRoot(tr.base); apperr.CodeOf(err) != CodePathNotAllowed || !strings.Contains(err.Error(), "holds Hearth's own data folder") {
		t.Errorf("open: import of the data folder's parent: %v", err)
	}
	if open.Confined() || open.Roots() != nil || !off.Confined() || len(off.Roots()) != 0 {
		t.Errorf("Confined/Roots: open %v %v, off %v %v", open.Confined(), open.Roots(), off.Confined(), off.Roots())
	}
}

// TestNewAccessRoots: a root must be an existing folder outside the data
// folder; a relative root is taken from the working directory.
func TestNewAccessRoots(t *testing.T) {
	t.Parallel()
	tr := newAccessTree(t)
	for _, tc := range []struct{ root, text string }{
		{tr.base + "/missing", "no such file"},
		{tr.root + "/file.txt", "not a folder"},
		{tr.data + "/agent", "inside Hearth's data folder"},
		{tr.data, "inside Hearth's data folder"},
		{tr.root + "/to-data", "inside Hearth's data folder"},
	} {
		if _, err := NewAccess(tr.data, true, []string{tr.root, tc.root}); err == nil || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("root %s: %v, want %q", tc.root, err, tc.text)
		}
	}
	acc, err := NewAccess(tr.data, true, []string{tr.root, tr.outside})
	if err != nil || len(acc.Roots()) != 2 {
		t.Fatalf("two roots: %v %v", acc.Roots(), err)
	}
	if _, _, err := acc.resolve(tr.outside + "/sub"); err != nil {
		t.Errorf("the second root: %v", err)
	}
}

// FuzzAccessResolve: whatever the path, a confined resolve that succeeds
// lands under the root's real folder and outside the data folder.
func FuzzAccessResolve(f *testing.F) {
	tr := newAccessTree(f)
	acc, err := NewAccess(tr.data, true, []string{tr.base + "/rootlink"})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{tr.root + "/lib", tr.root + "/link-out/x", tr.root + "/to-data", tr.base + "/rootlink/../data", tr.root + "//lib",
		tr.root + "/link-in/../../outside", `\\?\` + tr.root, tr.root + "/\x00", "/", "", tr.root + "/dangling/x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		real, _, err := acc.resolve(p)
		if err != nil {
			if c := apperr.CodeOf(err); c != apperr.CodeInvalidArgument && c != CodePathNotAllowed {
				t.Fatalf("resolve(%q): unexpected %v", p, err)
			}
			return
		}
		if !within(real, tr.root) || within(real, tr.data) || !filepath.IsAbs(real) {
			t.Fatalf("resolve(%q) = %q: outside the root %s", p, real, tr.root)
		}
	})
}
