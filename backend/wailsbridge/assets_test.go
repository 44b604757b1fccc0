package wailsbridge

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"hearth/backend/apperr"
)

const testToken = "feedface"

const indexHTML = `<!doctype html><html lang="en"><HEAD><meta charset="utf-8"><title>Hearth</title></HEAD><body><div id="app"></div></body></html>`

// assetsHandler stands in for Wails' embedded-asset handler, which serves
// "/" and "/index.html" alike.
func assetsHandler() http.Handler {
	files := fstest.MapFS{
		"index.html":      {Data: []byte(indexHTML)},
		"assets/app.js":   {Data: []byte("console.log(1)")},
		"frame/page.html": {Data: []byte("<html><head></head><body>frame</body></html>")},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" {
			name = "index.html"
		}
		f, err := files.Open(name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, name, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), f.(io.ReadSeeker))
	})
}

type fakeAvatars map[string]string

func (f fakeAvatars) ImagePath(_ context.Context, avatar string) (string, error) {
	if p, ok := f[avatar]; ok {
		return p, nil
	}
	return "", apperr.New(apperr.CodeCharacterNotFound, "no character %q", avatar)
}

func get(t *testing.T, h http.Handler, path string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "wails://wails"+path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMiddlewareInjectsTokenOnlyIntoMainDocument(t *testing.T) {
	t.Parallel()
	h := Middleware(testToken, nil, nil)(assetsHandler())
	// What WebKitGTK sends for a document load of the app's scheme: no
	// Sec-Fetch-* at all.
	const navAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	boot := `<script id="hearth-boot" type="application/json">{"token":"feedface"}</script>`
	tests := []struct {
		name   string
		path   string
		header map[string]string
		inject bool
	}{
		{name: "document", path: "/", header: map[string]string{"Sec-Fetch-Dest": "document"}, inject: true},
		{name: "WebKitGTK navigation without fetch metadata", path: "/", header: map[string]string{"Accept": navAccept}, inject: true},
		{name: "index.html by name", path: "/index.html", header: map[string]string{"Sec-Fetch-Dest": "document"}, inject: true},
		{name: "conditional request still gets a full page", path: "/", header: map[string]string{"Accept": navAccept, "If-Modified-Since": "Sun, 01 Jan 2040 00:00:00 GMT"}, inject: true},
		{name: "fetch from a sandboxed frame", path: "/", header: map[string]string{"Accept": "*/*", "Origin": "null"}},
		{name: "fetch asking for html with an origin", path: "/", header: map[string]string{"Accept": navAccept, "Origin": "null"}},
		{name: "document with an origin", path: "/", header: map[string]string{"Sec-Fetch-Dest": "document", "Origin": "wails://wails"}},
		{name: "same-origin fetch without metadata", path: "/", header: map[string]string{"Accept": "*/*"}},
		{name: "no headers at all", path: "/"},
		{name: "iframe", path: "/", header: map[string]string{"Sec-Fetch-Dest": "iframe"}},
		{name: "frame", path: "/", header: map[string]string{"Sec-Fetch-Dest": "frame"}},
		{name: "embed", path: "/", header: map[string]string{"Sec-Fetch-Dest": "embed"}},
		{name: "object", path: "/", header: map[string]string{"Sec-Fetch-Dest": "object"}},
		{name: "fetch", path: "/", header: map[string]string{"Sec-Fetch-Dest": "empty"}},
		{name: "other page", path: "/frame/page.html", header: map[string]string{"Sec-Fetch-Dest": "document"}},
		{name: "script", path: "/assets/app.js"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := get(t, h, tc.path, tc.header)
			text := body(t, res)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d", res.StatusCode)
			}
			if got := strings.Contains(text, testToken); got != tc.inject {
				t.Fatalf("token present = %v, want %v in %s", got, tc.inject, text)
			}
			if !tc.inject {
				return
			}
			if !strings.Contains(text, "<HEAD>"+string(cspMeta())+boot+"<meta") {
				t.Fatalf("CSP and boot element not at the top of <head>: %s", text)
			}
			if res.Header.Get("Content-Security-Policy") != DesktopCSP {
				t.Fatalf("CSP header %q", res.Header.Get("Content-Security-Policy"))
			}
			if res.Header.Get("Cache-Control") != "no-store" || res.Header.Get("X-Frame-Options") != "DENY" {
				t.Fatalf("headers %v: want no-store and DENY", res.Header)
			}
			if res.Header.Get("Content-Length") != strconv.Itoa(len(text)) {
				t.Fatalf("Content-Length %s for %d bytes", res.Header.Get("Content-Length"), len(text))
			}
		})
	}
}

