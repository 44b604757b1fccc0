package extensions

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// stageZip runs the zip path of stage without a service: list, find the
// root, unpack into dst, read the manifest.
func stageZip(data []byte, dst string) error {
	files, err := readZip(data, "fuzz.zip")
	if err != nil {
		return err
	}
	files, _, err = packageFiles(files, "fuzz")
	if err != nil {
		return err
	}
	if err := extract(files, dst); err != nil {
		return err
	}
	raw, err := readCapped(filepath.Join(dst, ManifestName), MaxManifestBytes)
	if err != nil {
		return err
	}
	m, err := ReadManifest(raw)
	if err != nil {
		return err
	}
	return checkFiles(dst, m)
}

func TestExtractHoldsToDeclaredSizes(t *testing.T) {
	t.Parallel()
	// A header that understates a file's size cannot make extract write
	// more than it said.
	f := pkgFile{name: "a.bin", size: 4, open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader("0123456789")), nil
	}}
	err := extract([]pkgFile{f}, t.TempDir())
	if apperr.CodeOf(err) != CodeInvalidPackage {
		t.Fatalf("got %v, want %s", err, CodeInvalidPackage)
	}
}

func TestPackageLimits(t *testing.T) {
	t.Parallel()
	many := make([]pkgFile, MaxPackageFiles+1)
	for i := range many {
		many[i] = pkgFile{name: "f" + strings.Repeat("x", i%7) + string(rune('a'+i%26))}
	}
	if _, _, err := packageFiles(many, "pkg"); apperr.CodeOf(err) != CodeInvalidPackage {
		t.Errorf("%d files: %v", len(many), err)
	}
	huge := []pkgFile{{name: "manifest.json", size: 10}, {name: "a", size: MaxPackageBytes - 5}, {name: "b", size: 10}}
	if _, _, err := packageFiles(huge, "pkg"); apperr.CodeOf(err) != CodeInvalidPackage {
		t.Errorf("over %d bytes: %v", MaxPackageBytes, err)
	}
	deep := strings.Repeat("d/", MaxPackageDepth) + "f"
	if _, _, err := packageFiles([]pkgFile{{name: "manifest.json"}, {name: deep}}, "pkg"); apperr.CodeOf(err) != CodeInvalidPackage {
		t.Errorf("a path %d folders deep: %v", MaxPackageDepth, err)
	}
}

func FuzzReadZip(f *testing.F) {
	f.Add(makeZip(f, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "index.js", body: "x"}))
	f.Add(makeZip(f, zipEntry{name: "top/"}, zipEntry{name: "top/manifest.json", body: sandboxManifest}, zipEntry{name: "top/index.html"}, zipEntry{name: "top/x.js"}))
	f.Add(makeZip(f, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "../index.js"}))
	f.Add(makeZip(f, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "index.js", body: "/etc", mode: fs.ModeSymlink | 0o777}))
	f.Add(makeZip(f, zipEntry{name: "manifest.json", body: pageManifest, method: 0}, zipEntry{name: "index.js", body: strings.Repeat("a", 5000)}))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dst := t.TempDir()
		err := stageZip(data, dst)
		if err != nil {
			if c := apperr.CodeOf(err); c != CodeInvalidPackage && c != CodeInvalidManifest {
				t.Fatalf("error %v has code %s", err, c)
			}
		}
		// Whatever happened, nothing was written outside dst, and what
		// is inside is plain files and folders.
		var total int64
		werr := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type()&fs.ModeSymlink != 0 || !(d.IsDir() || d.Type().IsRegular()) {
				t.Errorf("%s is %v", p, d.Type())
			}
			if fi, err := d.Info(); err == nil && !d.IsDir() {
				total += fi.Size()
			}
			return nil
		})
		if werr != nil {
			t.Fatal(werr)
		}
		if total > MaxPackageBytes {
			t.Fatalf("unpacked %d bytes", total)
		}
		if parent, _ := os.ReadDir(filepath.Dir(dst)); len(parent) != 1 {
			t.Fatalf("the temp dir's parent holds %d entries", len(parent))
		}
	})
}

func TestReadFolderBoundsTheWalk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := 0; i <= 2*MaxPackageFiles; i++ {
		if err := os.Mkdir(filepath.Join(dir, "d"+strconv.Itoa(i)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := readFolder(dir); apperr.CodeOf(err) != CodeInvalidPackage {
		t.Fatalf("a folder of %d empty folders: %v", 2*MaxPackageFiles+1, err)
	}
}

func TestReadFolderSkipsGit(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, "cloned", map[string]string{"manifest.json": pageManifest, "index.js": "", ".git/HEAD": "ref", ".git/objects/ab/cd": "x"})
	files, err := readFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"index.js", "manifest.json"}) {
		t.Errorf("files %v, want the package without .git", names)
	}
}
