package host_test

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/app/apptest"
)

// extensionZip is a page-tier package as a browser would upload it.
func extensionZip(t *testing.T) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"notes/manifest.json": `{"display_name":"Notes","js":"index.js","version":"2"}`,
		"notes/index.js":      "export {}",
	} {
		f, _ := w.Create(name)
		f.Write([]byte(body))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"fileName": "notes.zip", "base64": base64.StdEncoding.EncodeToString(buf.Bytes())}
}

// TestExtensionsRoutes: the registry and storage over the router, with
// their argument checks, and the events only successful calls send.
func TestExtensionsRoutes(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	dir := filepath.Join(t.TempDir(), "mood")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"display_name":"Mood","hearth":{"mode":"sandboxed","entry":"index.html","permissions":["chat.read","notify"]}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>"), 0o644)

	type entry struct {
		ID      string   `json:"id"`
		Mode    string   `json:"mode"`
		Enabled bool     `json:"enabled"`
		Granted []string `json:"granted"`
		Status  string   `json:"status"`
	}
	var got entry
	e.Must(&got, "extensions.install", map[string]any{"path": dir}, map[string]any{"enable": true})
	if got.ID != "mood" || got.Mode != "sandboxed" || !got.Enabled || strings.Join(got.Granted, ",") != "chat.read,notify" {
		t.Errorf("install from a folder = %+v", got)
	}
	e.Must(&got, "extensions.install", extensionZip(t))
	if got.ID != "notes" || got.Mode != "page" || got.Enabled || got.Status != "disabled" {
		t.Errorf("install from a zip = %+v", got)
	}
	var list []entry
	e.Must(&list, "extensions.list")
	if len(list) != 2 {
		t.Errorf("list = %+v", list)
	}
	e.Must(&got, "extensions.revoke", "mood", []string{"notify"})
	if strings.Join(got.Granted, ",") != "chat.read" {
		t.Errorf("revoke = %+v", got)
	}
	e.Must(&got, "extensions.grant", "mood", []string{"notify"})
	e.Must(&got, "extensions.disable", "mood")
	e.Must(&got, "extensions.enable", "mood")
	e.Must(&got, "extensions.update", "mood")
	e.Must(&got, "extensions.reportFailure", "mood", "activate timed out after 5 s")
	if got.Status != "failed" {
		t.Errorf("after reportFailure: %+v", got)
	}
	e.Must(&got, "extensions.enable", "mood")
	if got.Status != "active" {
		t.Errorf("enable after a failure: %+v", got)
	}

	opts := map[string]any{"extensionId": "notes"}
	e.Must(nil, "extensions.storage.set", "a/b", map[string]any{"n": 1}, opts)
	e.Must(nil, "extensions.storage.set", "nil", nil, opts)
	var v json.RawMessage
	e.Must(&v, "extensions.storage.get", "a/b", opts)
	if string(v) != `{"n":1}` {
		t.Errorf("storage.get = %s", v)
	}
	e.Must(&v, "extensions.storage.get", "none", opts)
	if string(v) != "null" {
		t.Errorf("storage.get of a missing key = %s", v)
	}
	var keys []string
	e.Must(&keys, "extensions.storage.list", "a/", opts)
	if strings.Join(keys, ",") != "a/b" {
		t.Errorf("storage.list = %v", keys)
	}
	e.Must(&keys, "extensions.storage.list", nil, opts)
	if len(keys) != 2 {
		t.Errorf("storage.list() = %v", keys)
	}
	e.Must(nil, "extensions.storage.delete", "a/b", opts)
	e.Must(nil, "extensions.remove", "notes", map[string]any{"clean": true})

	var types []string
	for _, ev := range e.Events() {
		types = append(types, ev.Type)
	}
	// A revoke and a grant each say the new grant; enabling the failed
	// extension says it starts again.
	want := "extension_installed,extension_installed,extension_granted,extension_granted,extension_disabled,extension_enabled," +
		"extension_installed,extension_failed,extension_enabled,extension_removed"
	if strings.Join(types, ",") != want {
		t.Errorf("events %v, want %s", types, want)
	}

	for _, c := range []struct {
		method string
		args   []any
		code   string
		says   string
	}{
		{"extensions.install", nil, "validation.invalid_argument", "source is required"},
		{"extensions.install", []any{"/x"}, "validation.invalid_argument", "source must be an object"},
		{"extensions.install", []any{map[string]any{"fileName": "a.zip"}}, "validation.invalid_argument", "both required"},
		{"extensions.install", []any{map[string]any{}}, "validation.invalid_argument", "exactly one"},
		{"extensions.install", []any{map[string]any{"path": dir}}, "extension.exists", "already installed"},
		{"extensions.install", []any{map[string]any{"url": "http://example.com/a.zip"}}, "validation.invalid_argument", "https"},
		{"extensions.enable", nil, "validation.invalid_argument", "id is required"},
		{"extensions.enable", []any{""}, "validation.invalid_argument", "must not be empty"},
		{"extensions.enable", []any{"nobody"}, "extension.not_found", "nobody"},
		{"extensions.grant", []any{"mood"}, "validation.invalid_argument", "permissions must be an array"},
		{"extensions.grant", []any{"mood", []string{"generate"}}, "validation.invalid_argument", "does not declare"},
		{"extensions.remove", []any{"mood", "yes"}, "validation.invalid_argument", "options"},
		{"extensions.reportFailure", []any{"mood"}, "validation.invalid_argument", "error is required"},
		{"extensions.reportFailure", []any{"mood", " "}, "validation.invalid_argument", "error is required"},
		{"extensions.storage.get", []any{"k"}, "validation.invalid_argument", "extensionId"},
		{"extensions.storage.get", []any{"k", map[string]any{}}, "validation.invalid_argument", "extensionId"},
		{"extensions.storage.set", []any{"k"}, "validation.invalid_argument", "options"},
		{"extensions.storage.set", []any{"k", 1, map[string]any{"extensionId": "notes"}}, "extension.not_found", "notes"},
		{"extensions.storage.list", []any{3, opts}, "validation.invalid_argument", "prefix must be a string"},
	} {
		_, err := e.Call(c.method, c.args...)
		if apptest.Code(err) != c.code || err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s%v: %v, want %s saying %q", c.method, c.args, err, c.code, c.says)
		}
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Errorf("failed calls sent %d events", len(evs))
	}
}

