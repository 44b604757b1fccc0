package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// source makes a skill folder to install, outside the library.
func source(t *testing.T, name, body string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "download-"+name)
	write(t, src, "SKILL.md", skillMD(name, "Installed.", body))
	write(t, src, "scripts/run.sh", "#!/bin/sh\necho hi\n")
	write(t, src, "references/deep/a/b/notes.md", "notes")
	if err := os.Chmod(filepath.Join(src, "scripts", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return src
}

// entries lists the library's top level, to see nothing else was left.
func entries(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}

func TestInstall(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "skills") // created by the first install
	lib := Open(dir)

	s, err := lib.Install(source(t, "writer", "first"), InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "writer" || s.Path != "writer/SKILL.md" || s.Description != "Installed." {
		t.Errorf("installed %+v", s)
	}
	if got := entries(t, dir); got != "writer" {
		t.Errorf("library holds %s", got)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "writer", "references", "deep", "a", "b", "notes.md")); err != nil || string(b) != "notes" {
		t.Errorf("nested file: %q %v", b, err)
	}
	if runtime.GOOS != "windows" {
		if info, err := os.Stat(filepath.Join(dir, "writer", "scripts", "run.sh")); err != nil || info.Mode().Perm()&0o100 == 0 {
			t.Errorf("script lost its exec bit: %v", err)
		}
	}

	// Same name again: refused, then replaced on request.
	_, err = lib.Install(source(t, "writer", "second"), InstallOptions{})
	if apperr.CodeOf(err) != CodeExists {
		t.Fatalf("second install: %v", err)
	}
	if txt, _ := lib.Read("writer", All(), 0, 0); txt.Text != "first" {
		t.Errorf("refused install changed the skill: %q", txt.Text)
	}
	if _, err := lib.Install(source(t, "writer", "second"), InstallOptions{Replace: true}); err != nil {
		t.Fatal(err)
	}
	if txt, _ := lib.Read("writer", All(), 0, 0); txt.Text != "second" {
		t.Errorf("replace kept %q", txt.Text)
	}
	if got := entries(t, dir); got != "writer" {
		t.Errorf("replace left %s", got)
	}
	// Reinstalling a skill from its own folder works too.
	if _, err := lib.Install(filepath.Join(dir, "writer"), InstallOptions{Replace: true}); err != nil {
		t.Errorf("reinstall from the library: %v", err)
	}
	if txt, _ := lib.Read("writer", All(), 0, 0); txt.Text != "second" || entries(t, dir) != "writer" {
		t.Errorf("reinstall: %q, library %s", txt.Text, entries(t, dir))
	}
}

func TestInstallRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		make   func(t *testing.T) string
		reason string
	}{
		{"missing folder", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope") }, "cannot be read"},
		{"a file", func(t *testing.T) string {
			return filepath.Join(source(t, "x", "b"), "SKILL.md")
		}, "not a file"},
		{"no SKILL.md", func(t *testing.T) string {
			src := t.TempDir()
			write(t, src, "README.md", "hi")
			return src
		}, "has no SKILL.md"},
		{"bad front matter", func(t *testing.T) string {
			src := t.TempDir()
			write(t, src, "SKILL.md", "---\nname: Not Valid\n---\n")
			return src
		}, "is not a skill name"},
		{"symlink inside", func(t *testing.T) string {
			src := source(t, "linky", "b")
			symlink(t, "/etc/passwd", filepath.Join(src, "references", "passwd"))
			return src
		}, "references/passwd is a symlink"},
		{"symlinked folder", func(t *testing.T) string {
			link := filepath.Join(t.TempDir(), "link")
			symlink(t, source(t, "target", "b"), link)
			return link
		}, "the folder is a symlink"},
		{"symlinked SKILL.md", func(t *testing.T) string {
			src := t.TempDir()
			write(t, src, "real.md", skillMD("real", "x", "b"))
			symlink(t, "real.md", filepath.Join(src, "SKILL.md"))
			return src
		}, "must be a regular file"},
		{"too many files", func(t *testing.T) string {
			src := source(t, "many", "b")
			for i := range MaxInstallFiles {
				write(t, src, fmt.Sprintf("data/f%03d.txt", i), "x")
			}
			return src
		}, fmt.Sprintf("more than %d files", MaxInstallFiles)},
		{"too deep", func(t *testing.T) string {
			src := source(t, "deep", "b")
			write(t, src, "1/2/3/4/5/6/7/8/9.md", "x")
			return src
		}, "nests deeper than 8 levels"},
		{"too large", func(t *testing.T) string {
			src := source(t, "large", "b")
			f, err := os.Create(filepath.Join(src, "blob.bin"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(MaxInstallBytes); err != nil { // sparse: cheap
				t.Fatal(err)
			}
			return src
		}, "more than 20 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "skills")
			lib := Open(dir)
			_, err := lib.Install(c.make(t), InstallOptions{Replace: true})
			e := apperr.As(err)
			if e == nil || e.Code != CodeInvalid {
				t.Fatalf("err = %v, want %s", err, CodeInvalid)
			}
			if reason, _ := e.Details["reason"].(string); !strings.Contains(reason, c.reason) {
				t.Errorf("reason %q, want it to mention %q", reason, c.reason)
			}
			if got := entries(t, dir); got != "" {
				t.Errorf("a refused install left %s", got)
			}
		})
	}
}
