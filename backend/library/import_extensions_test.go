package library_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/app"
	"hearth/backend/extensions"
	"hearth/backend/library"
)

// The fixture's extensions: the user's (its folder name sanitized to the
// id) and the install's global one, with their extension_settings
// entries in testdata/default-user/settings.json.
const (
	userExtFolder   = "Echo Notes"
	userExtID       = "Echo-Notes"
	globalExtID     = "Clockwork"
	globalExtRel    = "public/scripts/extensions/third-party/Clockwork"
	userExtSettings = `{"lines": 5, "echo": true}`
	globalSettings  = `{"format": "12h"}`
)

// storedSettings reads what the import carried into id's storage: the
// settings value and the extension_settings key it came from.
func storedSettings(t testing.TB, a *app.App, id string) (value, key json.RawMessage) {
	t.Helper()
	share, err := a.Extensions.StorageGet(t.Context(), id, library.StorageKeyExtensionSettings)
	if err != nil {
		t.Fatal(err)
	}
	if string(share) == "null" {
		return share, share
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(share, &m); err != nil || len(m) != 1 {
		t.Fatalf("%s's share of extension_settings is %s, want one key", id, share)
	}
	for k, v := range m {
		key, _ = json.Marshal(k)
		value = v
	}
	return value, key
}

// checkImportedExtensions: after TestImportLibrary's import of the whole
// install, the user's and the global extension are installed, turned off,
// from their SillyTavern folders, each with its own settings and nothing
// else in its storage.
func checkImportedExtensions(t *testing.T, a *app.App, installDir string) {
	t.Helper()
	ctx := t.Context()
	list, err := a.Extensions.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]extensions.Entry{}
	for _, e := range list {
		byID[e.ID] = e
	}
	for _, want := range []struct{ id, from, settings, key string }{
		{userExtID, filepath.Join(installDir, "data", "default-user", "extensions", userExtFolder), userExtSettings, `"Echo Notes"`},
		{globalExtID, filepath.Join(installDir, filepath.FromSlash(globalExtRel)), globalSettings, `"third-party/Clockwork"`},
	} {
		e, ok := byID[want.id]
		if !ok {
			t.Errorf("%s is not installed: %+v", want.id, list)
			continue
		}
		if e.Enabled || e.Status != extensions.StatusDisabled || e.Mode != extensions.ModePage || e.Source.Kind != "path" || e.Source.Value != want.from {
			t.Errorf("%s = %+v, want a page extension installed off from %s", want.id, e, want.from)
		}
		value, key := storedSettings(t, a, want.id)
		if !jsonEqual(t, value, []byte(want.settings)) || string(key) != want.key {
			t.Errorf("%s's carried settings = %s under %s, want %s under %s", want.id, value, key, want.settings, want.key)
		}
		keys, err := a.Extensions.StorageList(ctx, want.id, "")
		if err != nil || len(keys) != 1 {
			t.Errorf("%s's storage holds %v (%v), want its settings alone", want.id, keys, err)
		}
	}
	if len(list) != fixtureUserExtensions+fixtureGlobalExtensions {
		t.Errorf("%d extensions installed, want %d", len(list), fixtureUserExtensions+fixtureGlobalExtensions)
	}
	for _, f := range []string{"index.js", "style.css", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(a.Extensions.Dir(), userExtID, f)); err != nil {
			t.Errorf("the installed %s lacks %s: %v", userExtID, f, err)
		}
	}
}

func hasFailed(list []library.Failed, kind, path, text string) bool {
	for _, f := range list {
		if f.Kind == kind && f.Path == path && strings.Contains(f.Error, text) {
			return true
		}
	}
	return false
}

