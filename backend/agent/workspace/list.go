package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"hearth/backend/apperr"
)

// MaxListFiles bounds one listing, so a workspace full of files cannot
// flood a tool result; the listing then reports itself truncated.
const MaxListFiles = 2000

// MaxListDepth is the deepest a listing goes (AGENT.md §5: depth ≤ 4).
const MaxListDepth = 4

// CheckListDepth refuses a listing depth outside 1..MaxListDepth. The
// host's listWorkspaceFiles checks a depth it was given with it; the
// model's list tool keeps List's clamping.
func CheckListDepth(depth int) error {
	if depth < 1 || depth > MaxListDepth {
		return apperr.Invalid("depth must be between 1 and %d, got %d", MaxListDepth, depth).
			WithDetails(map[string]any{"field": "depth", "min": 1, "max": MaxListDepth, "got": depth})
	}
	return nil
}

// FileInfo is one file of a listing, in the shape of the ABI's
// listWorkspaceFiles result.
type FileInfo struct {
	Path       string `json:"path"`
	Bytes      int64  `json:"bytes"`
	SHA256     string `json:"sha256"`
	ModifiedMs int64  `json:"modifiedMs"`
}

// List returns the regular files under rel, sorted by path, with their
// size, hash and modification time. Depth counts directory levels below
// rel and is clamped to 1..MaxListDepth: 1 lists only rel's own files. With
// rel "" (or ".") every root is listed, each counted from itself, so
// List("", 1) is the files directly in the roots. A rel naming a file
// lists that file. After MaxListFiles files (or a walk cut short by a
// workspace far past its caps) it stops and reports truncated.
// Symlinks and in-flight temp files are never listed.
func (d *Dir) List(rel string, depth int) ([]FileInfo, bool, error) {
	depth = min(max(depth, 1), MaxListDepth)
	t, err := d.resolve(rel, true)
	if err != nil {
		return nil, false, err
	}
	if t.info == nil || t.blocker != "" {
		return nil, false, notFound(t.rel)
	}
	var files []FileInfo
	truncated := false
	err = d.withRoot(func(r *os.Root) error {
		cut, err := d.walk(r, bases(t.rel, Roots), depth, func(rel string, info fs.FileInfo) error {
			if len(files) == MaxListFiles {
				truncated = true
				return fs.SkipAll
			}
			sum, n, err := hashFile(r, rel)
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walked
			}
			if err != nil {
				return err
			}
			files = append(files, FileInfo{Path: rel, Bytes: n, SHA256: sum, ModifiedMs: info.ModTime().UnixMilli()})
			return nil
		})
		truncated = truncated || cut
		return err
	})
	if err != nil {
		return nil, false, err
	}
	slices.SortFunc(files, func(a, b FileInfo) int { return strings.Compare(a.Path, b.Path) })
	return files, truncated, nil
}

// bases expands a cleaned directory into the directories to walk: rel
// itself, or for the workspace root every root in visible, in sorted order.
func bases(rel string, visible []string) []string {
	if rel != "" {
		return []string{rel}
	}
	var out []string
	for _, r := range Roots {
		if slices.Contains(visible, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// hashFile returns the lowercase hex SHA-256 and size of a file inside r,
// streaming so a large file costs no memory.
func hashFile(r *os.Root, rel string) (string, int64, error) {
	f, err := r.Open(filepath.FromSlash(rel))
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("workspace: hash %s: %w", rel, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
