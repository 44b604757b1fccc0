package wailsbridge

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/internal/extframe"
)

// fakeFrames serves the frame files of the sandboxed extensions it holds
// and, under "page:"+id, the folder of a page extension.
type fakeFrames map[string]extframe.Files

func (f fakeFrames) FrameFiles(_ context.Context, id string) (extframe.Files, error) {
	if files, ok := f[id]; ok && files.Entry != "" {
		return files, nil
	}
	return extframe.Files{}, apperr.New("extension.not_found", "no extension %q", id)
}

func (f fakeFrames) PageDir(_ context.Context, id string) (string, error) {
	if files, ok := f["page:"+id]; ok {
		return files.Dir, nil
	}
	return "", apperr.New("extension.not_found", "no extension %q", id)
}

// extensionPackage writes a sandboxed extension's installed folder.
func extensionPackage(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mood")
	for name, body := range map[string]string{
		"index.html":     `<!doctype html><html><head><title>Mood</title><script src="app.js"></script></head></html>`,
		"app.js":         "console.log(1)",
		"sub/index.html": "<html><head></head><body>sub</body></html>",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// distWithRuntime stands in for Wails' asset handler over a built
// frontend that holds the frame runtime, typed as Wails types .js
// (pkg/assetserver/mimecache.go: text/javascript; charset=utf-8).
func distWithRuntime() http.Handler {
	files := fstest.MapFS{
		"index.html":           {Data: []byte(indexHTML)},
		"ext-runtime/frame.js": {Data: []byte("(function(){ /* frame runtime */ })();")},
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
		if strings.HasSuffix(name, ".js") {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		}
		http.ServeContent(w, r, name, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), f.(io.ReadSeeker))
	})
}

// wailsRuntimeInjection models what Wails' AssetServer.ServeHTTP (v2.12,
// pkg/assetserver/assetserver.go) does around the middleware: a GET whose
// path ends in "/" or "/index.html" and whose answer is 200 text/html is
// parsed and gets Wails' scripts first in its head.
func wailsRuntimeInjection(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !(strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, "/index.html")) {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		body := rec.Body.String()
		if rec.Code == http.StatusOK && strings.Contains(rec.Header().Get("Content-Type"), "text/html") {
			i := strings.Index(strings.ToLower(body), "<head>") + len("<head>")
			body = body[:i] + `<script src="/wails/ipc.js"></script>` + body[i:]
		}
		w.WriteHeader(rec.Code)
		io.WriteString(w, body)
	})
}

// TestMiddlewareServesExtensionFrames: /ext/<id>/… in the window is the
// same shared handler as in `hearth serve`, with wails://wails as the
// origin; nothing under /ext/ or /ext-runtime/ gets the token, and Wails'
// own scripts never land before the frame's policy.
func TestMiddlewareServesExtensionFrames(t *testing.T) {
	t.Parallel()
	frames := fakeFrames{"mood": {Dir: extensionPackage(t), Entry: "index.html", Connect: []string{"https://api.example.com"}}}
	h := wailsRuntimeInjection(Middleware(testToken, nil, nil, WithExtensions(frames))(distWithRuntime()))
	csp, err := extframe.CSP(AppOrigin, "mood", []string{"https://api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	navigation := map[string]string{"Accept": "text/html,application/xhtml+xml", "Sec-Fetch-Dest": "document"}

	res := get(t, h, "/ext/mood/index.html", navigation)
	text := body(t, res)
	want := `<!doctype html><html><head>` + string(extframe.EntryHead(csp)) + `<title>Mood</title>`
	if res.StatusCode != http.StatusNonAuthoritativeInfo || !strings.HasPrefix(text, want) {
		t.Errorf("entry: %d %s\nwant it to open with %s", res.StatusCode, text, want)
	}
	if got := res.Header.Values("Content-Security-Policy"); len(got) != 2 || got[0] != csp || got[1] != extframe.SandboxCSP {
		t.Errorf("entry policies %q", got)
	}
	res = get(t, h, "/ext/mood/sub/index.html", navigation)
	if text := body(t, res); !strings.HasPrefix(text, "<html><head>"+string(extframe.PolicyHead(csp))+"</head>") {
		t.Errorf("another page: %d %s", res.StatusCode, text)
	}
	res = get(t, h, "/ext/mood/app.js", nil)
	if text := body(t, res); res.StatusCode != http.StatusOK || text != "console.log(1)" || res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Errorf("script: %d %q %v", res.StatusCode, text, res.Header)
	}
	for _, p := range []string{"/ext/mood/", "/ext/mood/%2e%2e/%2e%2e/index.html", "/ext/mood/../../index.html", "/ext/nobody/index.html", "/ext/mood/sub"} {
		res := get(t, h, p, navigation)
		if text := body(t, res); res.StatusCode != http.StatusNotFound || strings.Contains(text, testToken) || strings.Contains(text, "wails/ipc.js") {
			t.Errorf("%s: %d %s, want a 404 without the token", p, res.StatusCode, text)
		}
	}

	// The runtime is the frontend's file, passed through untouched.
	for _, hdr := range []map[string]string{nil, navigation} {
		res = get(t, h, extframe.RuntimePath, hdr)
		text = body(t, res)
		if res.StatusCode != http.StatusOK || !strings.Contains(text, "frame runtime") || res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Errorf("runtime: %d %q %v", res.StatusCode, text, res.Header)
		}
		if strings.Contains(text, testToken) || strings.Contains(text, BootElementID) {
			t.Error("the runtime script carries the token")
		}
	}

	// The model of Wails' injection does rewrite the main document.
	if text := body(t, get(t, h, "/", navigation)); !strings.Contains(text, "/wails/ipc.js") || !strings.Contains(text, testToken) {
		t.Errorf("main document: %s", text)
	}

	// Without the extension service, nothing is served under /ext/.
	bare := Middleware(testToken, nil, nil)(distWithRuntime())
	if res := get(t, bare, "/ext/mood/app.js", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("without extensions: %d", res.StatusCode)
	}
}

