package extensions

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"hearth/backend/apperr"
)

// Source is where a package comes from: exactly one of a folder path,
// an https URL, or a zip uploaded as base64 with its file name.
type Source struct {
	Path     string `json:"path,omitempty"`
	URL      string `json:"url,omitempty"`
	FileName string `json:"fileName,omitempty"`
	Base64   string `json:"base64,omitempty"`
}

// staged is a package unpacked and checked in the staging area, ready to
// be renamed into place.
type staged struct {
	dir      string // the staging folder, removed by discard
	pkg      string // dir/pkg: the package's files
	manifest *Manifest
	name     string // the folder, file or repository name, for the id
	kind     string // path, zip or url
	value    string
}

func (st *staged) discard() { _ = os.RemoveAll(st.dir) }

// stagingDir makes a fresh folder under <dir>/.staging, on the same file
// system as the installed packages, so installing is a rename.
func (s *Service) stagingDir() (string, error) {
	root := filepath.Join(s.dir, ".staging")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("extension staging: %w", err)
	}
	d, err := os.MkdirTemp(root, "x")
	if err != nil {
		return "", fmt.Errorf("extension staging: %w", err)
	}
	return d, nil
}

// stage reads src into a new staging folder and checks all of it: the
// files, the manifest, and that what the manifest runs is in the package.
func (s *Service) stage(ctx context.Context, src Source) (*staged, error) {
	var files []pkgFile
	st := &staged{}
	var err error
	given := 0
	for _, v := range []string{src.Path, src.URL, src.Base64} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		return nil, apperr.Invalid("source must hold exactly one of path, url, or fileName with base64")
	}
	switch {
	case src.Path != "":
		if !filepath.IsAbs(src.Path) {
			return nil, apperr.Invalid("path must be absolute")
		}
		read := filepath.Clean(src.Path)
		if s.allow != nil {
			if read, err = s.allow(src.Path); err != nil {
				return nil, err
			}
		}
		st.kind, st.value, st.name = "path", filepath.Clean(src.Path), filepath.Base(filepath.Clean(src.Path))
		files, err = readFolder(read)
	case src.URL != "":
		var data []byte
		var name string
		data, name, err = s.fetch.Fetch(ctx, src.URL)
		if err != nil {
			return nil, err
		}
		st.kind, st.value, st.name = "url", src.URL, name
		files, err = readZip(data, name)
	default:
		if !strings.HasSuffix(strings.ToLower(src.FileName), ".zip") {
			return nil, apperr.Invalid("fileName must name a .zip file")
		}
		if len(src.Base64) > base64.StdEncoding.EncodedLen(MaxUploadBytes) {
			return nil, badPackage(src.FileName, "is larger than %d MiB", MaxUploadBytes>>20)
		}
		data, derr := base64.StdEncoding.DecodeString(src.Base64)
		if derr != nil {
			return nil, apperr.Invalid("base64 is not valid base64: %v", derr)
		}
		base := path.Base(strings.ReplaceAll(src.FileName, "\\", "/"))
		st.kind, st.value, st.name = "zip", base, strings.TrimSuffix(base, base[len(base)-4:])
		files, err = readZip(data, base)
	}
	if err != nil {
		return nil, err
	}
	files, root, err := packageFiles(files, st.name)
	if err != nil {
		return nil, err
	}
	if root != "" && st.kind == "zip" && st.name == "" {
		st.name = root
	}
	if st.dir, err = s.stagingDir(); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			st.discard()
		}
	}()
	st.pkg = filepath.Join(st.dir, "pkg")
	if err := os.Mkdir(st.pkg, 0o700); err != nil {
		return nil, fmt.Errorf("extension staging: %w", err)
	}
	if err := extract(files, st.pkg); err != nil {
		return nil, err
	}
	raw, err := readCapped(filepath.Join(st.pkg, ManifestName), MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	if st.manifest, err = ReadManifest(raw); err != nil {
		return nil, err
	}
	if err := checkFiles(st.pkg, st.manifest); err != nil {
		return nil, err
	}
	ok = true
	return st, nil
}

// readCapped reads the manifest, refusing one past max without reading
// all of it.
func readCapped(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, badPackage(ManifestName, "cannot be read")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, badPackage(ManifestName, "cannot be read")
	}
	if int64(len(data)) > limit {
		return nil, badManifest(ManifestName, "is larger than %d bytes", limit)
	}
	return data, nil
}

// checkFiles refuses a manifest naming a file its package lacks.
func checkFiles(pkg string, m *Manifest) error {
	for _, f := range []struct{ field, name string }{{"js", m.JS}, {"css", m.CSS}, {"hearth.entry", m.Hearth.Entry}} {
		if f.name == "" {
			continue
		}
		fi, err := os.Lstat(filepath.Join(pkg, filepath.FromSlash(path.Clean(f.name))))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return badManifest(f.field, "names %q, which is not in the package", f.name)
		case err != nil || !fi.Mode().IsRegular():
			return badManifest(f.field, "names %q, which is not a file", f.name)
		}
	}
	return nil
}
