package library_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/app"
	"hearth/backend/apperr"
	"hearth/backend/library"
)

// openConfined opens an app whose library may use only roots, as `hearth
// serve --library-root` does.
func openConfined(t testing.TB, roots ...string) *app.App {
	t.Helper()
	a, err := app.Open(t.Context(), t.TempDir(), app.LibraryRoots(roots))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// realTemp is a new temp folder with its links resolved, so paths the
// service answers compare equal.
func realTemp(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestConfinedLibrary: a served library imports and exports under its
// root only. The review's sketch — export into a missing ~/.bashrc.d that
// bash would source — is refused and creates nothing; so is an import
// from elsewhere, an install whose data folder links out of the root, and
// an export into the app's own agent workspace. Nothing refused is stored.
func TestConfinedLibrary(t *testing.T) {
	t.Parallel()
	root, home := realTemp(t), realTemp(t)
	userDir := filepath.Join(root, "st", "data", "default-user")
	copyTree(t, filepath.Join("testdata", "default-user"), userDir)
	_, elsewhere := install(t)
	a := openConfined(t, root)
	ctx := t.Context()

	refused := []struct{ op, path string }{
		{"export", filepath.Join(home, ".bashrc.d")},
		{"export", filepath.Join(a.DataDir, "agent", "run")},
		{"export", root + "/../" + filepath.Base(home) + "/x"},
		{"import", elsewhere},
		{"import", filepath.Join(home, "missing")},
		{"import", a.DataDir},
	}
	linked := filepath.Join(root, "linked")
	if err := os.Mkdir(linked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(elsewhere), filepath.Join(linked, "data")); err == nil {
		refused = append(refused, struct{ op, path string }{"import", linked})
	}
	for _, tc := range refused {
		var err error
		if tc.op == "import" {
			_, err = a.Library.Import(ctx, tc.path, nil)
		} else {
			_, err = a.Library.Export(ctx, tc.path, nil)
		}
		if c := apperr.CodeOf(err); c != library.CodePathNotAllowed && (c != apperr.CodeInvalidArgument || !strings.Contains(tc.path, "..")) {
			t.Errorf("%s %s: %v, want refused", tc.op, tc.path, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(home, ".bashrc.d")); !os.IsNotExist(err) {
		t.Errorf("the refused export created %s: %v", filepath.Join(home, ".bashrc.d"), err)
	}
	if _, err := os.Lstat(filepath.Join(a.DataDir, "agent", "run")); !os.IsNotExist(err) {
		t.Errorf("the refused export wrote into the data folder: %v", err)
	}
	if s := stateOf(t, a); s != (libraryState{}) {
		t.Errorf("refused imports stored %+v", s)
	}

	sum, err := a.Library.Import(ctx, filepath.Join(root, "st"), nil)
	if err != nil || sum.Folder != userDir || sum.Imported.Characters != fixtureCards {
		t.Fatalf("import under the root: %+v, %v", sum, err)
	}
	out, err := a.Library.Export(ctx, filepath.Join(root, "out"), nil)
	if err != nil || out.Folder != filepath.Join(root, "out") || out.Exported.Characters != fixtureCards {
		t.Fatalf("export under the root: %+v, %v", out, err)
	}
}

// TestLibraryOff: a served library with no root refuses every path and
// says how to allow one.
func TestLibraryOff(t *testing.T) {
	t.Parallel()
	_, userDir := install(t)
	a := openConfined(t)
	if _, err := a.Library.Import(t.Context(), userDir, nil); apperr.CodeOf(err) != library.CodePathNotAllowed || !strings.Contains(err.Error(), "--library-root") {
		t.Errorf("import: %v", err)
	}
	target := filepath.Join(realTemp(t), "out")
	if _, err := a.Library.Export(t.Context(), target, nil); apperr.CodeOf(err) != library.CodePathNotAllowed {
		t.Errorf("export: %v", err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("the refused export created its folder: %v", err)
	}
	if acc := a.Library.Access(); !acc.Confined() || len(acc.Roots()) != 0 {
		t.Errorf("access = %v %v", acc.Confined(), acc.Roots())
	}
}

// TestExportTarget: an export creates only its own folder, with one mkdir
// in a folder that exists (never a chain of parents); it may go into an
// empty folder (the desktop's folder dialog makes one); its folders are
// 0700 and its files 0600, whatever the umask, since a library is chats
// and personas.
func TestExportTarget(t *testing.T) {
	t.Parallel()
	base := realTemp(t)
	_, userDir := install(t)
	a := openApp(t)
	if _, err := a.Library.Import(t.Context(), userDir, nil); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(base, "missing", "parents", "st")
	if _, err := a.Library.Export(t.Context(), deep, nil); apperr.CodeOf(err) != library.CodeNotFound {
		t.Errorf("export with missing parents: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(base, "missing")); !os.IsNotExist(err) {
		t.Errorf("the export created the missing parents: %v", err)
	}
	if _, err := a.Library.Export(t.Context(), "relative/st", nil); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
		t.Errorf("relative export: %v", err)
	}
	if _, err := a.Library.Import(t.Context(), "testdata/default-user", nil); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
		t.Errorf("relative import: %v", err)
	}
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{filepath.Join(base, "new"), empty} {
		sum, err := a.Library.Export(t.Context(), target, nil)
		if err != nil || sum.Exported.Characters != fixtureCards || len(sum.Failed) != 0 {
			t.Fatalf("export to %s: %+v, %v", target, sum, err)
		}
		files := 0
		err = filepath.WalkDir(target, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			st, err := os.Lstat(p)
			if err != nil {
				return err
			}
			switch {
			case p == target:
			case d.IsDir() && st.Mode().Perm() != 0o700:
				t.Errorf("%s is %v, want 0700", p, st.Mode().Perm())
			case !d.IsDir() && st.Mode().Perm() != 0o600:
				t.Errorf("%s is %v, want 0600", p, st.Mode().Perm())
			case !d.IsDir():
				files++
			}
			return nil
		})
		if err != nil || files == 0 {
			t.Errorf("walk %s: %d files, %v", target, files, err)
		}
	}
	if st, err := os.Stat(filepath.Join(base, "new")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the export's own folder: %v, %v", st.Mode(), err)
	}
}

// TestImportLinkedSubfolder: a user folder whose characters/ is a link out
// of it does not have that folder read; the link is reported skipped.
func TestImportLinkedSubfolder(t *testing.T) {
	t.Parallel()
	_, userDir := install(t)
	outside := realTemp(t)
	if err := os.Rename(filepath.Join(userDir, "characters"), filepath.Join(outside, "characters")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "characters"), filepath.Join(userDir, "characters")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	a := openApp(t)
	sum, err := a.Library.Import(t.Context(), userDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported.Characters != 0 {
		t.Errorf("read %d characters through a link out of the folder", sum.Imported.Characters)
	}
	found := false
	for _, s := range sum.Skipped {
		found = found || s.Path == "characters"
	}
	if !found {
		t.Errorf("the linked folder is not reported skipped: %+v", sum.Skipped)
	}
}
