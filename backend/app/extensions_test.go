package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/extensions"
	"hearth/backend/library"
)

// TestExtensionPathsFollowLibraryRoots: a { path } install reads only
// folders the library may (under --library-root when serving, never the
// data dir), and installs into <data>/extensions.
func TestExtensionPathsFollowLibraryRoots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	pkg := func(parent, name string) string {
		dir := filepath.Join(parent, name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"js":"a.js"}`), 0o644)
		os.WriteFile(filepath.Join(dir, "a.js"), nil, 0o644)
		return dir
	}
	data := t.TempDir()
	a, err := Open(ctx, data, LibraryRoots([]string{root}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Extensions.Install(ctx, extensions.Source{Path: pkg(root, "inside")}, extensions.InstallOptions{}); err != nil {
		t.Fatalf("a package under the root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, "extensions", "inside", "a.js")); err != nil {
		t.Errorf("not installed into the data dir: %v", err)
	}
	for _, p := range []string{pkg(t.TempDir(), "outside"), pkg(data, "in-data")} {
		_, err := a.Extensions.Install(ctx, extensions.Source{Path: p}, extensions.InstallOptions{})
		if apperr.CodeOf(err) != library.CodePathNotAllowed {
			t.Errorf("%s: %v, want %s", p, err, library.CodePathNotAllowed)
		}
	}
}
