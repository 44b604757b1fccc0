// Package media keeps binary files (avatars, images) content-addressed under
// the data dir. Files are written crash-safely (temp file, fsync, rename,
// fsync dir) before any row points at them, so a pointer never dangles.
package media

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Store is a directory of content-addressed files.
type Store struct{ dir string }

// New returns a Store rooted at dir, creating it if needed.
func New(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create media dir: %w", err)
	}
	return &Store{dir: dir}, nil
}

var nameRe = regexp.MustCompile(`^[0-9a-f]{64}\.[a-z0-9]{1,8}$`)

// Put stores data and returns its name, "<sha256>.<ext>". Storing the same
// bytes twice is free.
func (s *Store) Put(data []byte, ext string) (string, error) {
	ext = strings.ToLower(strings.TrimPrefix(ext, "."))
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:]) + "." + ext
	if !nameRe.MatchString(name) {
		return "", fmt.Errorf("media: bad extension %q", ext)
	}
	dst := filepath.Join(s.dir, name)
	if _, err := os.Stat(dst); err == nil {
		return name, nil
	}
	if err := WriteFileAtomic(dst, data, 0o600); err != nil {
		return "", err
	}
	return name, nil
}

// Path returns the file path of a stored name, or an error for names that
// are not content addresses (no path tricks reach the file system).
func (s *Store) Path(name string) (string, error) {
	if !nameRe.MatchString(name) {
		return "", errors.New("media: invalid name")
	}
	return filepath.Join(s.dir, name), nil
}

// WriteFileAtomic writes data to path so that after a crash the path holds
// either the old content or all of the new: temp file, fsync, rename, fsync dir.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}
