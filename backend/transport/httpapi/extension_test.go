package httpapi

import (
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"hearth/backend/app"
	"hearth/backend/extensions"
	"hearth/backend/internal/extframe"
	"hearth/backend/internal/testcert"
)

// extEntryHTML is the sandboxed test extension's entry document.
const extEntryHTML = `<!doctype html><html><head><title>Mood</title><script src="app.js"></script></head><body></body></html>`

// installExtensions installs, into a: "mood", an enabled sandboxed
// extension with a file of every served type, a network grant, a
// symbolic link out of its folder and a dot-file; "notes", an enabled
// page extension with a settings template; "paused", a disabled page
// extension; "off", a disabled sandboxed one. It returns the folder
// outside the package the link points into.
func installExtensions(t *testing.T, a *app.App) string {
	t.Helper()
	pkg := func(name string, files map[string]string) string {
		dir := filepath.Join(t.TempDir(), name)
		for p, body := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			os.MkdirAll(filepath.Dir(full), 0o755)
			if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	install := func(dir string, enable bool) {
		t.Helper()
		if _, err := a.Extensions.Install(t.Context(), extensions.Source{Path: dir}, extensions.InstallOptions{Enable: enable}); err != nil {
			t.Fatal(err)
		}
	}
	install(pkg("mood", map[string]string{
		"manifest.json": `{"display_name":"Mood","hearth":{"id":"mood","mode":"sandboxed","entry":"index.html",` +
			`"permissions":["network","chat.read"],"network":["https://api.example.com"]}}`,
		"index.html": extEntryHTML, "app.js": "console.log(1)", "lib.mjs": "export {}", "style.css": "p{}",
		"data.json": "{}", "icon.svg": "<svg/>", "img.png": "png", "pic.jpg": "jpg", "pic.webp": "webp",
		"anim.gif": "gif", "font.woff2": "woff2", "mod.wasm": "wasm", "notes.txt": "hi", "blob.bin": "bin",
		"sub/page.html": "<html><head><title>p</title></head></html>",
	}), true)
	install(pkg("notes", map[string]string{"manifest.json": `{"js":"index.js","css":"style.css"}`, "index.js": "1",
		"style.css": "p{}", "settings.html": "<div>{{name}}</div>", "sub/index.html": "<html><head></head></html>"}), true)
	install(pkg("paused", map[string]string{"manifest.json": `{"js":"p.js"}`, "p.js": "2"}), false)
	install(pkg("off", map[string]string{"manifest.json": `{"hearth":{"mode":"sandboxed","entry":"i.html"}}`, "i.html": "<p>"}), false)

	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("OUTSIDE-CONTENT"), 0o600)
	installed := filepath.Join(a.DataDir, "extensions", "mood")
	for link, target := range map[string]string{"escape.txt": filepath.Join(outside, "secret.txt"), "outdir": outside} {
		if err := os.Symlink(target, filepath.Join(installed, link)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(installed, ".secret"), []byte("DOTFILE-CONTENT"), 0o644)
	return outside
}

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func frameCSP(t *testing.T, origin, id string, connect ...string) string {
	t.Helper()
	csp, err := extframe.CSP(origin, id, connect)
	if err != nil {
		t.Fatal(err)
	}
	return csp
}

// TestServeExtensionFiles: /ext/<id>/<path> serves an active sandboxed
// extension's files, typed, under the frame's policy, the entry with the
// policy and the runtime injected; everything else is a 404 that still
// carries a policy.
func TestServeExtensionFiles(t *testing.T) {
	t.Parallel()
	a := openApp(t)
	installExtensions(t, a)
	_, ts := serve(t, Config{Router: a.Router, Extensions: a.Extensions})
	origin := ts.URL // http://127.0.0.1:PORT, the Host the client sends
	csp := frameCSP(t, origin, "mood", "https://api.example.com")

	for _, tc := range []struct{ path, ctype string }{
		{"/ext/mood/app.js", "text/javascript; charset=utf-8"},
		{"/ext/mood/lib.mjs", "text/javascript; charset=utf-8"},
		{"/ext/mood/style.css", "text/css; charset=utf-8"},
		{"/ext/mood/data.json", "application/json"},
		{"/ext/mood/icon.svg", "image/svg+xml"},
		{"/ext/mood/img.png", "image/png"},
		{"/ext/mood/pic.jpg", "image/jpeg"},
		{"/ext/mood/pic.webp", "image/webp"},
		{"/ext/mood/anim.gif", "image/gif"},
		{"/ext/mood/font.woff2", "font/woff2"},
		{"/ext/mood/mod.wasm", "application/wasm"},
		{"/ext/mood/notes.txt", "text/plain; charset=utf-8"},
		{"/ext/mood/blob.bin", "application/octet-stream"},
	} {
		res, body := do(t, noRedirects, "GET", ts.URL+tc.path, "", asBrowser)
		want, _ := os.ReadFile(filepath.Join(a.DataDir, "extensions", filepath.FromSlash(strings.TrimPrefix(tc.path, "/ext/"))))
		if res.StatusCode != http.StatusOK || string(body) != string(want) {
			t.Errorf("%s: %d %q", tc.path, res.StatusCode, body)
		}
		if got := res.Header.Get("Content-Type"); got != tc.ctype {
			t.Errorf("%s: Content-Type %q, want %q", tc.path, got, tc.ctype)
		}
		wantFrameHeaders(t, tc.path, res, csp)
		if res.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: Cache-Control %q", tc.path, res.Header.Get("Cache-Control"))
		}
		if res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: Access-Control-Allow-Origin %q", tc.path, res.Header.Get("Access-Control-Allow-Origin"))
		}
	}

	// The entry: the policy as a meta element, then the runtime, right
	// after <head>, before the extension's own script.
	res, body := do(t, noRedirects, "GET", ts.URL+"/ext/mood/index.html", "", asBrowser)
	wantDoc := `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="` +
		strings.ReplaceAll(csp, "'", "&#39;") + `"><script src="/ext-runtime/frame.js"></script><title>Mood</title><script src="app.js"></script></head><body></body></html>`
	if res.StatusCode != http.StatusNonAuthoritativeInfo || string(body) != wantDoc {
		t.Errorf("entry: %d\n%s\nwant\n%s", res.StatusCode, body, wantDoc)
	}
	if res.Header.Get("Content-Type") != "text/html; charset=utf-8" || res.Header.Get("Last-Modified") != "" || res.Header.Get("ETag") != "" {
		t.Errorf("entry headers %v", res.Header)
	}
	wantFrameHeaders(t, "entry", res, csp)
	// Another page of the package: the policy only, no runtime.
	res, body = do(t, noRedirects, "GET", ts.URL+"/ext/mood/sub/page.html", "", asBrowser)
	if want := `<html><head><meta http-equiv="Content-Security-Policy" content="` + strings.ReplaceAll(csp, "'", "&#39;") + `"><title>p</title></head></html>`; string(body) != want {
		t.Errorf("other page: %d %s", res.StatusCode, body)
	}
	if strings.Contains(string(body), `<script src="`+extframe.RuntimePath) {
		t.Error("a page other than the entry loads the runtime")
	}

	// HEAD: the headers and length of GET, no body.
	for _, p := range []string{"/ext/mood/index.html", "/ext/mood/app.js"} {
		get, getBody := do(t, noRedirects, "GET", ts.URL+p, "", asBrowser)
		head, headBody := do(t, noRedirects, "HEAD", ts.URL+p, "", asBrowser)
		if head.StatusCode != get.StatusCode || len(headBody) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(getBody)) {
			t.Errorf("HEAD %s: %d, %d bytes, Content-Length %s; GET %d, %d bytes", p, head.StatusCode, len(headBody), head.Header.Get("Content-Length"), get.StatusCode, len(getBody))
		}
		wantFrameHeaders(t, "HEAD "+p, head, csp)
	}
	res, body = do(t, noRedirects, "POST", ts.URL+"/ext/mood/app.js", "{}", jsonAsBrowser)
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %s", res.StatusCode, body)
	}
	wantFrameHeaders(t, "POST", res, csp)

	for _, tc := range []struct {
		path string
		csp  string
	}{
		{"/ext/mood/", csp},
		{"/ext/mood/sub", csp},
		{"/ext/mood/sub/", csp},
		{"/ext/mood/missing.js", csp},
		{"/ext/mood/escape.txt", csp},
		{"/ext/mood/outdir/secret.txt", csp},
		{"/ext/mood/.secret", csp},
		{"/ext/mood/manifest.json/..", csp},
		{"/ext/mood/../notes/index.js", csp},
		{"/ext/mood/%2e%2e/notes/index.js", csp},
		{"/ext/mood/sub%2Fpage.html", csp},
		{"/ext/mood/sub%5Cpage.html", csp},
		{"/ext/mood/app.js%00", csp},
		{"/ext/mood//etc/passwd", csp},
		{"/ext/mood/C:%5Cx", csp},
		{"/ext/mood/sub/%2e%2e/app.js", csp},
		{"/ext/mood", extframe.ClosedCSP},
		{"/ext/%6Dood/app.js", extframe.ClosedCSP},
		{"/ext/MOOD/app.js", extframe.ClosedCSP},
		{"/ext/notes/index.js", extframe.ClosedCSP},
		{"/ext/off/i.html", extframe.ClosedCSP},
		{"/ext/nobody/x.js", extframe.ClosedCSP},
		{"/ext/../api/session", extframe.ClosedCSP},
	} {
		res, body := do(t, noRedirects, "GET", ts.URL+tc.path, "", asBrowser)
		if res.StatusCode != http.StatusNotFound || strings.Contains(string(body), "-CONTENT") {
			t.Errorf("%s: %d %s, want 404", tc.path, res.StatusCode, body)
		}
		if got := res.Header.Values("Content-Security-Policy"); !slices.Equal(got, []string{tc.csp, extframe.SandboxCSP}) {
			t.Errorf("%s: policies %q, want %q", tc.path, got, tc.csp)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", tc.path)
		}
	}

	// Without the network grant, connect-src is 'none', in the header and
	// the entry's meta element alike.
	if _, err := a.Extensions.Revoke(t.Context(), "mood", []string{"network"}); err != nil {
		t.Fatal(err)
	}
	closed := frameCSP(t, origin, "mood")
	if !strings.Contains(closed, "connect-src 'none';") {
		t.Fatalf("policy without network: %s", closed)
	}
	res, body = do(t, noRedirects, "GET", ts.URL+"/ext/mood/index.html", "", asBrowser)
	wantFrameHeaders(t, "entry without network", res, closed)
	if !strings.Contains(string(body), strings.ReplaceAll(closed, "'", "&#39;")) || strings.Contains(string(body), "api.example.com") {
		t.Errorf("entry without network: %s", body)
	}

	// Safe mode serves nothing; leaving it serves again.
	on, off := true, false
	a.Extensions.SetSafeMode(t.Context(), extensions.SafeModePatch{Active: &on})
	if res, _ := do(t, noRedirects, "GET", ts.URL+"/ext/mood/app.js", "", asBrowser); res.StatusCode != http.StatusNotFound {
		t.Errorf("safe mode: %d", res.StatusCode)
	}
	a.Extensions.SetSafeMode(t.Context(), extensions.SafeModePatch{Active: &off})
	if res, _ := do(t, noRedirects, "GET", ts.URL+"/ext/mood/app.js", "", asBrowser); res.StatusCode != http.StatusOK {
		t.Errorf("after safe mode: %d", res.StatusCode)
	}
}

