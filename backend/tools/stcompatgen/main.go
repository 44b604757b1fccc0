// Command stcompatgen writes the window's half of backend/extensions/stcompat,
// so what the compatibility report promises and what runs cannot drift:
//
//   - frontend/src/extensions/st/st-compat.gen.ts: the export table, the
//     backed names, getContext() members and DOM ids, for the runtime;
//   - frontend/public/<module path>: one ES module per compat path
//     (/script.js, /scripts/extensions.js, …) exporting every name
//     SillyTavern's module of that path exports, each bound to what the
//     runtime (globalThis.__hearthStCompat) gives for it, the `let` ones
//     live. Vite copies public/ to the top of dist/, where SillyTavern
//     extensions import them by relative path;
//   - the table of backed names in docs/API.md.
//
// Run it from the repository root after changing stcompat:
//
//	go run ./backend/tools/stcompatgen
//
// Its test fails while any file is out of date.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// tsPath and publicDir are relative to the repository root.
const (
	tsPath    = "frontend/src/extensions/st/st-compat.gen.ts"
	publicDir = "frontend/public"
)

func main() {
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "stcompatgen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	doc, err := os.ReadFile(filepath.Join(root, docsPath))
	if err != nil {
		return err
	}
	files, err := generate(doc)
	if err != nil {
		return err
	}
	for rel, body := range files {
		full := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, body, 0o644); err != nil {
			return err
		}
	}
	return nil
}
