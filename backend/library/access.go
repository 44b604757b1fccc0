package library

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"hearth/backend/apperr"
)

// CodePathNotAllowed: the path is outside the folders this process may
// use for libraries, or inside Hearth's own data folder. A confined
// process (hearth serve) answers it the same way whatever is at the path,
// so a remote caller learns nothing of the machine's files from it.
const CodePathNotAllowed = "library.path_not_allowed"

// Access is which of the host's folders library imports and exports may
// read and write. The desktop window's caller is the person at the machine,
// who picks folders in the system's dialogs: any absolute path will do. A
// served library's callers are whoever reached the server, so `hearth
// serve` confines them to the folders its operator named (--library-root),
// none by default. Hearth's own data folder is never one of them: an export
// into an agent workspace, or an import of hearth.db's neighbours, would
// hand files to callers that no other method reads or writes.
type Access struct {
	dataDir  string
	confined bool
	// roots are the allowed folders, symbolic links resolved; given are
	// the same as the operator wrote them (cleaned), which a caller may
	// use too.
	roots []string
	given []string
}

// NewAccess returns the policy for a process whose data folder is dataDir
// (which must exist). Unconfined, any absolute path outside dataDir is
// allowed; confined, only paths under roots, each an existing folder
// outside dataDir (none turns library paths off).
func NewAccess(dataDir string, confined bool, roots []string) (Access, error) {
	realData, err := filepath.EvalSymlinks(dataDir)
	if err != nil {
		return Access{}, fmt.Errorf("resolve the data folder %s: %w", dataDir, err)
	}
	a := Access{dataDir: realData, confined: confined}
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			abs, err := filepath.Abs(r)
			if err != nil {
				return Access{}, fmt.Errorf("library root %s: %w", r, err)
			}
			r = abs
		}
		r = filepath.Clean(r)
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			return Access{}, fmt.Errorf("library root %s: %w", r, errors.Unwrap(err))
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			return Access{}, fmt.Errorf("library root %s is not a folder", r)
		}
		if within(real, realData) {
			return Access{}, fmt.Errorf("library root %s is inside Hearth's data folder %s: name a folder outside it", r, realData)
		}
		a.roots = append(a.roots, real)
		a.given = append(a.given, r)
	}
	return a, nil
}

// Confined tells whether paths are limited to Roots.
func (a Access) Confined() bool { return a.confined }

// Roots are the allowed folders, as the operator named them; nil when
// unconfined.
func (a Access) Roots() []string {
	if !a.confined {
		return nil
	}
	return append([]string{}, a.given...)
}

