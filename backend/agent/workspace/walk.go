package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// maxWalkEntries bounds the directory entries one walk reads: twice what a
// workspace within its caps can hold, so no walk of one is ever cut, while
// a folder of a million files dropped in from outside costs a walk (and
// its memory) no more than this. A walk that stops here reports itself
// cut; the workspace is then past its caps anyway.
const maxWalkEntries = 2 * (MaxWorkspaceFiles + MaxWorkspaceFolders)

// visit calls fn for every entry below the folders bases (policy form),
// a folder before its contents, entries of a folder in lexical order.
// level is 1 for an entry directly in its base; a base that is a regular
// file is reported itself, at level 0. Folders are entered down
// to depth levels below their base (0: no limit of its own) and never
// below MaxFolderDepth segments from the workspace root, where no file a
// path can name lives; symlinks are reported, never followed, and a base
// that is a link is skipped. fn may return fs.SkipDir (for a
// folder: not entered) or fs.SkipAll. Entries vanishing mid-walk are
// tolerated. visit reads at most maxWalkEntries entries in all and
// reports cut when it stopped there.
func (d *Dir) visit(r *os.Root, bases []string, depth int, fn func(rel string, e fs.DirEntry, level int) error) (cut bool, err error) {
	budget := maxWalkEntries
	var walkDir func(rel string, level int) error
	walkDir = func(rel string, level int) error {
		if cut {
			return fs.SkipAll
		}
		f, err := r.Open(filepath.FromSlash(rel))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("workspace: walk %s: %w", rel, err)
		}
		entries, err := f.ReadDir(budget + 1)
		f.Close()
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("workspace: walk %s: %w", rel, err)
		}
		if len(entries) > budget {
			cut, entries = true, entries[:budget]
		}
		budget -= len(entries)
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		for _, e := range entries {
			child := path.Join(rel, e.Name())
			err := fn(child, e, level+1)
			if err == fs.SkipDir {
				continue
			}
			if err != nil {
				return err
			}
			if e.IsDir() && (depth == 0 || level+1 < depth) && segments(child) <= MaxFolderDepth {
				if err := walkDir(child, level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, base := range bases {
		fi, err := r.Lstat(filepath.FromSlash(base))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return cut, fmt.Errorf("workspace: walk %s: %w", base, err)
		}
		err = nil
		switch {
		case fi.IsDir():
			err = walkDir(base, 0)
		case fi.Mode().IsRegular(): // a file named as the base: itself
			err = fn(base, fs.FileInfoToDirEntry(fi), 0)
		} // a link is never followed, not even as a base
		if err == fs.SkipDir {
			err = nil
		}
		if err != nil {
			if err == fs.SkipAll {
				return cut, nil
			}
			return cut, err
		}
	}
	return cut, nil
}

// walk calls fn for every regular file under the given bases (policy
// form), in lexical order within each folder, at most depth levels below
// each base (0: no limit but MaxFolderDepth). It never follows or reports
// symlinks, skips temp files and files whose names the policy would
// refuse, and tolerates entries vanishing mid-walk. fn may return
// fs.SkipAll to stop. It reports cut as visit does.
func (d *Dir) walk(r *os.Root, dirs []string, depth int, fn func(rel string, info fs.FileInfo) error) (bool, error) {
	return d.visit(r, dirs, depth, func(rel string, e fs.DirEntry, _ int) error {
		if e.IsDir() || !e.Type().IsRegular() || strings.HasPrefix(e.Name(), TmpPrefix) {
			return nil
		}
		if _, err := Clean(rel, Roots); err != nil {
			return nil // a name made outside the policy: invisible, as to the tools
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("workspace: stat %s: %w", rel, err)
		}
		return fn(rel, info)
	})
}

// segments counts the segments of a path in policy form.
func segments(rel string) int { return strings.Count(rel, "/") + 1 }
