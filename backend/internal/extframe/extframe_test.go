package extframe

import (
	"strings"
	"testing"
)

func TestCheckNetworkOrigin(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"https://api.example.com", "https://api.example.com/", "https://API.Example.com:8443", "https://10.0.0.2", "https://localhost:1"} {
		if err := CheckNetworkOrigin(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"", "http://api.example.com", "HTTPS://api.example.com", "https://", "https://*.example.com", "https://*",
		"https://api.example.com/v1", "https://api.example.com?x=1", "https://api.example.com#f", "https://user@api.example.com",
		"https://a;b.com", "https://a'b.com", "https://a b.com", "https://a,b.com", "https://api.example.com; script-src *",
		"https://api.example.com:0", "https://api.example.com:65536", "https://api.example.com:08", "https://api.example.com:",
		"https://[::1]:8443", "https://-a.com", "https://a..com", "https://a.com.", "https://a.com//", "wss://a.com",
		"https://" + strings.Repeat("a", 64) + ".com",
	} {
		if err := CheckNetworkOrigin(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCSP(t *testing.T) {
	t.Parallel()
	const rest = "; frame-src 'none'; child-src 'none'; worker-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
	tests := []struct {
		origin, id string
		connect    []string
		want       string
	}{
		{"wails://wails", "mood", nil,
			"default-src 'none'; script-src wails://wails/ext/mood/ wails://wails/ext-runtime/frame.js; style-src wails://wails/ext/mood/ 'unsafe-inline'; " +
				"img-src wails://wails/ext/mood/ data: blob:; font-src wails://wails/ext/mood/ data:; media-src wails://wails/ext/mood/ data: blob:; connect-src 'none'" + rest},
		{"http://127.0.0.1:8000", "a.b_c-d", []string{"https://api.example.com/", "https://x.org:8443"},
			"default-src 'none'; script-src http://127.0.0.1:8000/ext/a.b_c-d/ http://127.0.0.1:8000/ext-runtime/frame.js; style-src http://127.0.0.1:8000/ext/a.b_c-d/ 'unsafe-inline'; " +
				"img-src http://127.0.0.1:8000/ext/a.b_c-d/ data: blob:; font-src http://127.0.0.1:8000/ext/a.b_c-d/ data:; media-src http://127.0.0.1:8000/ext/a.b_c-d/ data: blob:; " +
				"connect-src https://api.example.com https://x.org:8443" + rest},
		// A bad origin in the list (stored before the check existed) is left out.
		{"https://hearth.local", "m", []string{"https://a.com; script-src *", "https://*.b.com"},
			"default-src 'none'; script-src https://hearth.local/ext/m/ https://hearth.local/ext-runtime/frame.js; style-src https://hearth.local/ext/m/ 'unsafe-inline'; " +
				"img-src https://hearth.local/ext/m/ data: blob:; font-src https://hearth.local/ext/m/ data:; media-src https://hearth.local/ext/m/ data: blob:; connect-src 'none'" + rest},
	}
	for _, tc := range tests {
		got, err := CSP(tc.origin, tc.id, tc.connect)
		if err != nil || got != tc.want {
			t.Errorf("CSP(%q, %q, %q) =\n%s, %v\nwant\n%s", tc.origin, tc.id, tc.connect, got, err, tc.want)
		}
		if strings.Contains(got, "'self'") {
			t.Errorf("policy relies on 'self': %s", got)
		}
	}
	for _, bad := range [][2]string{
		{"http://[::1]:8000", "m"}, {"http://h; script-src *", "m"}, {"javascript://x", "m"}, {"wails://wails", "../x"},
		{"wails://wails", "a b"}, {"wails://wails", ""}, {"wails://wails", ".hidden"}, {"wails://wails/", "m"},
	} {
		if got, err := CSP(bad[0], bad[1], nil); err == nil {
			t.Errorf("CSP(%q, %q) = %q, want an error", bad[0], bad[1], got)
		}
	}
}

func TestEntryHeadEscapesThePolicy(t *testing.T) {
	t.Parallel()
	got := string(EntryHead(`a "b" <c>`))
	want := `<meta http-equiv="Content-Security-Policy" content="a &#34;b&#34; &lt;c&gt;"><script src="/ext-runtime/frame.js"></script>`
	if got != want {
		t.Errorf("EntryHead = %s, want %s", got, want)
	}
}
