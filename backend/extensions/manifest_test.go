package extensions

import (
	"encoding/json"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestReadManifest(t *testing.T) {
	t.Parallel()
	m, err := ReadManifest([]byte(`{"display_name":"Mood","loading_order":"12abc","js":"index.js","author":"A","version":1.5,
		"x-unknown":{"kept":true},"dependencies":["other"],
		"hearth":{"id":"mood","mode":"sandboxed","entry":"ui/index.html","permissions":["chat.read","state","chat.read"],
		"network":["https://api.example.com"],"panel":{"title":"Mood"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.DisplayName != "Mood" || m.LoadingOrder != 12 || m.Version != "1.5" || m.Hearth.ID != "mood" || m.Hearth.Mode != ModeSandboxed {
		t.Errorf("read %+v", m)
	}
	if strings.Join(m.Hearth.Permissions, ",") != "chat.read,state" {
		t.Errorf("permissions %v, want chat.read,state", m.Hearth.Permissions)
	}
	var back map[string]any
	if err := json.Unmarshal(m.Raw, &back); err != nil || back["x-unknown"] == nil {
		t.Errorf("unknown keys not kept: %s", m.Raw)
	}
	st, err := ReadManifest([]byte(`{"js":"index.js"}`))
	if err != nil || st.Hearth.Mode != ModePage {
		t.Errorf("a SillyTavern manifest: %+v %v, want page mode", st, err)
	}
}

func TestReadManifestRefuses(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70)
	cases := []struct{ name, raw, field string }{
		{"not json", `{"js":`, "manifest.json"},
		{"an array", `["js"]`, "manifest.json"},
		{"too deep", deep, "manifest.json"},
		{"too big", `{"js":"a.js","pad":"` + strings.Repeat("x", MaxManifestBytes) + `"}`, "manifest.json"},
		{"nothing to run", `{"display_name":"x"}`, "js"},
		{"js not text", `{"js":{}}`, "js"},
		{"js outside", `{"js":"../x.js"}`, "js"},
		{"js absolute", `{"js":"/etc/passwd"}`, "js"},
		{"js backslash", `{"js":"..\\x.js"}`, "js"},
		{"entry outside", `{"hearth":{"mode":"sandboxed","entry":"a/../../x.html"}}`, "hearth.entry"},
		{"sandboxed without entry", `{"js":"a.js","hearth":{"mode":"sandboxed"}}`, "hearth.entry"},
		{"unknown permission", `{"js":"a.js","hearth":{"permissions":["chat.read","root"]}}`, "hearth.permissions[1]"},
		{"bad mode", `{"js":"a.js","hearth":{"mode":"native"}}`, "hearth.mode"},
		{"bad id", `{"js":"a.js","hearth":{"id":"../x"}}`, "hearth.id"},
		{"hearth not object", `{"js":"a.js","hearth":[]}`, "hearth"},
		{"network not https", `{"js":"a.js","hearth":{"network":["http://x.com"]}}`, "hearth.network[0]"},
		{"network with path", `{"js":"a.js","hearth":{"network":["https://x.com/api"]}}`, "hearth.network[0]"},
		{"network wildcard", `{"js":"a.js","hearth":{"network":["https://a.com","https://*.x.com"]}}`, "hearth.network[1]"},
		{"network breaking out of the policy", `{"js":"a.js","hearth":{"network":["https://x.com;script-src"]}}`, "hearth.network[0]"},
		{"network quoted", `{"js":"a.js","hearth":{"network":["https://'x.com'"]}}`, "hearth.network[0]"},
		{"network with a space", `{"js":"a.js","hearth":{"network":["https://x.com https://y.com"]}}`, "hearth.network[0]"},
		{"bad dependency", `{"js":"a.js","dependencies":["../x"]}`, "dependencies[0]"},
		{"dependencies not list", `{"js":"a.js","dependencies":"x"}`, "dependencies"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadManifest([]byte(c.raw))
			e := apperr.As(err)
			if e == nil || e.Code != CodeInvalidManifest || e.Details["field"] != c.field {
				t.Fatalf("got %v, want %s naming %s", err, CodeInvalidManifest, c.field)
			}
		})
	}
}

func TestSanitizeID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"SillyTavern-Mood": "SillyTavern-Mood", "my ext (v2)": "my-ext--v2-", ".hidden": "hidden",
		"ünï": "n-", "üï": "", "...": "", strings.Repeat("a", 80): strings.Repeat("a", 64),
	} {
		if got := sanitizeID(in); got != want {
			t.Errorf("sanitizeID(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzReadManifest(f *testing.F) {
	for _, s := range []string{
		`{"js":"index.js","display_name":"x","loading_order":3}`,
		`{"hearth":{"id":"a","mode":"sandboxed","entry":"i.html","permissions":["chat.read"],"network":["https://a.b"]}}`,
		`{"js":"../x"}`, `[]`, `null`, `{"loading_order":"-7x"}`, "\xef\xbb\xbf{\"js\":\"a.js\"}",
		`{"js":"a.js","i18n":{"zh-cn":"i18n/zh-cn.json","default":"../en.json"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := ReadManifest(raw)
		if err != nil {
			if apperr.CodeOf(err) != CodeInvalidManifest {
				t.Fatalf("error %v is not %s", err, CodeInvalidManifest)
			}
			return
		}
		if m.JS == "" && m.Hearth.Entry == "" {
			t.Fatal("accepted a manifest with nothing to run")
		}
		if len(m.I18n) > MaxI18nLocales {
			t.Fatalf("accepted %d locales", len(m.I18n))
		}
		for locale, p := range m.I18n {
			if !localePattern.MatchString(locale) || checkRelPath(p) != nil {
				t.Fatalf("accepted i18n %q: %q", locale, p)
			}
		}
		for _, p := range []string{m.JS, m.CSS, m.Hearth.Entry} {
			if p != "" && checkRelPath(p) != nil {
				t.Fatalf("accepted path %q outside the package", p)
			}
		}
		if m.Hearth.Mode != ModePage && m.Hearth.Mode != ModeSandboxed {
			t.Fatalf("mode %q", m.Hearth.Mode)
		}
		if _, err := ReadManifest(m.Raw); err != nil {
			t.Fatalf("its own Raw no longer reads: %v", err)
		}
	})
}