// The desktop policy is as strict as the served one: no socket to any host
// (the served policy names its own WebSocket), scripts from the app alone.
func TestDesktopCSPIsStrict(t *testing.T) {
	t.Parallel()
	directives := map[string]string{}
	for _, d := range strings.Split(DesktopCSP, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	for name, want := range map[string]string{
		"connect-src": "'self'", "script-src": "'self'", "default-src": "'self'", "object-src": "'none'", "base-uri": "'none'",
		"frame-src": "'self'",
	} {
		if directives[name] != want {
			t.Errorf("%s = %q, want %q", name, directives[name], want)
		}
	}
	if want := `content="` + html.EscapeString(DesktopCSP) + `"`; !strings.Contains(string(cspMeta()), want) {
		t.Errorf("meta %s", cspMeta())
	}
}

func TestBootScriptEscapesHTML(t *testing.T) {
	t.Parallel()
	got := string(bootScript(`</script><img src=x>`))
	if strings.Count(got, "</script>") != 1 || strings.Contains(got, "<img") {
		t.Fatalf("boot element not escaped: %s", got)
	}
}

func TestMiddlewareServesAvatars(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := filepath.Join(dir, "blob")
	png := []byte("\x89PNG\r\n\x1a\n fake image")
	if err := os.WriteFile(img, png, 0o600); err != nil {
		t.Fatal(err)
	}
	h := Middleware(testToken, nil, fakeAvatars{"Seraphina.png": img, "Gone.png": filepath.Join(dir, "missing")})(assetsHandler())

	res := get(t, h, "/api/avatar/Seraphina.png", nil)
	if got := body(t, res); res.StatusCode != http.StatusOK || got != string(png) {
		t.Fatalf("status %d body %q", res.StatusCode, got)
	}
	if ct := res.Header.Get("Content-Type"); ct != "image/png" {
		t.Fatalf("Content-Type %q", ct)
	}
	for _, path := range []string{"/api/avatar/Nobody.png", "/api/avatar/Gone.png", "/api/avatar/", "/api/avatar/a%2Fb.png"} {
		res := get(t, h, path, nil)
		text := body(t, res)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(text, `"code"`) {
			t.Errorf("%s: status %d body %s", path, res.StatusCode, text)
		}
		if strings.Contains(text, testToken) {
			t.Errorf("%s leaked the token", path)
		}
	}
}

// An unreadable image (here a symlink loop, which even root cannot open)
// used to answer with the open error's text: the absolute path of the data
// dir. The caller gets a generic internal error with a ref instead.
func TestAvatarErrorsDoNotLeakPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	loop := filepath.Join(dir, "media", "0f3a.gif")
	if err := os.MkdirAll(filepath.Dir(loop), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	h := Middleware(testToken, nil, fakeAvatars{"Loop.png": loop})(assetsHandler())
	res := get(t, h, "/api/avatar/Loop.png", nil)
	text := body(t, res)
	if res.StatusCode != http.StatusInternalServerError || !strings.Contains(text, `"code":"internal"`) || !strings.Contains(text, `"ref"`) {
		t.Fatalf("status %d body %s", res.StatusCode, text)
	}
	if strings.Contains(text, dir) || strings.Contains(text, "0f3a") || strings.Contains(text, "symbolic") {
		t.Fatalf("the error leaks the file system: %s", text)
	}
}

func TestMiddlewareRecoversFromPanics(t *testing.T) {
	t.Parallel()
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("asset handler bug") })
	h := Middleware(testToken, nil, nil)(boom)
	res := get(t, h, "/assets/app.js", nil)
	text := body(t, res)
	if res.StatusCode != http.StatusInternalServerError || !strings.Contains(text, `"code":"internal"`) || strings.Contains(text, "asset handler bug") {
		t.Fatalf("status %d body %s", res.StatusCode, text)
	}
}
