package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"hearth/backend/apperr"
)

// Entry is one file of a checkpoint: the blob holding its content and its
// size.
type Entry struct {
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Manifest is a checkpoint (AGENT.md §6): path (policy form) → Entry. The
// blobs it names exist before the manifest is recorded, so a manifest is
// always restorable.
type Manifest map[string]Entry

// Paths returns the manifest's paths, sorted.
func (m Manifest) Paths() []string {
	return slices.Sorted(maps.Keys(m))
}

// Scan checkpoints the whole workspace: every regular file under the
// Roots is put into b and listed, in lexical order, as long as the
// workspace's caps allow (see intake); what they leave out is in the
// Skipped it returns. The files named by first (a run's own write) are
// taken before any other, so files put there from outside cannot crowd
// them out.
func Scan(d *Dir, b *Blobs, first ...string) (Manifest, Skipped, error) {
	in := newIntake(b, nil)
	err := d.withRoot(func(r *os.Root) error {
		in.r = r
		taken := map[string]bool{}
		for _, p := range first {
			t, err := d.resolve(p, false)
			if err != nil || taken[t.rel] || t.info == nil || t.blocker != "" || !t.info.Mode().IsRegular() {
				continue // not a file Scan would list
			}
			taken[t.rel] = true
			if err := in.take(t.rel, t.info); err != nil && err != fs.SkipAll {
				return err
			}
		}
		cut, err := d.walk(r, bases("", Roots), 0, func(rel string, info fs.FileInfo) error {
			if taken[rel] {
				return nil
			}
			return in.take(rel, info)
		})
		in.skipped.More = in.skipped.More || cut
		return err
	})
	if err != nil {
		return nil, Skipped{}, err
	}
	return in.m, in.skipped, nil
}

// Update is the fast path of a checkpoint: a new manifest equal to prev
// except at the changed paths, which are re-hashed and put when they hold a
// file and dropped when not. Its file work is O(len(changed)), whatever
// the workspace's size; the only per-file costs are copying prev's map and,
// for a path that was not a file in prev, one pass over its keys. A
// changed path that is (or was) a folder is re-walked, so a renamed or
// removed folder is handled too. Paths the policy refuses are ignored, as
// Scan never lists them (a watcher may report any name). prev is not
// modified.
//
// Every changed path is dropped before any is taken in again, and they
// are taken in the order given, within the caps (see intake): a caller
// names the file it wrote itself first, so that neither files put there
// from outside nor entries of files since removed crowd it out.
func Update(d *Dir, b *Blobs, prev Manifest, changed []string) (Manifest, Skipped, error) {
	in := newIntake(b, prev)
	var clean []string
	for _, p := range changed {
		c, err := Clean(p, Roots)
		if err != nil {
			continue // Scan never sees a name the policy refuses; nor does Update
		}
		if _, wasFile := in.m[c]; wasFile {
			in.drop(c) // nothing can have been below a file
		} else {
			in.dropPrefix(c) // it may have been a folder
		}
		clean = append(clean, c)
	}
	err := d.withRoot(func(r *os.Root) error {
		in.r = r
		for _, p := range clean {
			if err := retake(d, r, in, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, Skipped{}, err
	}
	return in.m, in.skipped, nil
}

// retake takes in what the changed path p holds now: a file, or the files
// of a folder.
func retake(d *Dir, r *os.Root, in *intake, p string) error {
	t, err := d.resolve(p, false)
	if e := apperr.As(err); e != nil && e.Details["reason"] == ReasonSymlink {
		return nil // Scan never follows links, so neither does a checkpoint
	}
	if err != nil {
		return err
	}
	switch {
	case t.info == nil || t.blocker != "":
	case t.info.Mode().IsRegular():
		if err := in.take(t.rel, t.info); err != fs.SkipAll {
			return err
		}
	case t.info.IsDir():
		cut, err := d.walk(r, []string{t.rel}, 0, in.take)
		in.skipped.More = in.skipped.More || cut
		return err
	}
	return nil
}

// Restore makes the workspace equal to m and returns the paths it changed,
// sorted. Every blob is checked before anything is touched, so a missing
// one (CodeBlobMissing) leaves the workspace as it was. Files not in m are
// removed first, then differing files written, each crash safe; a file
// that is already right is not rewritten. A file over MaxFileBytes that
// is not in m, put there from outside, is left alone unless m needs its
// place: no checkpoint could have kept it, so removing it would lose it
// for good. A failure part way (a disk error, a corrupt blob) returns the
// paths changed so far with the error.
func Restore(d *Dir, b *Blobs, m Manifest) ([]string, error) {
	if err := checkManifest(b, m); err != nil {
		return nil, err
	}
	current := map[string]fs.FileInfo{}
	right := map[string]bool{} // files of m already as m has them
	err := d.withRoot(func(r *os.Root) error {
		_, err := d.walk(r, bases("", Roots), 0, func(rel string, info fs.FileInfo) error {
			current[rel] = info
			return nil
		})
		for p, e := range m {
			if info, ok := current[p]; err == nil && ok && info.Size() == e.Bytes {
				var sha string
				sha, _, err = hashFile(r, p)
				if errors.Is(err, fs.ErrNotExist) {
					err = nil
				}
				right[p] = err == nil && sha == e.SHA256
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	paths := m.Paths()
	var changed []string
	for _, p := range slices.Sorted(maps.Keys(current)) {
		if _, keep := m[p]; keep || current[p].Size() > MaxFileBytes && !holdsAny(paths, p) {
			continue
		}
		if err := d.Remove(p); err != nil {
			return changed, err
		}
		changed = append(changed, p)
	}
	for _, p := range paths {
		if right[p] {
			continue
		}
		if err := restoreFile(d, b, p, m[p].SHA256); err != nil {
			return changed, err
		}
		changed = append(changed, p)
	}
	slices.Sort(changed)
	return changed, nil
}

// holdsAny reports whether one of the sorted paths lies below dir.
func holdsAny(sorted []string, dir string) bool {
	prefix := dir + "/"
	i, _ := slices.BinarySearch(sorted, prefix)
	return i < len(sorted) && strings.HasPrefix(sorted[i], prefix)
}

// checkManifest refuses a manifest that names a bad path, a missing blob,
// or a file below another file, before Restore touches anything.
func checkManifest(b *Blobs, m Manifest) error {
	for _, p := range m.Paths() {
		if c, err := Clean(p, Roots); err != nil {
			return err
		} else if c != p {
			return apperr.Invalid("manifest path %q is not in normal form", p).WithDetails(map[string]any{"path": p})
		}
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if _, ok := m[dir]; ok {
				return apperr.Invalid("manifest has a file %s below the file %s", p, dir).
					WithDetails(map[string]any{"path": p})
			}
		}
		if !b.Has(m[p].SHA256) {
			return apperr.New(CodeBlobMissing, "checkpoint file %s needs blob %s, which is missing", p, m[p].SHA256).
				WithDetails(map[string]any{"path": p, "sha256": m[p].SHA256})
		}
	}
	return nil
}

// Verify checks, before anything changes, that Restore can bring m back:
// the manifest is well formed and every blob it names is there, readable
// and still hashes to its name. A rollback runs it before it touches the
// chat, so a missing or damaged blob changes nothing.
func Verify(b *Blobs, m Manifest) error {
	if err := checkManifest(b, m); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, p := range m.Paths() {
		sha := m[p].SHA256
		if seen[sha] {
			continue
		}
		seen[sha] = true
		if err := readBlob(b, sha); err != nil {
			return err
		}
	}
	return nil
}

// readBlob reads a blob through, checking its hash.
func readBlob(b *Blobs, sha string) error {
	f, sha, err := b.open(sha)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(io.Discard, newVerifyingReader(f, sha)); err != nil {
		if apperr.As(err) != nil {
			return err
		}
		return fmt.Errorf("workspace: blob %s: %w", sha, err)
	}
	return nil
}

// restoreFile writes one file from its blob, streaming and verifying it. A
// directory left where the file belongs (emptied by the removals) is
// pruned first.
func restoreFile(d *Dir, b *Blobs, p, sha string) error {
	t, err := d.resolve(p, false)
	if err != nil {
		return err
	}
	if t.info != nil && t.info.IsDir() {
		if err := pruneEmpty(t.abs); err != nil {
			return apperr.New(CodeNotAFile, "cannot restore %s: a directory with other content is in the way", p).
				WithDetails(map[string]any{"path": p})
		}
		if t, err = d.resolve(p, false); err != nil {
			return err
		}
	}
	f, sha, err := b.open(sha)
	if err != nil {
		return err
	}
	defer f.Close()
	return d.write(t, newVerifyingReader(f, sha))
}

// pruneEmpty removes a directory tree that holds only directories.
func pruneEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("workspace: %s is not empty", dir)
		}
		if err := pruneEmpty(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(dir)
}
