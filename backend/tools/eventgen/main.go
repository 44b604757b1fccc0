// Command eventgen writes what the frontend and the docs know of the event
// registry (backend/events), so neither can drift from it:
// frontend/src/abi/event-registry.gen.ts (the constant map, a payload type
// per event, the permission per event) and the events table of
// docs/API.md. Run it from the repository root after changing the
// registry:
//
//	go run ./backend/tools/eventgen
//
// Its test fails while either file is out of date.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"hearth/backend/events"
)

// The generated files, relative to the repository root.
const (
	tsPath   = "frontend/src/abi/event-registry.gen.ts"
	docsPath = "docs/API.md"
)

func main() {
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "eventgen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	specs := events.Specs()
	ts, err := generateTS(specs)
	if err != nil {
		return err
	}
	doc, err := os.ReadFile(filepath.Join(root, docsPath))
	if err != nil {
		return err
	}
	doc, err = generateDocs(doc, specs)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, tsPath), ts, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, docsPath), doc, 0o644)
}
