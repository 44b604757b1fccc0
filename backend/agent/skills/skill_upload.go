package skills

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// UploadFile is one file of a skill folder sent by a window: its path
// inside the folder ("SKILL.md", "examples/one.md") and its content. A
// browser can hand over a chosen folder's files but not the folder.
type UploadFile struct {
	Path string `json:"path"`
	Data []byte `json:"data"`
}

// InstallFiles installs a skill from uploaded files: they are written to a
// temporary folder outside the library, which Install then checks and
// copies like a folder the user chose. A path that is absolute, climbs out
// with "..", or is deeper than MaxInstallDepth is refused before anything
// is written. A common top folder (the chosen folder's own name, as
// browsers send it) is dropped.
func (l *Library) InstallFiles(files []UploadFile, opts InstallOptions) (Skill, error) {
	if len(files) == 0 {
		return Skill{}, invalid("no files")
	}
	if len(files) > MaxInstallFiles {
		return Skill{}, invalid("%d files; a skill holds at most %d", len(files), MaxInstallFiles)
	}
	var total int64
	rels := make([]string, len(files))
	for i, f := range files {
		total += int64(len(f.Data))
		if total > MaxInstallBytes {
			return Skill{}, invalid("the files pass %d MiB", MaxInstallBytes>>20)
		}
		p := strings.ReplaceAll(f.Path, "\\", "/")
		clean := path.Clean(p)
		switch {
		case p == "" || !utf8.ValidString(p) || strings.ContainsRune(p, 0):
			return Skill{}, invalid("file %d has no usable path", i)
		case path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(clean, ":"):
			return Skill{}, invalid("the path %q leaves the folder", p)
		case strings.Count(clean, "/") >= MaxInstallDepth:
			return Skill{}, invalid("the path %q is deeper than %d folders", p, MaxInstallDepth)
		}
		rels[i] = clean
	}
	rels = dropCommonTop(rels)
	tmp, err := os.MkdirTemp("", "hearth-skill-upload-")
	if err != nil {
		return Skill{}, err
	}
	defer os.RemoveAll(tmp)
	for i, rel := range rels {
		dst := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return Skill{}, invalid("the path %q cannot be made (%s)", rel, problemText(err))
		}
		if err := os.WriteFile(dst, files[i].Data, 0o600); err != nil {
			return Skill{}, invalid("the path %q cannot be written (%s)", rel, problemText(err))
		}
	}
	return l.Install(tmp, opts)
}

// dropCommonTop removes a first folder every path shares, unless a path is
// SKILL.md at the top already.
func dropCommonTop(rels []string) []string {
	top, _, ok := strings.Cut(rels[0], "/")
	if !ok {
		return rels
	}
	for _, r := range rels {
		first, _, ok := strings.Cut(r, "/")
		if !ok || first != top {
			return rels
		}
	}
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = r[len(top)+1:]
	}
	return out
}
