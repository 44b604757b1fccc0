package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportExportST runs `hearth import st` and `hearth export st` end to
// end on a real data dir: the fixture library in, a SillyTavern user
// folder out, a second import skipping everything, and the exit codes of
// a failed item and of a bad command line.
func TestImportExportST(t *testing.T) {
	t.Parallel()
	fixture, err := filepath.Abs(filepath.Join("..", "library", "testdata", "default-user"))
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	code, stdout, stderr := run(&Program{}, "--data-dir", data, "import", "st", fixture)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Imported from " + fixture, "10 characters, 4 chats, 2 groups, 4 group chats (21 messages), 5 lorebooks, 3 personas, 2 presets, 2 group files kept as they were",
		"1 extension, turned off: turn one on with hearth ext enable ID", "Skipped", "chat chats/Nobody/orphan.jsonl: no character card"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("import output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "import: characters") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}

	out := filepath.Join(t.TempDir(), "st")
	code, stdout, stderr = run(&Program{}, "export", "st", out, "--data-dir", data)
	if code != 0 || !strings.Contains(stdout, "Exported to "+out) || !strings.Contains(stdout, "10 characters, 4 chats, 2 groups, 4 group chats (21 messages)") {
		t.Fatalf("export: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "characters", "v2_chara.png")); err != nil {
		t.Errorf("export wrote no card: %v", err)
	}
	code, _, stderr = run(&Program{}, "--data-dir", data, "export", "st", out)
	if code != 1 || !strings.Contains(stderr, "is not empty") {
		t.Errorf("export into a full folder: exit %d, %s", code, stderr)
	}

	code, stdout, _ = run(&Program{}, "--data-dir", data, "import", "st", fixture)
	if code != 0 || !strings.Contains(stdout, "0 characters, 0 chats, 0 groups, 0 group chats (0 messages)") || !strings.Contains(stdout, "already imported") {
		t.Errorf("re-import: exit %d\n%s", code, stdout)
	}

	broken := t.TempDir()
	if err := os.MkdirAll(filepath.Join(broken, "characters"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(broken, "chats"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "characters", "bad.png"), []byte("\x89PNG\r\n\x1a\nnope"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(&Program{}, "--data-dir", data, "import", "st", broken)
	if code != 1 || !strings.Contains(stdout, "Failed 1:") || !strings.Contains(stdout, "character characters/bad.png:") || !strings.Contains(stderr, "could not be imported") {
		t.Errorf("import with a broken card: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, _, stderr = run(&Program{}, "--data-dir", data, "import", "st", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "not a SillyTavern folder") {
		t.Errorf("import of an empty folder: exit %d, %s", code, stderr)
	}
}

func TestImportExportUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "missing the format and the folder"},
		{[]string{"import", "st"}, "missing the folder"},
		{[]string{"import", "zip", "x"}, `unknown format "zip"`},
		{[]string{"export", "st", "a", "b"}, `unexpected argument "b"`},
		{[]string{"export", "st", "a", "--self-test", "r.json"}, "--self-test"},
	} {
		code, _, stderr := run(&Program{}, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
