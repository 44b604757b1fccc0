package extensions

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Limits on a package, zipped or not (EXTENSIONS.md §1: no zip bombs).
const (
	MaxPackageBytes = 100 << 20 // all files, uncompressed
	MaxPackageFiles = 5000
	MaxPackageDepth = 32  // folders inside one another
	MaxZipRatio     = 200 // uncompressed : compressed, for files past 1 MiB
	ratioFloor      = 1 << 20
)

// pkgFile is one regular file of a package: its slash-separated path
// relative to the package root, and how to read it.
type pkgFile struct {
	name string
	size int64
	open func() (io.ReadCloser, error)
	// compressed is the compressed size, for the ratio check (0: not zipped).
	compressed int64
}

// packageFiles checks names and kinds and finds the package root: the
// folder holding manifest.json, the top or its single top folder. It
// returns the files under that root with the root stripped.
func packageFiles(files []pkgFile, label string) ([]pkgFile, string, error) {
	if len(files) > MaxPackageFiles {
		return nil, "", badPackage(label, "holds %d files; at most %d are allowed", len(files), MaxPackageFiles)
	}
	var total int64
	seen := map[string]bool{}
	for _, f := range files {
		if err := checkEntryName(f.name); err != nil {
			return nil, "", badPackage(f.name, "%v", err)
		}
		key := strings.ToLower(f.name)
		if seen[key] {
			return nil, "", badPackage(f.name, "appears twice in the package")
		}
		seen[key] = true
		if f.size < 0 || f.size > MaxPackageBytes {
			return nil, "", badPackage(f.name, "is larger than the %d MiB a package may hold", MaxPackageBytes>>20)
		}
		total += f.size
		if total > MaxPackageBytes {
			return nil, "", badPackage(label, "unpacks to more than %d MiB", MaxPackageBytes>>20)
		}
		if f.compressed > 0 && f.size > ratioFloor && f.size/f.compressed > MaxZipRatio {
			return nil, "", badPackage(f.name, "is compressed %d:1; at most %d:1 is allowed", f.size/f.compressed, MaxZipRatio)
		}
	}
	root := ""
	if !seen[ManifestName] {
		top := ""
		for _, f := range files {
			first, _, _ := strings.Cut(f.name, "/")
			if !strings.Contains(f.name, "/") || (top != "" && first != top) {
				top = ""
				break
			}
			top = first
		}
		if top == "" || !seenExact(files, top+"/"+ManifestName) {
			return nil, "", badPackage(ManifestName, "not found at the package's root or in its single top folder")
		}
		root = top
	}
	if root == "" {
		return files, "", nil
	}
	out := make([]pkgFile, 0, len(files))
	for _, f := range files {
		f.name = strings.TrimPrefix(f.name, root+"/")
		out = append(out, f)
	}
	return out, root, nil
}

func seenExact(files []pkgFile, name string) bool {
	for _, f := range files {
		if f.name == name {
			return true
		}
	}
	return false
}

// checkEntryName refuses a path that would land outside the package
// (zip slip), or that no file system takes the same way everywhere.
func checkEntryName(name string) error {
	switch {
	case name == "":
		return errors.New("an entry has no name")
	case strings.ContainsAny(name, "\\\x00:"):
		return errors.New("the path holds a backslash, a colon or a NUL")
	case strings.HasPrefix(name, "/"):
		return errors.New("the path is absolute")
	}
	parts := strings.Split(name, "/")
	if len(parts) > MaxPackageDepth {
		return fmt.Errorf("the path is more than %d folders deep", MaxPackageDepth)
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return errors.New("the path leaves the package or has an empty part")
		}
	}
	return nil
}

