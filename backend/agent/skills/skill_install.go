package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"hearth/backend/apperr"
)

// InstallOptions tune Install.
type InstallOptions struct {
	// Replace lets Install swap out an installed skill of the same name.
	Replace bool
}

// entry is one file or folder Install copies, as it was when checked.
type entry struct {
	rel  string
	info fs.FileInfo
}

func invalid(reason string, args ...any) error {
	msg := fmt.Sprintf(reason, args...)
	return apperr.New(CodeInvalid, "cannot install this skill: %s", msg).WithDetails(map[string]any{"reason": msg})
}

// Install copies the skill folder src (as the user chose it) into the
// library under the name its SKILL.md gives. It checks everything before
// writing anything: SKILL.md, no symlinks or special files, at most
// MaxInstallFiles files and as many folders, MaxInstallBytes in all, and
// MaxInstallDepth levels. The copy is made in a temporary folder inside
// the library and renamed into place, so the library never shows half a
// skill. An installed skill of the same name is skill.exists unless
// opts.Replace.
func (l *Library) Install(src string, opts InstallOptions) (Skill, error) {
	info, err := os.Lstat(src)
	switch {
	case err != nil:
		return Skill{}, invalid("the folder cannot be read (%s)", problemText(err))
	case info.Mode()&fs.ModeSymlink != 0:
		return Skill{}, invalid("the folder is a symlink; choose the folder it points to")
	case !info.IsDir():
		return Skill{}, invalid("a skill is a folder holding %s, not a file", FileName)
	}
	p, _, err := readFile(filepath.Join(src, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return Skill{}, invalid("the folder has no %s", FileName)
	}
	if err != nil {
		return Skill{}, invalid("%s", problemText(err))
	}
	entries, err := survey(src)
	if err != nil {
		return Skill{}, err
	}

	l.install.Lock()
	defer l.install.Unlock()
	dest := filepath.Join(l.dir, p.Name)
	if err := l.free(p.Name, opts); err != nil {
		return Skill{}, err
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return Skill{}, fmt.Errorf("create skill library: %w", err)
	}
	tmp, err := os.MkdirTemp(l.dir, ".install-")
	if err != nil {
		return Skill{}, fmt.Errorf("install skill: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed into place
	if err := copyTree(src, tmp, entries); err != nil {
		return Skill{}, err
	}
	// What was copied is what gets installed: check it again, in case the
	// source changed after it was checked.
	if q, _, err := readFile(filepath.Join(tmp, FileName)); err != nil || q.Name != p.Name {
		return Skill{}, invalid("the folder changed while it was being copied; try again")
	}
	if err := l.swap(tmp, dest, p.Name, opts); err != nil {
		return Skill{}, err
	}
	s, _, err := l.load(p.Name)
	if err != nil {
		return Skill{}, fmt.Errorf("read installed skill %s: %w", p.Name, err)
	}
	return s, nil
}

// free checks that name may be installed: absent, or opts.Replace.
func (l *Library) free(name string, opts InstallOptions) error {
	_, err := os.Lstat(filepath.Join(l.dir, name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("install skill: %w", err)
	case !opts.Replace:
		return apperr.New(CodeExists, "a skill named %q is already installed; replace it or remove it first", name).
			WithDetails(map[string]any{"name": name})
	}
	return nil
}

// survey walks src without following symlinks and returns what to copy,
// refusing the tree as soon as it breaks a bound.
func survey(src string) ([]entry, error) {
	var entries []entry
	files, dirs := 0, 0
	var total int64
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return invalid("part of the folder cannot be read (%s)", problemText(err))
		}
		if path == src {
			return nil
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		shown := filepath.ToSlash(rel)
		if depth := strings.Count(shown, "/") + 1; depth > MaxInstallDepth {
			return invalid("%s nests deeper than %d levels", short(shown), MaxInstallDepth)
		}
		info, err := d.Info()
		if err != nil {
			return invalid("%s cannot be read (%s)", short(shown), problemText(err))
		}
		switch mode := info.Mode(); {
		case mode&fs.ModeSymlink != 0:
			return invalid("%s is a symlink; skills may not contain symlinks", short(shown))
		case mode.IsDir():
			if dirs++; dirs > MaxInstallFiles {
				return invalid("the folder holds more than %d folders", MaxInstallFiles)
			}
		case mode.IsRegular():
			files++
			total += info.Size()
			if files > MaxInstallFiles {
				return invalid("the folder holds more than %d files", MaxInstallFiles)
			}
			if total > MaxInstallBytes {
				return invalid("the folder holds more than %d MiB", MaxInstallBytes>>20)
			}
		default:
			return invalid("%s is not a regular file or folder", short(shown))
		}
		entries = append(entries, entry{rel: rel, info: info})
		return nil
	})
	if err != nil {
		if apperr.As(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("install skill: %w", err)
	}
	return entries, nil
}

// copyTree copies the surveyed entries (parents come before children)
// from src into dst.
func copyTree(src, dst string, entries []entry) error {
	for _, e := range entries {
		to := filepath.Join(dst, e.rel)
		if e.info.IsDir() {
			if err := os.Mkdir(to, 0o700); err != nil {
				return fmt.Errorf("install skill: %w", err)
			}
			continue
		}
		if err := copyFile(filepath.Join(src, e.rel), to, e.info); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies one file, refusing it if it is no longer the file that
// was surveyed (swapped for a symlink, grown or shrunk).
func copyFile(from, to string, was fs.FileInfo) error {
	in, err := os.Open(from)
	if err != nil {
		return invalid("%s cannot be read (%s)", short(was.Name()), problemText(err))
	}
	defer in.Close()
	now, err := in.Stat()
	if err != nil || !os.SameFile(now, was) || now.Size() != was.Size() {
		return invalid("the folder changed while it was being copied; try again")
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600|was.Mode().Perm()&0o100)
	if err != nil {
		return fmt.Errorf("install skill: %w", err)
	}
	n, err := io.Copy(out, io.LimitReader(in, was.Size()+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("install skill: %w", err)
	}
	if n != was.Size() {
		return invalid("the folder changed while it was being copied; try again")
	}
	return nil
}

// swap renames the finished copy into place, moving a replaced skill
// aside first and back again if the rename fails.
func (l *Library) swap(tmp, dest, name string, opts InstallOptions) error {
	if err := l.free(name, opts); err != nil {
		return err
	}
	old := ""
	if _, err := os.Lstat(dest); err == nil {
		aside, err := os.MkdirTemp(l.dir, ".replaced-")
		if err != nil {
			return fmt.Errorf("install skill: %w", err)
		}
		old = filepath.Join(aside, name)
		if err := os.Rename(dest, old); err != nil {
			os.Remove(aside)
			return fmt.Errorf("install skill: move the old version aside: %w", err)
		}
		defer os.RemoveAll(aside)
	}
	if err := os.Rename(tmp, dest); err != nil {
		if old != "" {
			_ = os.Rename(old, dest)
		}
		return fmt.Errorf("install skill: %w", err)
	}
	return nil
}
