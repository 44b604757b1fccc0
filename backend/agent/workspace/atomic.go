package workspace

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
)

// writeAtomic is the temp, fsync, rename, fsync-directory sequence inside
// r; without durable, the same without the fsyncs.
func writeAtomic(r *os.Root, rel string, src io.Reader, durable bool) error {
	dir := path.Dir(rel)
	tmp := path.Join(dir, tmpName())
	f, err := r.OpenFile(filepath.FromSlash(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("workspace: write %s: %w", rel, err)
	}
	_, err = io.Copy(f, src)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(filepath.FromSlash(tmp), filepath.FromSlash(rel))
	}
	if err != nil {
		_ = r.Remove(filepath.FromSlash(tmp))
		return fmt.Errorf("workspace: write %s: %w", rel, err)
	}
	if !durable {
		return nil
	}
	return syncDir(r, dir)
}

// tmpName returns a fresh temp-file name; the prefix marks it as in flight
// for listings and the random part keeps concurrent writers apart.
func tmpName() string { return TmpPrefix + rand.Text() }

// syncDir fsyncs a directory inside r so a rename or a new entry in it
// survives a crash.
func syncDir(r *os.Root, dir string) error {
	return syncOpened(dir, func() (*os.File, error) { return r.Open(filepath.FromSlash(dir)) })
}

// syncPath fsyncs a directory by absolute path (see syncDir).
func syncPath(dir string) error {
	return syncOpened(dir, func() (*os.File, error) { return os.Open(dir) })
}

// syncOpened opens a directory with open and fsyncs it. Windows cannot
// sync directories (and NTFS journals renames), so it is skipped there.
func syncOpened(dir string, open func() (*os.File, error)) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := open()
	if err != nil {
		return fmt.Errorf("workspace: sync %s: %w", dir, err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("workspace: sync %s: %w", dir, err)
	}
	return nil
}
