package selftest

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestExtensionBenchFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value   string
		on      bool
		count   int
		wantErr bool
	}{
		{value: "", on: false},
		{value: "  ", on: false},
		{value: "0", on: true, count: 0},
		{value: "10", on: true, count: 10},
		{value: " 20 ", on: true, count: 20},
		{value: "21", wantErr: true},
		{value: "-1", wantErr: true},
		{value: "ten", wantErr: true},
		{value: "1.5", wantErr: true},
	} {
		on, count, err := ExtensionBenchFromEnv(func(k string) string {
			if k != ExtensionsEnv {
				t.Fatalf("read %s", k)
			}
			return tc.value
		})
		if (err != nil) != tc.wantErr || on != tc.on || count != tc.count {
			t.Errorf("%q: on %v, count %d, err %v", tc.value, on, count, err)
		}
		if err != nil && !strings.Contains(err.Error(), ExtensionsEnv) {
			t.Errorf("%q: the error does not name the variable: %v", tc.value, err)
		}
	}
}

func TestBenchExtensionIDs(t *testing.T) {
	t.Parallel()
	ids := BenchExtensionIDs(20)
	if len(ids) != 20 || ids[0] != "ext-fan-01" || ids[9] != "ext-fan-10" || ids[19] != "ext-fan-20" {
		t.Fatalf("ids = %v", ids)
	}
	if len(BenchExtensionIDs(0)) != 0 {
		t.Fatal("ids for none")
	}
}

// extensionInfo is selftest.info's extensions block.
type extensionInfo struct {
	Mode        string   `json:"mode"`
	ChatID      string   `json:"chatId"`
	Probe       string   `json:"probe"`
	Bench       []string `json:"bench"`
	Page        string   `json:"page"`
	PageEnabled bool     `json:"pageEnabled"`
}

type extensionEntry struct {
	ID          string   `json:"id"`
	DisplayName string   `json:"displayName"`
	Mode        string   `json:"mode"`
	Status      string   `json:"status"`
	Granted     []string `json:"granted"`
	Entry       string   `json:"entry"`
	JS          string   `json:"js"`
	CSS         string   `json:"css"`
}

func TestSeedInstallsTheProbeExtension(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	newSession(t, a, time.Minute)
	var info struct {
		Extensions extensionInfo `json:"extensions"`
	}
	invoke(t, a, &info, "selftest.info")
	ext := info.Extensions
	if ext.Mode != "probe" || ext.Probe != ProbeExtensionID || ext.ChatID == "" || len(ext.Bench) != 0 || ext.Page != PageExtensionID || !ext.PageEnabled {
		t.Fatalf("info.extensions = %+v", ext)
	}
	// The probe, and the page extension beside it (listed by load order).
	var list []extensionEntry
	invoke(t, a, &list, "extensions.list")
	if len(list) != 2 {
		t.Fatalf("extensions.list = %+v", list)
	}
	if i := slices.IndexFunc(list, func(e extensionEntry) bool { return e.ID == ProbeExtensionID }); i < 0 || list[i].Mode != "sandboxed" || list[i].Status != "active" ||
		strings.Join(list[i].Granted, ",") != "chat.read" || list[i].Entry != "index.html" {
		t.Fatalf("extensions.list = %+v", list)
	}
	if i := slices.IndexFunc(list, func(e extensionEntry) bool { return e.ID == PageExtensionID }); i < 0 || list[i].Mode != "page" || list[i].Status != "active" || list[i].JS != "index.js" || list[i].CSS != "style.css" {
		t.Fatalf("extensions.list = %+v", list)
	}
	// The probe reads the chat it counts from its own storage.
	var config struct {
		ChatID string `json:"chatId"`
	}
	invoke(t, a, &config, "extensions.storage.get", "config", map[string]string{"extensionId": ProbeExtensionID})
	if config.ChatID != ext.ChatID {
		t.Fatalf("config = %+v, want chat %s", config, ext.ChatID)
	}
	var count int
	invoke(t, a, &count, "chat.count", ext.ChatID)
	if count != 1 {
		t.Fatalf("the extensions' chat has %d messages, want the greeting", count)
	}
	// Its files are what the frame is served.
	files, err := a.Extensions.FrameFiles(context.Background(), ProbeExtensionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"manifest.json", "index.html", "probe.js", "module.js"} {
		if _, err := os.Stat(files.Dir + "/" + name); err != nil {
			t.Errorf("installed package: %v", err)
		}
	}
	// The window opens on the idle character: the extensions' character
	// is created before it.
	var chars []struct {
		Name string `json:"name"`
	}
	invoke(t, a, &chars, "characters.list")
	names := make([]string, len(chars))
	for i, c := range chars {
		names[i] = c.Name
	}
	if !slices.Contains(names, ExtensionCharacterName) || chars[0].Name != IdleCharacterName {
		t.Fatalf("characters, newest first: %v", names)
	}
}

