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

// Scan checkpoints the whole workspace: every regular file under the Roots
// is put into b and listed. Files over MaxFileBytes (dropped in from
// outside) are streamed rather than refused, so a restore brings back
// exactly what was there.
func Scan(d *Dir, b *Blobs) (Manifest, error) {
	m := Manifest{}
	err := d.withRoot(func(r *os.Root) error {
		return d.walk(bases("", Roots), 0, func(rel string, _ fs.FileInfo) error {
			e, err := putFile(r, b, rel)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			m[rel] = e
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return m, nil
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
func Update(d *Dir, b *Blobs, prev Manifest, changed []string) (Manifest, error) {
	m := maps.Clone(prev)
	if m == nil {
		m = Manifest{}
	}
	err := d.withRoot(func(r *os.Root) error {
		for _, p := range changed {
			if err := update(d, r, b, m, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func update(d *Dir, r *os.Root, b *Blobs, m Manifest, p string) error {
	clean, err := Clean(p, Roots)
	if err != nil {
		return nil // Scan never sees a name the policy refuses; nor does Update
	}
	t, err := d.resolve(clean, false)
	if e := apperr.As(err); e != nil && e.Details["reason"] == ReasonSymlink {
		// Scan never follows links, so neither does a checkpoint.
		t, err = target{rel: clean}, nil
	}
	if err != nil {
		return err
	}
	_, wasFile := m[t.rel]
	switch {
	case t.info != nil && t.blocker == "" && t.info.Mode().IsRegular():
		if !wasFile {
			dropPrefix(m, t.rel) // a new file may stand where a folder was
		}
		e, err := putFile(r, b, t.rel)
		if errors.Is(err, fs.ErrNotExist) {
			delete(m, t.rel)
			return nil
		}
		if err != nil {
			return err
		}
		m[t.rel] = e
	case t.info != nil && t.blocker == "" && t.info.IsDir():
		delete(m, t.rel)
		dropPrefix(m, t.rel)
		return d.walk([]string{t.rel}, 0, func(rel string, _ fs.FileInfo) error {
			e, err := putFile(r, b, rel)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err == nil {
				m[rel] = e
			}
			return err
		})
	case wasFile:
		delete(m, t.rel)
	default:
		dropPrefix(m, t.rel) // it may have been a folder
	}
	return nil
}

// dropPrefix removes every entry below dir. It costs O(len(m)) but runs
// only for directory changes.
func dropPrefix(m Manifest, dir string) {
	prefix := dir + "/"
	maps.DeleteFunc(m, func(p string, _ Entry) bool { return strings.HasPrefix(p, prefix) })
}

// putFile puts the file at rel inside r into b.
func putFile(r *os.Root, b *Blobs, rel string) (Entry, error) {
	f, err := r.Open(filepath.FromSlash(rel))
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Entry{}, fmt.Errorf("workspace: checkpoint %s: %w", rel, err)
	}
	if fi.Size() > MaxFileBytes {
		sha, n, err := b.putReader(f)
		return Entry{SHA256: sha, Bytes: n}, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return Entry{}, fmt.Errorf("workspace: checkpoint %s: %w", rel, err)
	}
	sha, err := b.Put(data)
	return Entry{SHA256: sha, Bytes: int64(len(data))}, err
}

// Restore makes the workspace equal to m and returns the paths it changed,
// sorted. Every blob is checked before anything is touched, so a missing
// one (CodeBlobMissing) leaves the workspace as it was. Files not in m are
// removed first, then differing files written, each crash safe; a file
// that is already right is not rewritten. A failure part way (a disk
// error, a corrupt blob) returns the paths changed so far with the error.
func Restore(d *Dir, b *Blobs, m Manifest) ([]string, error) {
	if err := checkManifest(b, m); err != nil {
		return nil, err
	}
	current := map[string]string{}
	err := d.withRoot(func(r *os.Root) error {
		return d.walk(bases("", Roots), 0, func(rel string, _ fs.FileInfo) error {
			sha, _, err := hashFile(r, rel)
			if err == nil {
				current[rel] = sha
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, p := range slices.Sorted(maps.Keys(current)) {
		if _, keep := m[p]; !keep {
			if err := d.Remove(p); err != nil {
				return changed, err
			}
			changed = append(changed, p)
		}
	}
	for _, p := range m.Paths() {
		e := m[p]
		if current[p] == e.SHA256 {
			continue
		}
		if err := restoreFile(d, b, p, e.SHA256); err != nil {
			return changed, err
		}
		changed = append(changed, p)
	}
	slices.Sort(changed)
	return changed, nil
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