// TestExtensionsSafeModeRoutes: safeMode and setSafeMode over the router,
// list() in safe mode, and EXTENSION_SAFE_MODE once per change.
func TestExtensionsSafeModeRoutes(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	dir := filepath.Join(t.TempDir(), "mood")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"hearth":{"mode":"sandboxed","entry":"index.html"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>"), 0o644)
	e.Must(nil, "extensions.install", map[string]any{"path": dir}, map[string]any{"enable": true})
	e.Events()

	type mode struct {
		Active  bool `json:"active"`
		AtStart bool `json:"atStart"`
		Flag    bool `json:"flag"`
	}
	var got mode
	e.Must(&got, "extensions.safeMode")
	if got != (mode{}) {
		t.Errorf("safeMode() = %+v", got)
	}
	for _, c := range []struct {
		args []any
		says string
	}{
		{nil, "options is required"},
		{[]any{map[string]any{}}, "active, atStart or both"},
		{[]any{map[string]any{"active": "yes"}}, "active must be a boolean"},
		{[]any{true}, "options must be an object"},
	} {
		_, err := e.Call("extensions.setSafeMode", c.args...)
		if apptest.Code(err) != "validation.invalid_argument" || !strings.Contains(err.Error(), c.says) {
			t.Errorf("setSafeMode%v: %v, want saying %q", c.args, err, c.says)
		}
	}
	e.Must(&got, "extensions.setSafeMode", map[string]any{"active": true, "atStart": true})
	if got != (mode{Active: true, AtStart: true}) {
		t.Errorf("setSafeMode = %+v", got)
	}
	e.Must(&got, "extensions.setSafeMode", map[string]any{"active": true})
	var list []struct {
		Enabled bool   `json:"enabled"`
		Status  string `json:"status"`
		Error   string `json:"error"`
	}
	e.Must(&list, "extensions.list")
	if len(list) != 1 || !list[0].Enabled || list[0].Status != "disabled" || list[0].Error != "Safe mode is on: every extension is off until you leave it." {
		t.Errorf("list in safe mode = %+v", list)
	}
	e.Must(&got, "extensions.setSafeMode", map[string]any{"active": false})
	var payloads []string
	for _, ev := range e.Events() {
		b, _ := json.Marshal(ev.Payload)
		payloads = append(payloads, ev.Type+" "+string(b))
	}
	want := []string{`extension_safe_mode {"active":true,"atStart":true}`, `extension_safe_mode {"active":false,"atStart":true}`}
	if strings.Join(payloads, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(payloads, "\n"), strings.Join(want, "\n"))
	}
}

