// Package backend holds the test of how Hearth's packages may import one
// another; the packages themselves are its subdirectories.
package backend

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is the module path (go.mod); root is its directory, seen from here.
const (
	module = "hearth"
	root   = ".."
)

// layers ranks every package of the module, bottom up (STYLE §1: imports
// point one way, transport → host → domain → store). A package may import
// packages of its own layer or of a layer below it, never one above: the
// app wires the host and every service, the host serves the domains, the
// domains keep their data in the store, and the libraries import none of
// them. A pattern "x/..." is x and its subpackages, as for the go command;
// "." is package main at the module root.
var layers = []struct {
	name string
	pkgs []string
}{
	{"libraries", []string{"backend/apperr", "backend/jsonx", "backend/internal/...", "backend/cards", "backend/providers/...", "backend/prompt", "backend/extensions/stcompat"}},
	{"infrastructure", []string{"backend/store", "backend/events/...", "backend/media"}},
	{"domains", []string{"backend/characters", "backend/groups", "backend/chats/...", "backend/search", "backend/state", "backend/connections", "backend/personas", "backend/extensions",
		"backend/presets", "backend/worldinfo", "backend/generate", "backend/agent/...", "backend/library"}},
	{"host", []string{"backend/host/..."}},
	{"edges", []string{"backend/transport/...", "backend/wailsbridge", "backend/selftest"}},
	{"app", []string{"backend/app/..."}},
	{"commands", []string{".", "backend/cli", "backend/tools/..."}},
}

// TestImportsPointDown fails for every import of a package from a layer
// above the importer's, and for every package no layer names (place a new
// package before it can import anything). Only non-test files count, read
// whatever their build tags (the desktop's app.go, cgo files): a _test.go
// file may open a whole app to test a domain through it, as the crash and
// contract tests do, because nothing else compiles against a test.
func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	imports := moduleImports(t)
	if len(imports) < 20 {
		t.Fatalf("found only %d packages under %s: is root right?", len(imports), root)
	}
	for _, v := range violations(imports) {
		t.Error(v)
	}
}

// TestViolationsNameUpwardImports holds violations to what it must catch:
// the host importing the app (the arrow backend/host/hosttest once drew),
// a library importing a domain, and a package in no layer; not the
// imports that point down or sideways.
func TestViolationsNameUpwardImports(t *testing.T) {
	t.Parallel()
	got := violations(map[string][]string{
		"backend/host":          {"backend/chats", "backend/app"},
		"backend/host/hosttest": {"backend/app"},
		"backend/internal/x":    {"backend/chats"},
		"backend/chats":         {"backend/characters", "backend/store", "backend/internal/msgorder"},
		"backend/app/apptest":   {"backend/app", "backend/host"},
		"backend/elsewhere":     nil,
	})
	want := []string{
		"package backend/elsewhere is in no layer",
		"backend/host (host) imports backend/app (app)",
		"backend/host/hosttest (host) imports backend/app (app)",
		"backend/internal/x (libraries) imports backend/chats (domains)",
	}
	if len(got) != len(want) {
		t.Fatalf("violations:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("violation %d = %q, want it to say %q", i, got[i], w)
		}
	}
}

// violations lists, sorted by package, every import that points up the
// layers and every package in no layer.
func violations(imports map[string][]string) []string {
	pkgs := make([]string, 0, len(imports))
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var out []string
	for _, p := range pkgs {
		from, ok := layerOf(p)
		if !ok {
			out = append(out, fmt.Sprintf("package %s is in no layer: add it to layers in backend/layers_test.go", p))
			continue
		}
		for _, imp := range imports[p] {
			if to, ok := layerOf(imp); ok && to > from {
				out = append(out, fmt.Sprintf("%s (%s) imports %s (%s): imports point down the layers, %s", p, layers[from].name, imp, layers[to].name, layerOrder()))
			}
		}
	}
	return out
}

// layerOf is the index in layers of pkg (module-relative, "." for the root).
func layerOf(pkg string) (int, bool) {
	for i, l := range layers {
		for _, pattern := range l.pkgs {
			tree, isTree := strings.CutSuffix(pattern, "/...")
			if pkg == pattern || isTree && (pkg == tree || strings.HasPrefix(pkg, tree+"/")) {
				return i, true
			}
		}
	}
	return 0, false
}

func layerOrder() string {
	names := make([]string, len(layers))
	for i := range layers {
		names[len(layers)-1-i] = layers[i].name
	}
	return strings.Join(names, " → ")
}

// moduleImports reads every non-test Go file under root and returns, per
// package (module-relative directory), the module's packages it imports.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" || name == "frontend" || name == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			if imp == module {
				out[pkg] = append(out[pkg], ".")
			} else if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				out[pkg] = append(out[pkg], path.Clean(rest))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return out
}