// TestMiddlewareServesPageExtensions: a page extension's files are the
// shared handler's in the window too, an index.html among them as
// written (Wails' injection never reaches it), never with the token.
func TestMiddlewareServesPageExtensions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{"index.js": "export const x = 1;", "index.html": "<html><head></head><body>{{x}}</body></html>"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	frames := fakeFrames{"page:notes": {Dir: dir}}
	h := wailsRuntimeInjection(Middleware(testToken, nil, nil, WithExtensions(frames))(distWithRuntime()))
	navigation := map[string]string{"Accept": "text/html,application/xhtml+xml", "Sec-Fetch-Dest": "document"}

	res := get(t, h, extframe.PagePathPrefix+"notes/index.js", nil)
	if text := body(t, res); res.StatusCode != http.StatusOK || text != "export const x = 1;" || res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Errorf("module: %d %q %v", res.StatusCode, text, res.Header)
	}
	if got := res.Header.Get("Content-Security-Policy"); got != extframe.PageCSP {
		t.Errorf("module policy %q", got)
	}
	res = get(t, h, extframe.PagePathPrefix+"notes/index.html", navigation)
	if text := body(t, res); res.StatusCode != http.StatusNonAuthoritativeInfo || text != "<html><head></head><body>{{x}}</body></html>" {
		t.Errorf("template: %d %q", res.StatusCode, text)
	}
	for _, p := range []string{"notes/", "notes/../../index.html", "mood/index.js", "nobody/index.js"} {
		res := get(t, h, extframe.PagePathPrefix+p, navigation)
		if text := body(t, res); res.StatusCode != http.StatusNotFound || strings.Contains(text, testToken) {
			t.Errorf("%s: %d %s, want a 404 without the token", p, res.StatusCode, text)
		}
	}
}

// TestExtensionPathsAreNeverTheMainDocument: however a frame asks, only /
// and /index.html carry the boot element.
func TestExtensionPathsAreNeverTheMainDocument(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"/ext/mood/index.html", "/ext/mood/", "/ext/index.html", extframe.RuntimePath, "/ext-runtime/index.html"} {
		for _, hdr := range []map[string]string{{"Sec-Fetch-Dest": "document"}, {"Accept": "text/html"}} {
			r := httptest.NewRequest(http.MethodGet, "wails://wails"+p, nil)
			for k, v := range hdr {
				r.Header.Set(k, v)
			}
			if isMainDocument(r) {
				t.Errorf("%s %v is taken for the main document", p, hdr)
			}
		}
	}
}
