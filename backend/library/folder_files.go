package library

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Bounds on what an import reads beyond the services' own file limits. A
// folder holding more entries than maxEntries is read up to that many (the
// rest reported skipped): a library is hostile input like any file.
const (
	maxEntries       = 100_000
	maxSettingsBytes = 32 << 20 // settings.json with extension settings can reach megabytes
	maxGroupBytes    = 16 << 20 // a group definition is a few KB
)

// folder is a user folder being read: its real, absolute path.
type folder struct{ root string }

// entry is one file or folder inside the user folder.
type entry struct {
	rel   string // '/'-separated, relative to the user folder
	abs   string // the real path (links resolved)
	name  string
	isDir bool
	size  int64
}

// list returns the entries of the folder rel, sorted by name. A missing
// folder is empty. Symbolic links are followed only when they lead inside
// the user folder — rel itself (characters/ may be a link) and its
// entries; the others come back in outside, never read.
func (f folder) list(rel string) (entries []entry, outside []string, err error) {
	dir, err := filepath.EvalSymlinks(filepath.Join(f.root, filepath.FromSlash(rel)))
	if errIsNotExist(err) {
		return nil, nil, nil
	}
	if err == nil && !f.inside(dir) {
		return nil, []string{rel}, nil
	}
	var des []os.DirEntry
	if err == nil {
		des, err = os.ReadDir(dir)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	sort.Slice(des, func(i, j int) bool { return des[i].Name() < des[j].Name() })
	for _, de := range des {
		if len(entries) >= maxEntries {
			outside = append(outside, path.Join(rel, de.Name()))
			continue
		}
		e := entry{rel: path.Join(rel, de.Name()), abs: filepath.Join(dir, de.Name()), name: de.Name()}
		if de.Type()&os.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(e.abs)
			if err != nil || !f.inside(real) {
				outside = append(outside, e.rel)
				continue
			}
			e.abs = real
		}
		st, err := os.Stat(e.abs)
		if err != nil {
			continue
		}
		e.isDir, e.size = st.IsDir(), st.Size()
		if !e.isDir && !st.Mode().IsRegular() {
			continue // sockets, devices: never SillyTavern's
		}
		entries = append(entries, e)
	}
	return entries, outside, nil
}

// inside tells whether the real path p lies within the user folder.
func (f folder) inside(p string) bool { return within(p, f.root) }

// read reads e, refusing a file over limit bytes before reading it (and
// one that grew past it while being read).
func read(e entry, limit int) ([]byte, error) {
	if e.size > int64(limit) {
		return nil, fmt.Errorf("the file is %s; at most %s are read", sizeText(e.size), sizeText(int64(limit)))
	}
	fh, err := os.Open(e.abs)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, fmt.Errorf("the file is over %s", sizeText(int64(limit)))
	}
	return data, nil
}

// sizeText writes a byte count for people.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// hashOf is the hex SHA-256 of the parts, each length-prefixed so that
// two splits of the same bytes differ.
func hashOf(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// stem is a file name without its extension.
func stem(name string) string { return strings.TrimSuffix(name, path.Ext(name)) }
