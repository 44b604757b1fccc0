package workspace

import (
	"bytes"
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

// MaxFileBytes bounds a file the tools read or write, so one file cannot
// exhaust memory or a model's context.
const MaxFileBytes = 4 << 20

// Dir is one run's workspace directory. Every method takes paths in the
// policy's form (see Clean) and checks them against all Roots; narrowing to
// the roots a profile makes visible or writable is the caller's job, with
// Clean. Dir holds no open handles, so it needs no Close and the directory
// can be removed at any time.
type Dir struct {
	root string
	// nosync skips the fsyncs of writes (see OpenWorkingCopy).
	nosync bool
}

// Open returns the workspace rooted at root (the caller passes
// <data>/agent/workspaces/<wsid>/runs/<runId>), creating it and its Roots.
func Open(root string) (*Dir, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace: open %s: %w", root, err)
	}
	for _, r := range Roots {
		if err := os.MkdirAll(filepath.Join(abs, r), 0o700); err != nil {
			return nil, fmt.Errorf("workspace: open %s: %w", root, err)
		}
	}
	return &Dir{root: abs}, nil
}

// OpenWorkingCopy is Open for a workspace whose durable record is kept
// elsewhere: an agent run checkpoints every write into fsynced blobs, so
// its files are a working copy. Writes stay atomic (temp file, rename:
// a reader or a killed process never sees half a file) but are not
// fsynced; after a power cut the newest write is in its checkpoint even
// if the working copy lost it. Each fsync of a small file costs about a
// millisecond, most of a tool round's budget.
func OpenWorkingCopy(root string) (*Dir, error) {
	d, err := Open(root)
	if err != nil {
		return nil, err
	}
	d.nosync = true
	return d, nil
}

// Root returns the absolute directory of the workspace.
func (d *Dir) Root() string { return d.root }

// target is a checked path and what the file system holds there.
type target struct {
	rel  string      // policy form
	abs  string      // absolute, native separators
	info fs.FileInfo // nil when nothing exists at abs
	// firstMissing is the index of the first segment that does not exist,
	// or len(segments) when all do.
	firstMissing int
	// blocker is the policy form of a parent that exists but is no
	// directory; "" when there is none.
	blocker string
}

// Resolve returns the absolute path of rel after the policy check, refusing
// (CodePathDenied, reason "symlink") when any existing component is a
// symbolic link, so no link, wherever it points, leads anywhere.
func (d *Dir) Resolve(rel string) (string, error) {
	t, err := d.resolve(rel, false)
	if err != nil {
		return "", err
	}
	return t.abs, nil
}

