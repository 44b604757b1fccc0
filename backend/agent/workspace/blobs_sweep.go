package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// reuse reports whether the blob sha exists, and if so marks it as used
// now. Sweep spares blobs touched after its cutoff, so content a run
// stores again while a sweep runs (found by hash, never rewritten) is
// not removed between the sweep's look at the checkpoints and the new
// checkpoint that names it.
func (b *Blobs) reuse(sha string) bool {
	if !b.Has(sha) {
		return false
	}
	p, _ := b.path(sha)
	now := time.Now()
	_ = os.Chtimes(p, now, now)
	return true
}

// SweepStats says what a Sweep removed.
type SweepStats struct {
	Blobs int   // unreferenced blobs
	Temps int   // temp files left by an interrupted write
	Bytes int64 // their size in all
}

// Sweep removes the blobs keep does not want and the temp files a crash
// left behind, each only when last modified before cutoff: a blob a
// checkpoint being written right now will name is newer than that.
// Anything in the store that is neither a blob nor a temp file is left
// alone. The first error, or ctx ending, stops the sweep; what it removed
// stays removed.
func (b *Blobs) Sweep(ctx context.Context, keep func(sha string) bool, cutoff time.Time) (SweepStats, error) {
	var st SweepStats
	err := filepath.WalkDir(b.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != b.dir && filepath.Dir(p) != b.dir {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		temp := strings.HasPrefix(name, TmpPrefix)
		if !temp {
			if _, ok := b.path(name); !ok || filepath.Base(filepath.Dir(p)) != strings.ToLower(name[:2]) || keep(strings.ToLower(name)) {
				return nil
			}
		}
		fi, err := d.Info()
		if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(cutoff) {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if temp {
			st.Temps++
		} else {
			st.Blobs++
		}
		st.Bytes += fi.Size()
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("workspace: sweep blobs: %w", err)
	}
	return st, nil
}

// SweepTemps removes, under dir, the temp files an interrupted workspace
// write left (named like every write's temp file) that were last modified
// before cutoff. A missing dir is nothing to sweep.
func SweepTemps(ctx context.Context, dir string, cutoff time.Time) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), TmpPrefix) || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil || !fi.Mode().IsRegular() || !fi.ModTime().Before(cutoff) {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("workspace: sweep temp files in %s: %w", dir, err)
	}
	return n, nil
}
