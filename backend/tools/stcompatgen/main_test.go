package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/extensions/stcompat"
)

// root is the repository root, from this package's directory.
const root = "../../.."

// TestGeneratedFilesAreCurrent regenerates every file in memory: one
// differing from what is checked in means stcompat changed without
// `go run ./backend/tools/stcompatgen`.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join(root, docsPath))
	if err != nil {
		t.Fatal(err)
	}
	files, err := generate(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(stcompat.ModulePaths())+2 {
		t.Fatalf("%d files", len(files))
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is out of date (%v): run go run ./backend/tools/stcompatgen", rel, err)
		}
	}
}

// TestModuleExportsEveryName: a module exports each of SillyTavern's
// names exactly once, binds the let ones live and the rest once.
func TestModuleExportsEveryName(t *testing.T) {
	t.Parallel()
	st := stcompat.Exports{STVersion: "9.9", Modules: map[string]map[string]string{
		"/m.js": {"chat": "let", "go": "function", "default": "const", "a-b": "const"},
	}}
	text := string(generateModule(st, "/m.js"))
	for _, want := range []string{
		`const { values: v, live } = rt.module("/m.js");`,
		`const e0 = v["a-b"];`, `let e1 = v["chat"];`, `const e2 = v["default"];`, `const e3 = v["go"];`,
		"live((x) => {\n  e1 = x[\"chat\"];\n});",
		"  e0 as \"a-b\",\n  e1 as chat,\n  e2 as default,\n  e3 as go,\n};\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("module lacks %q:\n%s", want, text)
		}
	}
}

func TestExportName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"chat": "chat", "$": "$", "_x9": "_x9", "9a": `"9a"`, "a b": `"a b"`, "": `""`, "é": `"é"`} {
		if got := exportName(in); got != want {
			t.Errorf("exportName(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDocsMarkers(t *testing.T) {
	t.Parallel()
	st := stcompat.SillyTavern()
	for _, doc := range []string{"no markers", docsEnd + docsBegin, docsBegin + docsBegin + docsEnd} {
		if _, err := generateDocs([]byte(doc), st); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
	out, err := generateDocs([]byte("a\n"+docsBegin+"\nold\n"+docsEnd+"\nb"), st)
	if err != nil || !strings.Contains(string(out), "| `/script.js` | `callPopup`") || strings.Contains(string(out), "old") || !strings.HasSuffix(string(out), docsEnd+"\nb") {
		t.Errorf("%v\n%s", err, out)
	}
}
