package httpapi

import (
	"net/http"
	"net/http/cookiejar"
	"testing"

	"hearth/backend/extensions"
	"hearth/backend/internal/extframe"
)

// TestServePageExtensionFiles: /scripts/extensions/third-party/<id>/…
// serves an active page extension's files, as written, to a window with
// a session, each answer under extframe.PageCSP; a sandboxed, disabled or
// unknown extension, a path out of the package, a stranger and safe mode
// get nothing.
func TestServePageExtensionFiles(t *testing.T) {
	t.Parallel()
	a := openApp(t)
	installExtensions(t, a)
	_, ts := serve(t, Config{Router: a.Router, Extensions: a.Extensions})
	base := ts.URL + extframe.PagePathPrefix

	for _, tc := range []struct{ path, ctype, body string }{
		{"notes/index.js", "text/javascript; charset=utf-8", "1"},
		{"notes/style.css", "text/css; charset=utf-8", "p{}"},
		{"notes/sub/index.html", "text/html; charset=utf-8", "<html><head></head></html>"},
	} {
		res, body := do(t, noRedirects, "GET", base+tc.path, "", nil)
		want := http.StatusOK
		if tc.ctype == "text/html; charset=utf-8" {
			want = http.StatusNonAuthoritativeInfo
		}
		if res.StatusCode != want || string(body) != tc.body {
			t.Errorf("%s: %d %q", tc.path, res.StatusCode, body)
		}
		if got := res.Header.Get("Content-Type"); got != tc.ctype {
			t.Errorf("%s: Content-Type %q", tc.path, got)
		}
		wantPageHeaders(t, tc.path, res)
	}

	// A template fetched in pieces comes back in pieces.
	res, body := do(t, noRedirects, "GET", base+"notes/settings.html", "", map[string]string{"Range": "bytes=5-10"})
	if res.StatusCode != http.StatusPartialContent || string(body) != "{{name" {
		t.Errorf("range: %d %q", res.StatusCode, body)
	}

	for _, p := range []string{
		"mood/app.js",                  // sandboxed: only under /ext/
		"paused/p.js",                  // turned off
		"nobody/index.js",              // not installed
		"Notes/index.js",               // not as installed
		"notes/",                       // a folder
		"notes/sub",                    // a folder
		"notes/manifest.json/x",        // under a file
		"notes/%2e%2e/mood/app.js",     // encoded dot segments
		"notes/..%2fmood%2fapp.js",     // an encoded slash
		"notes/../mood/app.js",         // dot segments as sent
		"notes/%5c..%5cmood%5capp.js",  // backslashes
		"notes/index.js%00",            // NUL
		"notes/.hidden",                // a dot-file
		"../../script.js",              // out of the prefix
		"notes/../../../../etc/passwd", // far out
	} {
		res, _ := do(t, noRedirects, "GET", base+p, "", nil)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, res.StatusCode)
		}
		if got := res.Header.Get("Content-Security-Policy"); got != extframe.PageCSP {
			t.Errorf("%s: policy %q", p, got)
		}
	}

	if res, _ := do(t, noRedirects, "POST", base+"notes/index.js", "{}", jsonHeader); res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %q", res.StatusCode, res.Header.Get("Allow"))
	}
	if res, _ := do(t, noRedirects, "GET", base+"notes/index.js", "", asBrowser); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("no session: %d", res.StatusCode)
	}

	// A browser that logged in with the printed address is a window.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if res, _ := do(t, browser, "GET", ts.URL+"/?token="+testToken, "", asBrowser); res.StatusCode != http.StatusOK {
		t.Fatalf("login: %d", res.StatusCode)
	}
	if res, body := do(t, browser, "GET", base+"notes/index.js", "", asBrowser); res.StatusCode != http.StatusOK || string(body) != "1" {
		t.Errorf("window: %d %q", res.StatusCode, body)
	}

	on, off := true, false
	a.Extensions.SetSafeMode(t.Context(), extensions.SafeModePatch{Active: &on})
	if res, _ := do(t, noRedirects, "GET", base+"notes/index.js", "", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("safe mode: %d", res.StatusCode)
	}
	a.Extensions.SetSafeMode(t.Context(), extensions.SafeModePatch{Active: &off})
	if _, err := a.Extensions.Disable(t.Context(), "notes"); err != nil {
		t.Fatal(err)
	}
	if res, _ := do(t, noRedirects, "GET", base+"notes/index.js", "", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("disabled: %d", res.StatusCode)
	}
}

func wantPageHeaders(t *testing.T, what string, res *http.Response) {
	t.Helper()
	for k, v := range map[string]string{
		"Content-Security-Policy": extframe.PageCSP, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache",
	} {
		if got := res.Header.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got, v)
		}
	}
}