func TestSeedInstallsTheBenchExtensions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	pkgs := t.TempDir()
	s := New(Options{Report: t.TempDir() + "/r.json", Messages: 20, PackageDir: pkgs, ExtensionBench: true, BenchExtensions: 3, Log: &strings.Builder{}})
	if err := s.Seed(context.Background(), a.Router); err != nil {
		t.Fatal(err)
	}
	// The packages were installed by copy; what Seed wrote is gone.
	if left, err := os.ReadDir(pkgs); err != nil || len(left) != 0 {
		t.Fatalf("left in the package dir: %v %v", left, err)
	}
	s.Register(a.Router)
	var info struct {
		Extensions extensionInfo `json:"extensions"`
	}
	invoke(t, a, &info, "selftest.info")
	if ext := info.Extensions; ext.Mode != "bench" || ext.Probe != "" || ext.Page != "" || ext.ChatID == "" || strings.Join(ext.Bench, ",") != "ext-fan-01,ext-fan-02,ext-fan-03" {
		t.Fatalf("info.extensions = %+v", ext)
	}
	var list []extensionEntry
	invoke(t, a, &list, "extensions.list")
	if len(list) != 3 {
		t.Fatalf("extensions.list = %+v", list)
	}
	names := map[string]bool{}
	for i, e := range list {
		want := fmt.Sprintf("ext-fan-%02d", i+1)
		if e.ID != want || e.Status != "active" || strings.Join(e.Granted, ",") != "chat.read" {
			t.Errorf("entry %d = %+v, want %s active with chat.read", i, e, want)
		}
		names[e.DisplayName] = true
	}
	if len(names) != 3 {
		t.Errorf("the copies share display names: %v", names)
	}
}

func TestSeedRefusesTooManyBenchExtensions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	s := New(Options{Report: t.TempDir() + "/r.json", Messages: 20, PackageDir: t.TempDir(), ExtensionBench: true, BenchExtensions: MaxBenchExtensions + 1})
	err := s.Seed(context.Background(), a.Router)
	if err == nil || !strings.Contains(err.Error(), "bench extensions") {
		t.Fatalf("Seed = %v", err)
	}
	var list []extensionEntry
	invoke(t, a, &list, "extensions.list")
	if len(list) != 0 {
		t.Fatalf("installed %+v", list)
	}
}

// The forged bridge frame writes "PWNED by a forged bridge message"; had
// it landed, Go's own check fails the run.
func TestForgedMessageInTheExtensionsChatFails(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	s, _, _ := newSession(t, a, time.Minute)
	var info struct {
		Extensions extensionInfo `json:"extensions"`
	}
	invoke(t, a, &info, "selftest.info")
	var idx []int
	invoke(t, a, &idx, "chat.addMessages", info.Extensions.ChatID, []any{map[string]any{"is_user": true, "mes": "PWNED by a forged bridge message"}})
	var ok bool
	invoke(t, a, &ok, "selftest.report", map[string]any{"done": true, "checks": []Check{{Name: "iframe: refused", OK: true}}})
	rep := s.Wait(context.Background(), a.Router, time.Now())
	if err := Err(rep); err == nil || !strings.Contains(err.Error(), "go: no message in the extensions' chat from a forged bridge message") {
		t.Fatalf("Err = %v", err)
	}
}

// Each embedded package names an activate hook its script defines as a
// global, and asks for chat.read alone.
func TestEmbeddedPackages(t *testing.T) {
	t.Parallel()
	for name, script := range map[string]string{"probe": "probe.js", "fan": "fan.js"} {
		raw, err := fs.ReadFile(extensionFiles, path.Join("extensions", name, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Hearth struct {
				Mode        string   `json:"mode"`
				Entry       string   `json:"entry"`
				Permissions []string `json:"permissions"`
			} `json:"hearth"`
			Hooks struct {
				Activate string `json:"activate"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if m.Hearth.Mode != "sandboxed" || strings.Join(m.Hearth.Permissions, ",") != "chat.read" || m.Hooks.Activate == "" {
			t.Errorf("%s manifest = %+v", name, m)
		}
		js, err := fs.ReadFile(extensionFiles, path.Join("extensions", name, script))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`window\.` + regexp.QuoteMeta(m.Hooks.Activate) + ` = `).Match(js) {
			t.Errorf("%s: %s does not define window.%s", name, script, m.Hooks.Activate)
		}
		entry, err := fs.ReadFile(extensionFiles, path.Join("extensions", name, m.Hearth.Entry))
		if err != nil || !strings.Contains(string(entry), `src="`+script+`"`) {
			t.Errorf("%s: the entry %s does not load %s (%v)", name, m.Hearth.Entry, script, err)
		}
	}
}

func TestRenameManifest(t *testing.T) {
	t.Parallel()
	raw, err := fs.ReadFile(extensionFiles, "extensions/fan/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := renameManifest(raw, "ext-fan-07")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if m["hearth"].(map[string]any)["id"] != "ext-fan-07" || m["display_name"] != "Self-test fan-out 07" || m["hooks"] == nil {
		t.Fatalf("renamed = %s", out)
	}
	// A SillyTavern manifest has no hearth block: its id is its folder's.
	st := []byte(`{"display_name":"x","js":"index.js"}`)
	if out, err := renameManifest(st, "y"); err != nil || string(out) != string(st) {
		t.Fatalf("a manifest without a hearth block became %s, %v", out, err)
	}
	if _, err := renameManifest([]byte(`{"display_name":"x","hearth":"y"}`), "y"); err == nil {
		t.Fatal("a hearth block that is not an object was renamed")
	}
}

// The bench mode opens none of the large chats: its default chats are small.
func TestBenchModeSeedsSmallChats(t *testing.T) {
	t.Parallel()
	if s := New(Options{ExtensionBench: true}); s.opts.Messages != benchMessages {
		t.Fatalf("bench mode seeds %d messages a chat", s.opts.Messages)
	}
	if s := New(Options{PageBench: true}); s.opts.Messages != benchMessages {
		t.Fatalf("the page bench mode seeds %d messages a chat", s.opts.Messages)
	}
	if s := New(Options{}); s.opts.Messages != 10000 {
		t.Fatalf("a normal run seeds %d messages a chat", s.opts.Messages)
	}
}
