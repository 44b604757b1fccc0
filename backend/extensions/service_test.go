package extensions

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestInstallFolderAndLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	dir := writeTree(t, "Sandbox Ext", map[string]string{"manifest.json": sandboxManifest, "index.html": "<p>", "x.js": "1", "sub/a.txt": "a"})
	got, err := e.svc.Install(ctx, Source{Path: dir}, InstallOptions{Enable: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "mood" || got.Mode != ModeSandboxed || !got.Enabled || got.Status != StatusActive ||
		!reflect.DeepEqual(got.Granted, []string{"chat.read", "state", "ui.panel"}) || got.Source.Kind != "path" {
		t.Errorf("installed %+v", got)
	}
	if b, err := os.ReadFile(filepath.Join(e.dir, "mood", "sub", "a.txt")); err != nil || string(b) != "a" {
		t.Errorf("files not installed: %q %v", b, err)
	}
	if ty := e.types(); !reflect.DeepEqual(ty, []string{"extension_installed"}) {
		t.Errorf("events %v", ty)
	}

	// A clash, by hearth.id (any case), is extension.exists and changes nothing.
	_, err = e.svc.Install(ctx, Source{Path: dir}, InstallOptions{})
	wantCode(t, err, CodeExists)
	if ty := e.types(); len(ty) != 0 {
		t.Errorf("a failed install sent %v", ty)
	}

	if _, err := e.svc.Revoke(ctx, "MOOD", []string{"state"}); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Grant(ctx, "mood", []string{"generate"})
	wantCode(t, err, "validation.invalid_argument")
	_, err = e.svc.Grant(ctx, "mood", []string{"root"})
	wantCode(t, err, "validation.invalid_argument")
	got, _ = e.svc.Get(ctx, "mood")
	if !reflect.DeepEqual(got.Granted, []string{"chat.read", "ui.panel"}) {
		t.Errorf("after revoke: %v", got.Granted)
	}
	if got, _ = e.svc.Grant(ctx, "mood", []string{"state"}); !reflect.DeepEqual(got.Granted, []string{"chat.read", "state", "ui.panel"}) {
		t.Errorf("after grant: %v", got.Granted)
	}
	if _, err := e.svc.Grant(ctx, "mood", []string{"state"}); err != nil {
		t.Fatal(err)
	}
	// The revoke and the grant each said so; the refused grants and the
	// one that changed nothing did not.
	if ty := e.types(); !reflect.DeepEqual(ty, []string{"extension_granted", "extension_granted"}) {
		t.Errorf("events %v", ty)
	}

	if got, _ = e.svc.Disable(ctx, "mood"); got.Status != StatusDisabled || got.Enabled {
		t.Errorf("disabled: %+v", got)
	}
	if _, err := e.svc.Disable(ctx, "mood"); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.MarkFailed(ctx, "mood", "load threw"); err != nil {
		t.Fatal(err)
	}
	if got, _ = e.svc.Enable(ctx, "mood"); got.Status != StatusActive {
		t.Errorf("enable clears the failure: %+v", got)
	}
	if err := e.svc.MarkFailed(ctx, "mood", "activate timed out"); err != nil {
		t.Fatal(err)
	}
	if got, _ = e.svc.Get(ctx, "mood"); got.Status != StatusFailed || got.Error != "activate timed out" {
		t.Errorf("failed: %+v", got)
	}
	if ty := e.types(); !reflect.DeepEqual(ty, []string{"extension_disabled", "extension_failed", "extension_enabled", "extension_failed"}) {
		t.Errorf("events %v", ty)
	}

	// Update from the same folder: the new manifest drops "state"; the
	// grant keeps what is still declared, the storage stays.
	if err := e.svc.StorageSet(ctx, "mood", "k", []byte(`{"v":1}`)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(strings.Replace(sandboxManifest, `"state",`, `"notify",`, 1)), 0o644)
	os.Remove(filepath.Join(dir, "sub", "a.txt"))
	got, err = e.svc.Update(ctx, "mood")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Granted, []string{"chat.read", "ui.panel"}) || !reflect.DeepEqual(got.Permissions, []string{"chat.read", "notify", "ui.panel"}) || got.Status != StatusActive {
		t.Errorf("updated: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "mood", "sub", "a.txt")); !os.IsNotExist(err) {
		t.Errorf("the old files stayed: %v", err)
	}
	if v, _ := e.svc.StorageGet(ctx, "mood", "k"); string(v) != `{"v":1}` {
		t.Errorf("storage after update: %s", v)
	}

	// A bad update changes nothing.
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"js":"missing.js"}`), 0o644)
	_, err = e.svc.Update(ctx, "mood")
	wantCode(t, err, CodeInvalidManifest)
	if b, _ := os.ReadFile(filepath.Join(e.dir, "mood", "manifest.json")); !strings.Contains(string(b), "notify") {
		t.Errorf("a failed update replaced the files: %s", b)
	}
	e.types()

	if err := e.svc.Remove(ctx, "mood", RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	if dirs, rows := e.installed(); len(dirs) != 0 || rows != 0 {
		t.Errorf("after remove: %v, %d rows", dirs, rows)
	}
	wantCode(t, e.svc.Remove(ctx, "mood", RemoveOptions{}), CodeNotFound)
	if ty := e.types(); !reflect.DeepEqual(ty, []string{"extension_removed"}) {
		t.Errorf("events %v", ty)
	}
	// Storage outlives a remove without clean; a reinstall finds it.
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(sandboxManifest), 0o644)
	if _, err := e.svc.Install(ctx, Source{Path: dir}, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	if v, _ := e.svc.StorageGet(ctx, "mood", "k"); string(v) != `{"v":1}` {
		t.Errorf("storage after reinstall: %s", v)
	}
	if err := e.svc.Remove(ctx, "mood", RemoveOptions{Clean: true}); err != nil {
		t.Fatal(err)
	}
	var n int
	e.db.Reader().QueryRow(`SELECT count(*) FROM extension_storage`).Scan(&n)
	if n != 0 {
		t.Errorf("clean left %d storage rows", n)
	}
}

func TestInstallZipAndPageTier(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	data := makeZip(t, zipEntry{name: "Page-One-main/"}, zipEntry{name: "Page-One-main/manifest.json", body: pageManifest},
		zipEntry{name: "Page-One-main/index.js", body: "export {}"})
	got, err := e.svc.Install(ctx, zipSource("Page One.zip", data), InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "Page-One" || got.Mode != ModePage || got.Enabled || got.Status != StatusDisabled ||
		len(got.Permissions) != 0 || len(got.Granted) != 0 || got.Source != (SourceInfo{"zip", "Page One.zip"}) {
		t.Errorf("installed %+v", got)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "Page-One", "index.js")); err != nil {
		t.Errorf("the single top folder was not stripped: %v", err)
	}
	_, err = e.svc.Grant(ctx, "Page-One", []string{"chat.read"})
	wantCode(t, err, "validation.invalid_argument")
	_, err = e.svc.Update(ctx, "Page-One")
	wantCode(t, err, CodeNotUpdatable)
	_, err = e.svc.Install(ctx, zipSource("page-one.zip", data), InstallOptions{})
	wantCode(t, err, CodeExists)
}

// TestInstallRefusesBadPackages: every bad package fails with the right
// code naming the file or field, and leaves nothing behind.
func TestInstallRefusesBadPackages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	big := strings.Repeat("0", 3<<20)
	cases := []struct {
		name  string
		src   Source
		code  string
		names string
	}{
		{"zip slip", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "index.js"}, zipEntry{name: "../evil.js", body: "x"})), CodeInvalidPackage, "../evil.js"},
		{"nested slip", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "index.js"}, zipEntry{name: "a/../../evil.js"})), CodeInvalidPackage, "a/../../evil.js"},
		{"absolute", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "index.js"}, zipEntry{name: "/etc/evil"})), CodeInvalidPackage, "/etc/evil"},
		{"backslash", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "index.js"}, zipEntry{name: "..\\evil"})), CodeInvalidPackage, "..\\evil"},
		{"symlink", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "index.js", body: "/etc/passwd", mode: os.ModeSymlink | 0o777})), CodeInvalidPackage, "index.js"},
		{"bomb ratio", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "index.js"}, zipEntry{name: "big.bin", body: big})), CodeInvalidPackage, "big.bin"},
		{"not a zip", zipSource("a.zip", []byte("PK nope")), CodeInvalidPackage, "a.zip"},
		{"no manifest", zipSource("a.zip", makeZip(t, zipEntry{name: "index.js"})), CodeInvalidPackage, "manifest.json"},
		{"two top folders", zipSource("a.zip", makeZip(t, zipEntry{name: "a/manifest.json", body: pageManifest}, zipEntry{name: "b/index.js"})), CodeInvalidPackage, "manifest.json"},
		{"duplicate", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: pageManifest}, zipEntry{name: "index.js"}, zipEntry{name: "Index.js"})), CodeInvalidPackage, "Index.js"},
		{"bad manifest", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: `{"js":1}`})), CodeInvalidManifest, "js"},
		{"js missing", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: pageManifest})), CodeInvalidManifest, "js"},
		{"entry a folder", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: `{"hearth":{"mode":"sandboxed","entry":"ui"}}`}, zipEntry{name: "ui/x.html"})), CodeInvalidManifest, "hearth.entry"},
		{"unknown permission", zipSource("a.zip", makeZip(t, zipEntry{name: "manifest.json", body: `{"js":"index.js","hearth":{"permissions":["all"]}}`}, zipEntry{name: "index.js"})), CodeInvalidManifest, "hearth.permissions[0]"},
	}
	for _, c := range cases {
		_, err := e.svc.Install(ctx, c.src, InstallOptions{Enable: true})
		ae := apperr.As(err)
		if ae == nil || ae.Code != c.code || (ae.Details["file"] != c.names && ae.Details["field"] != c.names) {
			t.Errorf("%s: got %v, want %s naming %s", c.name, err, c.code, c.names)
		}
	}
	// Folders: a symlink, even to a file inside, is refused.
	dir := writeTree(t, "linked", map[string]string{"manifest.json": pageManifest, "real.js": "1"})
	if err := os.Symlink(filepath.Join(dir, "real.js"), filepath.Join(dir, "index.js")); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.Install(ctx, Source{Path: dir}, InstallOptions{})
	if ae := wantCode(t, err, CodeInvalidPackage); ae.Details["file"] != "index.js" {
		t.Errorf("symlink error names %v", ae.Details)
	}
	_, err = e.svc.Install(ctx, Source{Path: "relative/dir"}, InstallOptions{})
	wantCode(t, err, "validation.invalid_argument")
	_, err = e.svc.Install(ctx, Source{Path: dir, URL: "https://x"}, InstallOptions{})
	wantCode(t, err, "validation.invalid_argument")
	_, err = e.svc.Install(ctx, Source{FileName: "a.tar", Base64: "AAAA"}, InstallOptions{})
	wantCode(t, err, "validation.invalid_argument")

	if dirs, rows := e.installed(); len(dirs) != 0 || rows != 0 {
		t.Errorf("bad packages left %v and %d rows", dirs, rows)
	}
	if ty := e.types(); len(ty) != 0 {
		t.Errorf("failed installs sent %v", ty)
	}
}

func TestListOrderAndBlocked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	install := func(name, manifest string, enable bool) {
		t.Helper()
		dir := writeTree(t, name, map[string]string{"manifest.json": manifest, "index.js": ""})
		if _, err := e.svc.Install(ctx, Source{Path: dir}, InstallOptions{Enable: enable}); err != nil {
			t.Fatal(err)
		}
	}
	install("base", `{"js":"index.js","display_name":"Base","loading_order":5}`, false)
	install("uses-base", `{"js":"index.js","display_name":"A user","loading_order":"1","dependencies":["base"]}`, true)
	install("uses-user", `{"js":"index.js","display_name":"Z","loading_order":1,"dependencies":["uses-base"]}`, true)
	install("ghost", `{"js":"index.js","display_name":"B","dependencies":["nowhere"]}`, true)
	install("future", `{"js":"index.js","display_name":"C","minimum_client_version":"99.0.0"}`, true)
	install("past", `{"js":"index.js","display_name":"D","minimum_client_version":"1.12.0"}`, true)
	list, err := e.svc.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range list {
		got = append(got, x.ID+":"+x.Status)
	}
	want := []string{"ghost:blocked", "future:blocked", "past:active", "uses-base:blocked", "uses-user:blocked", "base:disabled"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("list %v, want %v", got, want)
	}
	if !strings.Contains(list[3].Error, `"base"`) || !strings.Contains(list[0].Error, "not installed") {
		t.Errorf("reasons %q, %q", list[0].Error, list[3].Error)
	}
	if want := "needs SillyTavern 99.0.0 or later; Hearth runs extensions written for SillyTavern 1.18.0"; list[1].Error != want || list[1].MinimumClientVersion != "99.0.0" {
		t.Errorf("future: %q %q", list[1].Error, list[1].MinimumClientVersion)
	}
	e.svc.Enable(ctx, "base")
	list, _ = e.svc.List(ctx)
	for _, x := range list {
		if x.ID != "ghost" && x.ID != "future" && x.Status != StatusActive {
			t.Errorf("%s is %s after its dependency was enabled", x.ID, x.Status)
		}
	}
}

// TestInstallOverLeftovers: a package folder with no registry row (a
// crash between the rename and the commit) is replaced by an install,
// and a new service clears what a crash left in staging.
func TestInstallOverLeftovers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	os.MkdirAll(filepath.Join(e.dir, "mood", "stale"), 0o700)
	os.MkdirAll(filepath.Join(e.dir, ".staging", "x123", "pkg"), 0o700)
	New(e.db, nil, Options{Dir: e.dir})
	dir := writeTree(t, "m", map[string]string{"manifest.json": sandboxManifest, "index.html": "", "x.js": ""})
	if _, err := e.svc.Install(ctx, Source{Path: dir}, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "mood", "stale")); !os.IsNotExist(err) {
		t.Errorf("the leftover folder's files stayed: %v", err)
	}
	if dirs, rows := e.installed(); len(dirs) != 1 || rows != 1 {
		t.Errorf("installed %v, %d rows", dirs, rows)
	}
}