// within tells whether p is base or lies under it; both are clean and
// absolute.
func within(p, base string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// lexical checks what can be told of a path without the file system: it
// is absolute, holds no NUL and no ".." element, and is no network (UNC)
// or device path, which on Windows reach other machines or raw devices.
// It returns the cleaned path.
func lexical(p string) (string, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return "", apperr.Invalid("path is required: a SillyTavern folder on this machine")
	case strings.ContainsRune(p, 0):
		return "", apperr.Invalid("path holds a NUL character")
	case strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, `//`) || strings.HasPrefix(p, `/\`) || strings.HasPrefix(p, `\/`):
		return "", apperr.Invalid("%q is a network or device path: give a folder on this machine's disks", p)
	}
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", apperr.Invalid("%q holds \"..\": give the folder's full path without it", p)
		}
	}
	if !filepath.IsAbs(p) {
		return "", apperr.Invalid("%q is not an absolute path: give the folder's full path (for example /home/me/SillyTavern)", p)
	}
	return filepath.Clean(p), nil
}

// notAllowed is the answer for a path outside what may be used. When
// confined it says the same for every such path, whatever is there;
// unconfined, the one such path is in the data folder.
func (a Access) notAllowed(p string) *apperr.Error {
	roots := a.Roots()
	if a.confined && len(roots) == 0 {
		return apperr.New(CodePathNotAllowed,
			"importing and exporting SillyTavern folders by path is off on this server: its operator can allow the folders under DIR by starting hearth serve with --library-root DIR").
			WithDetails(map[string]any{"roots": []string{}})
	}
	if a.confined {
		return apperr.New(CodePathNotAllowed, "%q is not inside a folder this server may use for SillyTavern libraries (%s)", p, strings.Join(roots, ", ")).
			WithDetails(map[string]any{"roots": roots})
	}
	return apperr.New(CodePathNotAllowed, "%q is inside Hearth's own data folder: pick a folder outside %s", p, a.dataDir).
		WithDetails(map[string]any{"roots": []string{}})
}

// holdsDataDir is the answer for an import of a folder that holds the
// data folder (uniform when confined, as notAllowed).
func (a Access) holdsDataDir(p string) *apperr.Error {
	if a.confined {
		return a.notAllowed(p)
	}
	return apperr.New(CodePathNotAllowed, "%q holds Hearth's own data folder (%s): pick the SillyTavern folder itself", p, a.dataDir).
		WithDetails(map[string]any{"roots": []string{}})
}

// allows tells whether the real path p may be used: under a root when
// confined, and never in the data folder.
func (a Access) allows(p string) bool {
	if within(p, a.dataDir) {
		return false
	}
	if !a.confined {
		return true
	}
	for _, r := range a.roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

// lexicallyUnder tells whether the clean path p is spelled under one of
// the roots, as given or as resolved, so a confined process refuses a path
// elsewhere before looking at the disk.
func (a Access) lexicallyUnder(p string) bool {
	if !a.confined {
		return true
	}
	for i := range a.roots {
		if within(p, a.roots[i]) || within(p, a.given[i]) {
			return true
		}
	}
	return false
}

// resolve checks p and returns its real path: symbolic links resolved in
// the part that exists, the rest (which does not exist yet) joined to it;
// missing counts the trailing elements that do not exist.
func (a Access) resolve(p string) (real string, missing int, err error) {
	clean, err := lexical(p)
	if err != nil {
		return "", 0, err
	}
	if !a.lexicallyUnder(clean) {
		return "", 0, a.notAllowed(p)
	}
	real, missing, err = realPath(clean)
	if err != nil {
		if a.confined {
			return "", 0, a.notAllowed(p)
		}
		return "", 0, apperr.New(CodeNotFound, "cannot read %s: %v", p, errors.Unwrap(err)).WithDetails(map[string]any{"path": p})
	}
	if !a.allows(real) {
		return "", 0, a.notAllowed(p)
	}
	return real, missing, nil
}

// realPath resolves the symbolic links of the longest part of the clean,
// absolute path p that exists and joins the rest to it; missing counts
// the elements of that rest. An element that is a link to nothing counts
// as missing: creating it then fails, as it exists.
func realPath(p string) (string, int, error) {
	var tail []string
	cur := p
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(tail) - 1; i >= 0; i-- {
				r = filepath.Join(r, tail[i])
			}
			return r, len(tail), nil
		}
		parent := filepath.Dir(cur)
		if !errors.Is(err, fs.ErrNotExist) || parent == cur {
			return "", 0, err
		}
		tail = append(tail, filepath.Base(cur))
		cur = parent
	}
}

// importRoot resolves p for an import: it must exist.
func (a Access) importRoot(p string) (string, error) {
	real, missing, err := a.resolve(p)
	if err != nil {
		return "", err
	}
	if missing > 0 {
		return "", apperr.New(CodeNotFound, "cannot read %s: there is no such file or folder", p).WithDetails(map[string]any{"path": p})
	}
	if within(a.dataDir, real) {
		return "", a.holdsDataDir(p)
	}
	return real, nil
}

// located checks the user folder an import found inside its path (an
// install's data/<user> may be a link to anywhere).
func (a Access) located(p, userFolder string) (string, error) {
	real, err := filepath.EvalSymlinks(userFolder)
	if err != nil {
		return "", apperr.New(CodeNotFound, "cannot read %s: %v", p, errors.Unwrap(err)).WithDetails(map[string]any{"path": p})
	}
	if !a.allows(real) {
		return "", a.notAllowed(p)
	}
	if within(a.dataDir, real) {
		return "", a.holdsDataDir(p)
	}
	return real, nil
}

// ReadRoot checks that the folder p may be read under the same rule as
// an import (an extension installed from a folder follows it too) and
// returns its real path.
func (a Access) ReadRoot(p string) (string, error) { return a.importRoot(p) }