// resolve cleans rel and Lstats it component by component from the root.
// With dir set, "" names the workspace root.
func (d *Dir) resolve(rel string, dir bool) (target, error) {
	var clean string
	var err error
	if dir {
		clean, err = CleanDir(rel, Roots)
	} else {
		clean, err = Clean(rel, Roots)
	}
	if err != nil {
		return target{}, err
	}
	t := target{rel: clean, abs: d.root}
	if clean == "" {
		t.info, err = os.Stat(d.root)
		return t, err
	}
	segs := strings.Split(clean, "/")
	t.firstMissing = len(segs)
	for i, seg := range segs {
		t.abs = filepath.Join(t.abs, seg)
		if t.blocker != "" || t.firstMissing < len(segs) {
			continue
		}
		fi, err := os.Lstat(t.abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			t.firstMissing = i
		case err != nil:
			return target{}, fmt.Errorf("workspace: stat %s: %w", clean, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return target{}, denied(rel, ReasonSymlink)
		case i == len(segs)-1:
			t.info = fi
		case !fi.IsDir():
			t.blocker = strings.Join(segs[:i+1], "/")
		}
	}
	return t, nil
}

// Read returns the content of the file at rel.
func (d *Dir) Read(rel string) ([]byte, error) {
	t, err := d.resolve(rel, false)
	if err != nil {
		return nil, err
	}
	if err := t.mustBeFile(); err != nil {
		return nil, err
	}
	if t.info.Size() > MaxFileBytes {
		return nil, tooLarge(t.rel, t.info.Size())
	}
	var data []byte
	err = d.withRoot(func(r *os.Root) error {
		data, err = readBounded(r, t.rel, t.info)
		return err
	})
	return data, err
}

// Write replaces the file at rel with data, creating parent directories.
// It is crash safe: readers see the old content or the new, never a mix,
// and the new content is on disk when Write returns. A write that would
// take the workspace past a cap (limits.go) is CodeQuotaExceeded and
// changes nothing.
func (d *Dir) Write(rel string, data []byte) error {
	t, err := d.resolve(rel, false)
	if err != nil {
		return err
	}
	if len(data) > MaxFileBytes {
		return tooLarge(t.rel, int64(len(data)))
	}
	if err := d.admit(t, int64(len(data))); err != nil {
		return err
	}
	return d.write(t, bytes.NewReader(data))
}

// Append adds data to the end of the file at rel, creating it when missing,
// with Write's guarantees and caps: the whole file is rewritten atomically.
func (d *Dir) Append(rel string, data []byte) error {
	t, err := d.resolve(rel, false)
	if err != nil {
		return err
	}
	var old []byte
	if t.info != nil && t.blocker == "" {
		if old, err = d.Read(t.rel); err != nil {
			return err
		}
	}
	n := int64(len(old)) + int64(len(data))
	if n > MaxFileBytes {
		return tooLarge(t.rel, n)
	}
	if err := d.admit(t, n); err != nil {
		return err
	}
	return d.write(t, io.MultiReader(bytes.NewReader(old), bytes.NewReader(data)))
}

// Remove deletes the file at rel.
func (d *Dir) Remove(rel string) error {
	t, err := d.resolve(rel, false)
	if err != nil {
		return err
	}
	if err := t.mustBeFile(); err != nil {
		return err
	}
	return d.withRoot(func(r *os.Root) error {
		if err := r.Remove(filepath.FromSlash(t.rel)); err != nil {
			return fmt.Errorf("workspace: remove %s: %w", t.rel, err)
		}
		if d.nosync {
			return nil
		}
		return syncDir(r, path.Dir(t.rel))
	})
}

// write puts src at t through a temp file in the same directory: write,
// fsync, rename over the target, fsync the directory. Missing parents are
// created and their parents synced, so the new entries survive a crash too.
func (d *Dir) write(t target, src io.Reader) error {
	if t.blocker != "" {
		return notADirectory(t)
	}
	if t.info != nil && !t.info.Mode().IsRegular() {
		return notAFile(t.rel)
	}
	return d.withRoot(func(r *os.Root) error {
		segs := strings.Split(t.rel, "/")
		for i := t.firstMissing; i < len(segs)-1; i++ {
			dir := strings.Join(segs[:i+1], "/")
			if err := r.Mkdir(filepath.FromSlash(dir), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("workspace: mkdir %s: %w", dir, err)
			}
			if d.nosync {
				continue
			}
			if err := syncDir(r, path.Dir(dir)); err != nil {
				return err
			}
		}
		return writeAtomic(r, t.rel, src, !d.nosync)
	})
}

// withRoot runs fn with an os.Root on the workspace. Every file operation
// goes through it, so even a symlink swapped in after resolve's check
// cannot lead out of the workspace. It is opened per call so a Dir holds
// no descriptor.
func (d *Dir) withRoot(fn func(r *os.Root) error) error {
	r, err := os.OpenRoot(d.root)
	if err != nil {
		return fmt.Errorf("workspace: open root: %w", err)
	}
	defer r.Close()
	return fn(r)
}

// readBounded reads a regular file of at most MaxFileBytes inside r,
// through an io.LimitReader, so a file that grew since it was looked at
// costs no more. With want (an Lstat of rel) set, a link swapped in for
// the file since is reported as the link it is (CodePathDenied, reason
// symlink), not read through (see swappedForLink).
func readBounded(r *os.Root, rel string, want fs.FileInfo) ([]byte, error) {
	f, err := r.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, fmt.Errorf("workspace: read %s: %w", rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("workspace: read %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notAFile(rel)
	}
	if want != nil && swappedForLink(r, rel, fi, want) {
		return nil, denied(rel, ReasonSymlink)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("workspace: read %s: %w", rel, err)
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge(rel, int64(len(data)))
	}
	return data, nil
}

// swappedForLink reports whether the file opened at rel, fi, is not the
// one an Lstat saw, want, because a link stands at rel now. os.Root
// follows a link that stays inside the workspace and refuses one leading
// out, so this is what keeps even an inside one from being read through.
// A regular file put in its place (an atomic write's rename) is not a
// swap: its content is what rel holds.
func swappedForLink(r *os.Root, rel string, fi, want fs.FileInfo) bool {
	if os.SameFile(fi, want) {
		return false
	}
	now, err := r.Lstat(filepath.FromSlash(rel))
	return err != nil || now.Mode()&fs.ModeSymlink != 0
}

// mustBeFile turns a target that is not an existing regular file into the
// error a caller can act on.
func (t target) mustBeFile() error {
	switch {
	case t.info == nil || t.blocker != "":
		return notFound(t.rel)
	case !t.info.Mode().IsRegular():
		return notAFile(t.rel)
	}
	return nil
}

func notFound(rel string) error {
	return apperr.New(CodeFileNotFound, "nothing exists at %s", rel).WithDetails(map[string]any{"path": rel})
}

func notAFile(rel string) error {
	return apperr.New(CodeNotAFile, "%s is not a file", rel).WithDetails(map[string]any{"path": rel})
}

// CheckSize refuses n bytes of content at rel with the error Write would
// give, so a caller that knows a write's size before building its content
// (apply_patch with replace_all can ask for terabytes) refuses it without
// allocating.
func CheckSize(rel string, n int64) error {
	if n > MaxFileBytes {
		return tooLarge(rel, n)
	}
	return nil
}

func tooLarge(rel string, n int64) error {
	return apperr.New(CodeFileTooLarge, "%s would be %d bytes; the limit is %d", rel, n, MaxFileBytes).
		WithDetails(map[string]any{"path": rel, "bytes": n, "limit": MaxFileBytes})
}
