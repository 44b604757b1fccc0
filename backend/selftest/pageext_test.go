package selftest

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestPageBenchFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value   string
		on      bool
		count   int
		wantErr bool
	}{
		{value: "", on: false},
		{value: " ", on: false},
		{value: "0", on: true, count: 0},
		{value: "1", on: true, count: 1},
		{value: " 1 ", on: true, count: 1},
		{value: "2", wantErr: true},
		{value: "-1", wantErr: true},
		{value: "one", wantErr: true},
		{value: "true", wantErr: true},
	} {
		on, count, err := PageBenchFromEnv(func(k string) string {
			if k != PageExtensionsEnv {
				t.Fatalf("read %s", k)
			}
			return tc.value
		})
		if (err != nil) != tc.wantErr || on != tc.on || count != tc.count {
			t.Errorf("%q: on %v, count %d, err %v", tc.value, on, count, err)
		}
		if err != nil && !strings.Contains(err.Error(), PageExtensionsEnv) {
			t.Errorf("%q: the error does not name the variable: %v", tc.value, err)
		}
	}
}

// The page bench mode installs the page extension alone: enabled with
// one, installed but disabled with none.
func TestSeedInstallsThePageBenchExtension(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1} {
		a := newApp(t)
		pkgs := t.TempDir()
		s := New(Options{Report: t.TempDir() + "/r.json", Messages: 20, PackageDir: pkgs, PageBench: true, PageExtensions: n, Log: &strings.Builder{}})
		if err := s.Seed(context.Background(), a.Router); err != nil {
			t.Fatal(err)
		}
		if left, err := os.ReadDir(pkgs); err != nil || len(left) != 0 {
			t.Fatalf("left in the package dir: %v %v", left, err)
		}
		s.Register(a.Router)
		var info struct {
			Extensions extensionInfo `json:"extensions"`
		}
		invoke(t, a, &info, "selftest.info")
		if ext := info.Extensions; ext.Mode != "page-bench" || ext.Probe != "" || len(ext.Bench) != 0 || ext.Page != PageExtensionID || ext.PageEnabled != (n == 1) {
			t.Fatalf("%d: info.extensions = %+v", n, ext)
		}
		var list []extensionEntry
		invoke(t, a, &list, "extensions.list")
		want := map[int]string{0: "disabled", 1: "active"}[n]
		if len(list) != 1 || list[0].ID != PageExtensionID || list[0].Mode != "page" || list[0].Status != want {
			t.Fatalf("%d: extensions.list = %+v", n, list)
		}
		// No Go check of its setting: the bench run does not wait for the save.
		if _, ok := s.checkPageSettings(context.Background(), a.Router); ok {
			t.Fatalf("%d: the page bench mode checks the extension's settings", n)
		}
	}
}

func TestSeedRefusesBadPageBenchOptions(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string]Options{
		"two page extensions": {PageBench: true, PageExtensions: 2},
		"both bench modes":    {PageBench: true, PageExtensions: 1, ExtensionBench: true, BenchExtensions: 1},
	} {
		a := newApp(t)
		opts.Report, opts.Messages, opts.PackageDir = t.TempDir()+"/r.json", 20, t.TempDir()
		if err := New(opts).Seed(context.Background(), a.Router); err == nil {
			t.Errorf("%s: Seed passed", name)
		}
		var list []extensionEntry
		invoke(t, a, &list, "extensions.list")
		if len(list) != 0 {
			t.Errorf("%s: installed %+v", name, list)
		}
	}
}

// Go's own check of the page extension's setting: its first start in a
// fresh data dir saves {runs: 1}, and nothing else may be in its share.
func TestPageSettingsCheck(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	s, _, _ := newSession(t, a, time.Minute)
	set := func(v any) {
		invoke(t, a, &struct{}{}, "extensions.storage.set", PageSettingsKey, v, map[string]string{"extensionId": PageExtensionID})
	}
	for _, tc := range []struct {
		name  string
		value any
		ok    bool
	}{
		{"nothing saved", nil, false},
		{"its first start", map[string]any{PageExtensionID: map[string]int{"runs": 1}}, true},
		{"a second start", map[string]any{PageExtensionID: map[string]int{"runs": 2}}, false},
		{"another key beside it", map[string]any{PageExtensionID: map[string]int{"runs": 1}, "other": true}, false},
		{"no count", map[string]any{PageExtensionID: map[string]string{"note": "x"}}, false},
		{"not an object", []int{1}, false},
	} {
		if tc.value != nil {
			set(tc.value)
		}
		c, ran := s.checkPageSettings(context.Background(), a.Router)
		if !ran || c.OK != tc.ok || c.Detail == "" {
			t.Errorf("%s: %+v (ran %v), want ok %v", tc.name, c, ran, tc.ok)
		}
	}
}

// The page extension is written as a SillyTavern one: no hearth block, js
// and css in its manifest, SillyTavern's modules imported by relative path
// from its folder (third-party/<id>/), and the names stpage.js relies on.
func TestEmbeddedPagePackage(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		t.Helper()
		b, err := fs.ReadFile(extensionFiles, "extensions/"+pagePackage+"/"+name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(read("manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["hearth"]; ok || m["js"] != "index.js" || m["css"] != "style.css" || m["loading_order"] == nil {
		t.Fatalf("manifest = %v", m)
	}
	js := read("index.js")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`import \{[^}]*\bGenerate\b[^}]*\bsaveSettingsDebounced\b[^}]*\} from '\.\./\.\./\.\./\.\./script\.js';`),
		regexp.MustCompile(`import \{[^}]*\bextension_settings\b[^}]*\bgetContext\b[^}]*\} from '\.\./\.\./\.\./extensions\.js';`),
		regexp.MustCompile(`const extensionName = '` + PageExtensionID + `';`),
		regexp.MustCompile(`\$\('#extensions_settings'\)\.append\(`),
		regexp.MustCompile(`window\.selftestStPage = seen;`),
	} {
		if !want.MatchString(js) {
			t.Errorf("index.js does not match %s", want)
		}
	}
	// stpage.js checks the colour style.css gives the drawer.
	color := regexp.MustCompile(`const CSS_COLOR = '([^']+)';`).FindSubmatch(PageTierScript())
	if color == nil || !strings.Contains(read("style.css"), string(color[1])) {
		t.Errorf("style.css does not give the drawer stpage.js's CSS_COLOR %q", color)
	}
	if !strings.Contains(string(PageTierScript()), "'"+PageSettingsKey+"'") {
		t.Error("stpage.js reads another settings key than PageSettingsKey")
	}
}

func TestPageTierScriptIsRun(t *testing.T) {
	t.Parallel()
	if !strings.Contains(string(PageTierScript()), "window.__hearthSelfTestPageTier = { checks, bench }") ||
		!strings.Contains(string(PageScript()), "pageTier.checks(h, info, tools)") || !strings.Contains(string(PageScript()), "pageTier.bench(h, info, tools)") {
		t.Error("the page tier phase is not defined by stpage.js and run by page.js")
	}
}