// wantFrameHeaders checks what every answer of an active extension's
// frame carries (files no-cache, errors no-store: checked apart).
func wantFrameHeaders(t *testing.T, what string, res *http.Response, csp string) {
	t.Helper()
	if got := res.Header.Values("Content-Security-Policy"); !slices.Equal(got, []string{csp, extframe.SandboxCSP}) {
		t.Errorf("%s: policies %q, want %q and %q", what, got, csp, extframe.SandboxCSP)
	}
	for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "SAMEORIGIN"} {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got, v)
		}
	}
}

// TestExtensionPolicyOverTLS: the frame's origin is https when the
// browser came over TLS.
func TestExtensionPolicyOverTLS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testcert.Write(t)
	a := openApp(t)
	installExtensions(t, a)
	_, base := start(t, Config{Router: a.Router, Extensions: a.Extensions, TLSCertFile: certFile, TLSKeyFile: keyFile})
	browser := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	res, body := do(t, browser, "GET", base+"/ext/mood/app.js", "", asBrowser)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("base %s", base)
	}
	wantFrameHeaders(t, "over TLS", res, frameCSP(t, base, "mood", "https://api.example.com"))
}

// TestServeRuntimeScript: /ext-runtime/frame.js is a plain file of the
// built frontend, served as JavaScript.
func TestServeRuntimeScript(t *testing.T) {
	t.Parallel()
	assets := fstest.MapFS{
		"index.html":           {Data: []byte("<!doctype html><title>Hearth UI</title>")},
		"ext-runtime/frame.js": {Data: []byte("(function(){ /* frame runtime */ })();")},
	}
	_, _, ts := serveApp(t, func(c *Config) { c.Assets = assets })
	res, body := do(t, nil, "GET", ts.URL+extframe.RuntimePath, "", asBrowser)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "frame runtime") {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Error("no nosniff")
	}
}
