package cli

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtCommands runs `hearth ext` end to end on a real data dir: a
// folder and a zip installed, listed, turned off and on, updated and
// removed, and the exit codes of a bad package and a bad command line.
func TestExtCommands(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	src := filepath.Join(t.TempDir(), "Mood Ext")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "manifest.json"), []byte(`{"display_name":"Mood","js":"index.js","version":"1.0"}`), 0o644)
	os.WriteFile(filepath.Join(src, "index.js"), []byte("export {}"), 0o644)
	broken := filepath.Join(t.TempDir(), "broken")
	os.MkdirAll(broken, 0o755)
	os.WriteFile(filepath.Join(broken, "manifest.json"), []byte(`{"js":"index.js"}`), 0o644)
	os.WriteFile(filepath.Join(broken, "index.js"), []byte(`import { oai_settings } from '../../../openai.js'; $('#send_but');`), 0o644)
	zipPath := filepath.Join(t.TempDir(), "notes.zip")
	f, _ := os.Create(zipPath)
	w := zip.NewWriter(f)
	for name, body := range map[string]string{"manifest.json": `{"js":"a.js","hearth":{"id":"notes"}}`, "a.js": "1"} {
		fw, _ := w.Create(name)
		fw.Write([]byte(body))
	}
	w.Close()
	f.Close()

	steps := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"ext", "list"}, 0, "No extensions installed."},
		{[]string{"ext", "install", src, "--enable"}, 0, "Mood-Ext  active"},
		{[]string{"ext", "install", zipPath}, 0, "notes  disabled"},
		{[]string{"ext", "install", src}, 1, "extension.exists"},
		{[]string{"ext", "disable", "Mood-Ext"}, 0, "disabled"},
		{[]string{"ext", "enable", "mood-ext"}, 0, "active"},
		{[]string{"ext", "update", "Mood-Ext"}, 0, "Mood"},
		{[]string{"ext", "list"}, 0, "works"},
		{[]string{"ext", "report", "Mood-Ext"}, 0, "Verdict: works (0 not provided"},
		{[]string{"ext", "install", broken}, 0, "wont_load (2)"},
		{[]string{"ext", "report", "broken"}, 0, "module    /scripts/openai.js: not provided by Hearth; the extension cannot load\n  element   #send_but"},
		{[]string{"ext", "report", "nobody"}, 1, "extension.not_found"},
		{[]string{"ext", "report"}, 2, "takes 1 argument"},
		{[]string{"ext", "update", "notes"}, 1, "extension.not_updatable"},
		{[]string{"ext", "remove", "--clean", "notes"}, 0, "Removed notes"},
		{[]string{"ext", "list"}, 0, "Mood-Ext"},
		{[]string{"ext", "enable", "nobody"}, 1, "extension.not_found"},
		{[]string{"ext", "install", filepath.Join(src, "index.js")}, 2, "neither a folder nor a .zip"},
		{[]string{"ext"}, 2, "missing the subcommand"},
		{[]string{"ext", "frob", "x"}, 2, `unknown subcommand "frob"`},
		{[]string{"ext", "enable"}, 2, "takes 1 argument"},
		{[]string{"ext", "enable", "x", "--clean"}, 2, "--clean with remove"},
	}
	for _, s := range steps {
		code, stdout, stderr := run(&Program{}, append([]string{"--data-dir", data}, s.args...)...)
		if code != s.code || !strings.Contains(stdout+stderr, s.out) {
			t.Errorf("hearth %v: exit %d, want %d with %q\nstdout: %s\nstderr: %s", s.args, code, s.code, s.out, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "extensions", "Mood-Ext", "index.js")); err != nil {
		t.Errorf("the folder install left no files: %v", err)
	}
}