// TestImportExtensions: a user folder alone brings its own extensions and
// not the install's; a broken package and one holding a symbolic link
// (to the user's secrets.json) fail alone and leave nothing installed; a
// folder without manifest.json, a stray file and a folder linked from
// outside are skipped; a clone's .git stays behind. The install then
// brings its global extension, whose id Hearth has already: skipped, and
// Hearth's extension and its storage stay as they were. A third import
// installs nothing; a copy of the library whose extension changed brings
// it back after its removal, keeping the settings Hearth stored since.
func TestImportExtensions(t *testing.T) {
	t.Parallel()
	installDir, userDir := install(t)
	exts := filepath.Join(userDir, "extensions")
	const secret = "sk-fixture-SECRET-0123456789"
	writeFile(t, filepath.Join(userDir, "secrets.json"), []byte(`{"api_key_openai": "`+secret+`"}`))
	writeFile(t, filepath.Join(exts, userExtFolder, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://example.com/echo-notes.git\n"))
	writeFile(t, filepath.Join(exts, "Broken", "manifest.json"), []byte(`{"display_name": "Broken",`))
	writeFile(t, filepath.Join(exts, "Broken", "index.js"), []byte("export {};\n"))
	writeFile(t, filepath.Join(exts, "Just Notes", "README.md"), []byte("no manifest here\n"))
	writeFile(t, filepath.Join(exts, "stray.txt"), []byte("not a folder\n"))
	writeFile(t, filepath.Join(exts, "Leaky", "manifest.json"), []byte(`{"display_name": "Leaky", "js": "index.js"}`))
	writeFile(t, filepath.Join(exts, "Leaky", "index.js"), []byte("export {};\n"))
	far := filepath.Join(t.TempDir(), "Far")
	copyTree(t, filepath.Join(exts, userExtFolder), far)
	links := os.Symlink(filepath.Join(userDir, "secrets.json"), filepath.Join(exts, "Leaky", "secrets.json")) == nil &&
		os.Symlink(far, filepath.Join(exts, "Far")) == nil

	a := openApp(t)
	ctx := t.Context()
	own := filepath.Join(t.TempDir(), globalExtID)
	writeFile(t, filepath.Join(own, "manifest.json"), []byte(`{"display_name": "Hearth's own clock", "js": "main.js"}`))
	writeFile(t, filepath.Join(own, "main.js"), []byte("export {};\n"))
	if _, err := a.Extensions.Install(ctx, extensions.Source{Path: own}, extensions.InstallOptions{Enable: true}); err != nil {
		t.Fatal(err)
	}

	var steps []library.Progress
	sum, err := a.Library.Import(ctx, userDir, func(p library.Progress) { steps = append(steps, p) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Install != "" || sum.Imported.Extensions != 1 {
		t.Errorf("the user folder alone: install %q, %d extensions imported, want none and 1", sum.Install, sum.Imported.Extensions)
	}
	last := steps[len(steps)-1]
	// Echo Notes, Broken, Just Notes and Leaky; Far links out.
	if want := 4; last.Phase != "extensions" || last.Done != want || last.Total != want {
		t.Errorf("last progress %+v, want the extensions phase's %d folders done", last, want)
	}
	if !hasFailed(sum.Failed, library.KindExtension, "extensions/Broken", "manifest.json") {
		t.Errorf("the broken manifest did not fail: %+v", sum.Failed)
	}
	for _, want := range []struct{ path, reason string }{
		{"extensions/Just Notes", "no manifest.json"},
		{"extensions/stray.txt", "not an extension folder"},
	} {
		if !hasSkip(sum.Skipped, library.KindExtension, want.path, want.reason) {
			t.Errorf("no skipped %s (%q) in %+v", want.path, want.reason, sum.Skipped)
		}
	}
	if links {
		if !hasFailed(sum.Failed, library.KindExtension, "extensions/Leaky", "symbolic link") {
			t.Errorf("the package holding a link did not fail: %+v", sum.Failed)
		}
		if !hasSkip(sum.Skipped, library.KindExtension, "extensions/Far", "symbolic link") {
			t.Errorf("the folder linked from outside was not skipped: %+v", sum.Skipped)
		}
	}
	installed := map[string]bool{}
	err = filepath.WalkDir(a.Extensions.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(a.Extensions.Dir(), p)
		installed[filepath.ToSlash(rel)] = true
		if d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err != nil || bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the secret (%v)", rel, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !installed[userExtID+"/index.js"] || installed[userExtID+"/.git"] || installed["Broken"] || installed["Leaky"] || installed["Far"] {
		t.Errorf("installed files: %v; want %s without its .git, nothing of the refused ones", installed, userExtID)
	}

	// The install: the global Clockwork's id is Hearth's own extension's.
	again, err := a.Library.Import(ctx, installDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Install != installDir || again.Imported.Extensions != 0 {
		t.Errorf("the install: install %q, %d extensions imported, want %s and none", again.Install, again.Imported.Extensions, installDir)
	}
	if !hasSkip(again.Skipped, library.KindExtension, "extensions/"+userExtFolder, "already imported") ||
		!hasSkip(again.Skipped, library.KindExtension, globalExtRel, `"Clockwork" is installed in Hearth already`) {
		t.Errorf("skipped: %+v", again.Skipped)
	}
	if !hasFailed(again.Failed, library.KindExtension, "extensions/Broken", "manifest.json") {
		t.Errorf("the broken manifest did not fail again: %+v", again.Failed)
	}
	clock, err := a.Extensions.Get(ctx, globalExtID)
	if err != nil || clock.DisplayName != "Hearth's own clock" || !clock.Enabled {
		t.Errorf("Hearth's Clockwork = %+v, %v: replaced or turned off", clock, err)
	}
	if v, _ := storedSettings(t, a, globalExtID); string(v) != "null" {
		t.Errorf("the global extension's settings reached Hearth's own Clockwork: %s", v)
	}
	third, err := a.Library.Import(ctx, installDir, nil)
	if err != nil || third.Imported != (library.Counts{}) {
		t.Errorf("a third import stored %+v (%v)", third.Imported, err)
	}
	if list, _ := a.Extensions.List(ctx); len(list) != 2 {
		t.Errorf("%d extensions after three imports, want Hearth's Clockwork and %s", len(list), userExtID)
	}

	// Removed without its data, then imported from a copy whose manifest
	// changed: installed again, its stored settings kept.
	mine := json.RawMessage(`{"lines": 9}`)
	if err := a.Extensions.StorageSet(ctx, userExtID, library.StorageKeyExtensionSettings, json.RawMessage(`{"Echo Notes": {"lines": 9}}`)); err != nil {
		t.Fatal(err)
	}
	if err := a.Extensions.Remove(ctx, userExtID, extensions.RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "default-user")
	for _, link := range []string{filepath.Join(exts, "Far"), filepath.Join(exts, "Leaky")} {
		_ = os.RemoveAll(link) // copyTree copies files and folders only
	}
	copyTree(t, userDir, moved)
	writeFile(t, filepath.Join(moved, "extensions", userExtFolder, "manifest.json"), []byte(`{"display_name": "Echo Notes", "js": "index.js", "version": "1.1.0"}`))
	fourth, err := a.Library.Import(ctx, moved, nil)
	if err != nil || fourth.Imported.Extensions != 1 {
		t.Fatalf("the moved copy: %+v, %v", fourth.Imported, err)
	}
	if !hasSkip(fourth.Skipped, library.KindSettings, "settings.json#extension_settings/Echo Notes", "settings stored in Hearth already") {
		t.Errorf("the kept settings were not reported: %+v", fourth.Skipped)
	}
	if v, _ := storedSettings(t, a, userExtID); !jsonEqual(t, v, mine) {
		t.Errorf("the stored settings were replaced: %s", v)
	}
}

// TestImportExtensionsTauriTavern: TauriTavern keeps global extensions in
// data/extensions/third-party, found from its folder and from its data
// folder; a global extension named as the user's is skipped for it, as
// the user's wins in SillyTavern.
func TestImportExtensionsTauriTavern(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	copyTree(t, filepath.Join("testdata", "default-user"), filepath.Join(root, "data", "default-user"))
	global := filepath.Join(root, "data", "extensions", "third-party")
	copyTree(t, filepath.Join("testdata", "install", filepath.FromSlash(globalExtRel)), filepath.Join(global, globalExtID))
	copyTree(t, filepath.Join("testdata", "default-user", "extensions", userExtFolder), filepath.Join(global, userExtFolder))
	for _, tc := range []struct{ path, prefix string }{
		{root, "data/extensions/third-party/"},
		{filepath.Join(root, "data"), "extensions/third-party/"},
	} {
		a := openApp(t)
		sum, err := a.Library.Import(t.Context(), tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Imported.Extensions != 2 || len(sum.Failed) != 0 {
			t.Errorf("%s: %+v, failed %+v", tc.path, sum.Imported, sum.Failed)
		}
		if !hasSkip(sum.Skipped, library.KindExtension, tc.prefix+userExtFolder, "imported just before") {
			t.Errorf("%s: the global twin of the user's extension was not skipped: %+v", tc.path, sum.Skipped)
		}
		if v, key := storedSettings(t, a, globalExtID); !jsonEqual(t, v, []byte(globalSettings)) || string(key) != `"third-party/Clockwork"` {
			t.Errorf("%s: Clockwork's settings %s under %s", tc.path, v, key)
		}
	}
}