// readZip lists a zip's files for packageFiles, refusing symlinks and
// anything not a plain file or folder.
func readZip(data []byte, label string) ([]pkgFile, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, badPackage(label, "is not a zip archive: %v", err)
	}
	if len(zr.File) > MaxPackageFiles*2 {
		return nil, badPackage(label, "holds %d entries; at most %d files are allowed", len(zr.File), MaxPackageFiles)
	}
	var files []pkgFile
	for _, f := range zr.File {
		mode := f.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			return nil, badPackage(f.Name, "is a symbolic link; packages may hold files and folders only")
		case mode.IsDir() || strings.HasSuffix(f.Name, "/"):
			if err := checkEntryName(strings.TrimSuffix(f.Name, "/")); err != nil {
				return nil, badPackage(f.Name, "%v", err)
			}
			continue
		case !mode.IsRegular():
			return nil, badPackage(f.Name, "is not a regular file")
		}
		if f.UncompressedSize64 > MaxPackageBytes {
			return nil, badPackage(f.Name, "is larger than the %d MiB a package may hold", MaxPackageBytes>>20)
		}
		f := f
		files = append(files, pkgFile{
			name: f.Name, size: int64(f.UncompressedSize64), compressed: max(int64(f.CompressedSize64), 1),
			open: func() (io.ReadCloser, error) { return f.Open() },
		})
	}
	return files, nil
}

// readFolder lists a folder's files for packageFiles. It walks with
// Lstat and refuses symlinks and special files, so nothing outside the
// folder is read.
func readFolder(dir string) ([]pkgFile, error) {
	info, err := os.Lstat(dir)
	if err != nil {
		return nil, badPackage(filepath.Base(dir), "cannot be read: %v", errors.Unwrap(err))
	}
	if !info.IsDir() {
		return nil, badPackage(filepath.Base(dir), "is not a folder")
	}
	var files []pkgFile
	entries := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return badPackage(rel(dir, p), "cannot be read")
		}
		if p == dir {
			return nil
		}
		// Folders count too, so a tree of empty folders is not walked
		// without end (a { path } of "/", say).
		if entries++; entries > 2*MaxPackageFiles {
			return badPackage(filepath.Base(dir), "holds more than %d files and folders", 2*MaxPackageFiles)
		}
		name := rel(dir, p)
		t := d.Type()
		switch {
		case t&fs.ModeSymlink != 0:
			return badPackage(name, "is a symbolic link; packages may hold files and folders only")
		case d.IsDir():
			if d.Name() == ".git" {
				return filepath.SkipDir // a clone's history is not the package
			}
			if err := checkEntryName(name); err != nil {
				return badPackage(name, "%v", err)
			}
			return nil
		case !t.IsRegular():
			return badPackage(name, "is not a regular file")
		}
		if len(files) >= MaxPackageFiles {
			return badPackage(filepath.Base(dir), "holds more than %d files", MaxPackageFiles)
		}
		fi, err := d.Info()
		if err != nil {
			return badPackage(name, "cannot be read")
		}
		files = append(files, pkgFile{name: name, size: fi.Size(), open: func() (io.ReadCloser, error) { return openRegular(p) }})
		return nil
	})
	return files, err
}

func rel(dir, p string) string {
	r, err := filepath.Rel(dir, p)
	if err != nil {
		return filepath.Base(p)
	}
	return filepath.ToSlash(r)
}

// openRegular opens p refusing a symlink put there since the walk.
func openRegular(p string) (io.ReadCloser, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return os.Open(p)
}

// extract writes files under dst (which must exist), each at most the
// size it declared, and at most MaxPackageBytes together, whatever the
// headers said.
func extract(files []pkgFile, dst string) error {
	budget := int64(MaxPackageBytes)
	for _, f := range files {
		target := filepath.Join(dst, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return badPackage(f.name, "cannot be unpacked: a file and a folder share its path")
		}
		if err := writeFile(f, target, &budget); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(f pkgFile, target string, budget *int64) error {
	in, err := f.open()
	if err != nil {
		return badPackage(f.name, "cannot be read: %v", err)
	}
	defer in.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return badPackage(f.name, "cannot be unpacked: a file and a folder share its path")
	}
	limit := min(f.size, *budget)
	n, err := io.Copy(out, io.LimitReader(in, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return badPackage(f.name, "cannot be unpacked: %v", err)
	}
	if n > limit {
		return badPackage(f.name, "is larger than it claims to be")
	}
	*budget -= n
	return nil
}
