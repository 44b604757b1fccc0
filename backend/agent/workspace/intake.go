package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"hearth/backend/apperr"
)

// Skip is a file a checkpoint left out of its manifest, and why: its
// Reason is LimitFileBytes (over MaxFileBytes), LimitFiles or LimitBytes.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Bytes  int64  `json:"bytes"`
}

// MaxSkipsListed bounds the files a Skipped names.
const MaxSkipsListed = 20

// Skipped is what a checkpoint left out: files over MaxFileBytes, and
// files past the workspace's caps on files and bytes, which only files
// put there from outside can reach (a write through Dir is refused
// before). Such files are never read, stored or restored. Files names
// the first MaxSkipsListed of Count; More is set when a walk stopped at
// a cap, so that more may have been left out unseen.
type Skipped struct {
	Count int    `json:"count"`
	Files []Skip `json:"files"`
	More  bool   `json:"more"`
}

// None reports whether nothing was left out.
func (s Skipped) None() bool { return s.Count == 0 && !s.More }

func (s *Skipped) add(rel, reason string, n int64) {
	s.Count++
	if len(s.Files) < MaxSkipsListed {
		s.Files = append(s.Files, Skip{Path: rel, Reason: reason, Bytes: n})
	}
}

// intake takes files into a manifest within the caps: a file over
// MaxFileBytes is left out, and so is one that would take the manifest
// past MaxWorkspaceFiles or MaxWorkspaceBytes (a file already listed
// counts only with its new size). Once the manifest holds
// MaxWorkspaceFiles files, a walk stops: nothing more can be taken.
type intake struct {
	r       *os.Root
	b       *Blobs
	m       Manifest
	bytes   int64 // the sizes of m's files, summed
	skipped Skipped
}

func newIntake(b *Blobs, prev Manifest) *intake {
	in := &intake{b: b, m: maps.Clone(prev)}
	if in.m == nil {
		in.m = Manifest{}
	}
	for _, e := range in.m {
		in.bytes += e.Bytes
	}
	return in
}

// take puts the file at rel, which the walk or resolve saw as info (an
// Lstat), into b and the manifest, or leaves it out. A file gone, or
// swapped for another (a link, say) since info was taken, is dropped.
func (in *intake) take(rel string, info fs.FileInfo) error {
	in.drop(rel)
	size := info.Size()
	switch {
	case size > MaxFileBytes:
		in.skipped.add(rel, LimitFileBytes, size)
		return nil
	case len(in.m) >= MaxWorkspaceFiles:
		in.skipped.add(rel, LimitFiles, size)
		in.skipped.More = true
		return fs.SkipAll
	case in.bytes+size > MaxWorkspaceBytes:
		in.skipped.add(rel, LimitBytes, size)
		return nil
	}
	e, err := putFile(in.r, in.b, rel, info)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errSwapped) {
		return nil
	}
	if apperr.CodeOf(err) == CodeFileTooLarge { // it grew since info
		in.skipped.add(rel, LimitFileBytes, MaxFileBytes+1)
		return nil
	}
	if err != nil {
		return err
	}
	if in.bytes+e.Bytes > MaxWorkspaceBytes {
		in.skipped.add(rel, LimitBytes, e.Bytes)
		return nil
	}
	in.m[rel], in.bytes = e, in.bytes+e.Bytes
	return nil
}

// drop removes rel from the manifest.
func (in *intake) drop(rel string) {
	if e, ok := in.m[rel]; ok {
		in.bytes -= e.Bytes
		delete(in.m, rel)
	}
}

// dropPrefix removes every entry below dir. It costs O(len(m)) but runs
// only for directory changes.
func (in *intake) dropPrefix(dir string) {
	prefix := dir + "/"
	maps.DeleteFunc(in.m, func(p string, e Entry) bool {
		if strings.HasPrefix(p, prefix) {
			in.bytes -= e.Bytes
			return true
		}
		return false
	})
}

// errSwapped: a link, or something else than a regular file, took the
// place of the file looked at before it was opened.
var errSwapped = errors.New("workspace: a link or a special file took the file's place")

// putFile puts the regular file at rel inside r into b. It never reads
// through a link: info is an Lstat of rel, and a link swapped in since is
// errSwapped (see swappedForLink). It reads at most MaxFileBytes+1
// bytes, and a file bigger than MaxFileBytes is CodeFileTooLarge, not
// stored.
func putFile(r *os.Root, b *Blobs, rel string, info fs.FileInfo) (Entry, error) {
	f, err := r.Open(filepath.FromSlash(rel))
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Entry{}, fmt.Errorf("workspace: checkpoint %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() || swappedForLink(r, rel, fi, info) {
		return Entry{}, errSwapped
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return Entry{}, fmt.Errorf("workspace: checkpoint %s: %w", rel, err)
	}
	if len(data) > MaxFileBytes {
		return Entry{}, tooLarge(rel, int64(len(data)))
	}
	sha, err := b.Put(data)
	return Entry{SHA256: sha, Bytes: int64(len(data))}, err
}
