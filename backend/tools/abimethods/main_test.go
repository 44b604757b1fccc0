package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// root is the module root, seen from this package.
const root = "../../.."

var routed = sync.OnceValues(func() ([]string, error) {
	dir, err := os.MkdirTemp("", "hearth-abimethods-test-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	return routedMethods(dir)
})

// TestGeneratedFileIsCurrent fails when the committed method list is not
// what the router serves: a method was added, renamed or dropped in Go
// without regenerating, so the Vitest check would hold the ABI to an old
// list.
func TestGeneratedFileIsCurrent(t *testing.T) {
	t.Parallel()
	methods, err := routed()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, genFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, render(methods)) {
		t.Fatalf("%s is not the router's method list: run go run ./backend/tools/abimethods", genFile)
	}
}

// TestRoutedMethodsAreTheWindows holds routedMethods to what a desktop
// window routes: the optional namespaces and the desktop's own methods in,
// the self-test's out.
func TestRoutedMethodsAreTheWindows(t *testing.T) {
	t.Parallel()
	methods, err := routed()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"host.capabilities", "chat.getStMessages", "worldinfo.list", "library.importST", "agent.profiles.list", "chat.saveJsonl", "library.pickFolder"} {
		if !slices.Contains(methods, m) {
			t.Errorf("%s is not in the list", m)
		}
	}
	if slices.Contains(methods, "selftest.info") {
		t.Error("the list has selftest.info")
	}
	if !slices.IsSorted(methods) {
		t.Error("the list is not sorted")
	}
}