// TestExtensionsCompatReportRoute: a page extension's entry carries its
// verdict in short and compatReport the whole report; a sandboxed
// extension and an unknown id are refused, with no event.
func TestExtensionsCompatReportRoute(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	page := filepath.Join(t.TempDir(), "st-tracker")
	os.MkdirAll(page, 0o755)
	os.WriteFile(filepath.Join(page, "manifest.json"), []byte(`{"display_name":"Tracker","js":"index.js"}`), 0o644)
	os.WriteFile(filepath.Join(page, "index.js"), []byte(`import { chat, Generate } from '../../../../script.js';
		eventSource.on(event_types.MESSAGE_RECEIVED, f); $('#extensions_settings').append('<div id="tracker">');`), 0o644)
	sandboxed := filepath.Join(t.TempDir(), "mood")
	os.MkdirAll(sandboxed, 0o755)
	os.WriteFile(filepath.Join(sandboxed, "manifest.json"), []byte(`{"hearth":{"mode":"sandboxed","entry":"index.html"}}`), 0o644)
	os.WriteFile(filepath.Join(sandboxed, "index.html"), []byte("<p>"), 0o644)

	type compat struct {
		Verdict     string `json:"verdict"`
		Unsupported int    `json:"unsupported"`
	}
	var got struct {
		ID     string  `json:"id"`
		Compat *compat `json:"compat"`
	}
	e.Must(&got, "extensions.install", map[string]any{"path": page})
	if got.Compat == nil || *got.Compat != (compat{"partial", 1}) {
		t.Errorf("install: %+v", got.Compat)
	}
	got.Compat = nil
	e.Must(&got, "extensions.install", map[string]any{"path": sandboxed})
	if got.Compat != nil {
		t.Errorf("a sandboxed entry has compat %+v", got.Compat)
	}
	e.Events()
	var report struct {
		Verdict   string `json:"verdict"`
		STVersion string `json:"stVersion"`
		Modules   []struct {
			Path  string `json:"path"`
			Names []struct {
				Name     string `json:"name"`
				Exported bool   `json:"exported"`
				Backed   bool   `json:"backed"`
			} `json:"names"`
		} `json:"modules"`
		Events []struct {
			Name      string `json:"name"`
			Supported bool   `json:"supported"`
		} `json:"events"`
		DOMIDs []struct {
			ID        string `json:"id"`
			Supported bool   `json:"supported"`
		} `json:"domIds"`
	}
	e.Must(&report, "extensions.compatReport", "st-tracker")
	if report.Verdict != "partial" || report.STVersion == "" || len(report.Modules) != 1 || report.Modules[0].Path != "/script.js" ||
		len(report.Modules[0].Names) != 2 || report.Modules[0].Names[0].Name != "Generate" || report.Modules[0].Names[0].Backed ||
		len(report.Events) != 1 || !report.Events[0].Supported || len(report.DOMIDs) != 1 || !report.DOMIDs[0].Supported {
		t.Errorf("report %+v", report)
	}
	for _, c := range []struct {
		args []any
		code string
	}{
		{[]any{"mood"}, "extension.not_page"},
		{[]any{"nobody"}, "extension.not_found"},
		{[]any{""}, "validation.invalid_argument"},
		{nil, "validation.invalid_argument"},
	} {
		if _, err := e.Call("extensions.compatReport", c.args...); apptest.Code(err) != c.code {
			t.Errorf("compatReport%v: %v, want %s", c.args, err, c.code)
		}
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Errorf("reports sent %d events", len(evs))
	}
}
