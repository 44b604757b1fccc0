package stcompat

import (
	"slices"
	"testing"
)

// TestTables: the export table is whole (ten modules, the version it was
// read from), every backed name is one SillyTavern's module exports (a
// typo would back nothing), and the lists hold no duplicates.
func TestTables(t *testing.T) {
	st := SillyTavern()
	if st.STVersion == "" || st.Source == "" {
		t.Errorf("version %q, source %q", st.STVersion, st.Source)
	}
	// EXTENSIONS.md §5's ten, and more that real extensions import.
	want := []string{"/lib.js", "/script.js", "/scripts/extensions.js", "/scripts/group-chats.js", "/scripts/i18n.js",
		"/scripts/popup.js", "/scripts/power-user.js", "/scripts/slash-commands.js", "/scripts/utils.js", "/scripts/world-info.js"}
	got := ModulePaths()
	for _, p := range append(want, "/lib/eventemitter.js", "/scripts/slash-commands/SlashCommandParser.js") {
		if !slices.Contains(got, p) {
			t.Fatalf("modules %v: no %s", got, p)
		}
	}
	for _, p := range want {
		if len(st.Modules[p]) == 0 {
			t.Errorf("%s exports nothing", p)
		}
		for name, kind := range st.Modules[p] {
			if !slices.Contains([]string{"function", "class", "let", "const"}, kind) {
				t.Errorf("%s %s: kind %q", p, name, kind)
			}
		}
	}
	for p, names := range Backed {
		exports, ok := st.Modules[p]
		if !ok {
			t.Errorf("backed module %s is not served", p)
		}
		for _, n := range names {
			if _, ok := exports[n]; !ok {
				t.Errorf("%s backs %q, which SillyTavern's module does not export", p, n)
			}
		}
		if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
			t.Errorf("%s: backed names not sorted or repeated", p)
		}
	}
	for p, names := range Data {
		for _, n := range names {
			if !slices.Contains(Backed[p], n) {
				t.Errorf("%s %s is served from SillyTavern's data but not listed in Backed", p, n)
			}
			if _, ok := st.Constants[p][n]; !ok {
				t.Errorf("%s %s is in Data but st-exports.json has no constant for it", p, n)
			}
		}
	}
	for what, list := range map[string][]string{"ContextMembers": ContextMembers, "DOMIDs": DOMIDs} {
		sorted := slices.Clone(list)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(list) {
			t.Errorf("%s repeats a name", what)
		}
	}
}
