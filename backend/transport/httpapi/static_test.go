package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
)

// wantAppHeaders checks the headers every HTML page must carry.
func wantAppHeaders(t *testing.T, res *http.Response) {
	t.Helper()
	if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q", got)
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{
		"default-src 'self'", "img-src 'self' data: blob:", "style-src 'self' 'unsafe-inline'",
		"script-src 'self'", "connect-src 'self' ws://" + res.Request.URL.Host, "frame-src 'self'", "frame-ancestors 'none'",
		"object-src 'none'",
	} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
		t.Errorf("CSP %q allows inline or eval'd scripts", csp)
	}
}

func TestStaticPlaceholder(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)
	res, body := do(t, nil, "GET", ts.URL+"/", "", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "Hearth is running") {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type = %q", ct)
	}
	wantAppHeaders(t, res)
}

func TestStaticAssets(t *testing.T) {
	t.Parallel()
	assets := fstest.MapFS{
		"index.html":            {Data: []byte("<!doctype html><title>Hearth UI</title>")},
		"assets/app-1a2b3c.js":  {Data: []byte("console.log('hi')")},
		"assets/app-1a2b3c.css": {Data: []byte("body{}")},
		"favicon.svg":           {Data: []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")},
	}
	_, _, ts := serveApp(t, func(c *Config) { c.Assets = assets })
	tests := []struct {
		path, contentType, body, cache string
		status                         int
	}{
		{"/", "text/html", "Hearth UI", "no-cache", http.StatusOK},
		{"/index.html", "text/html", "Hearth UI", "no-cache", http.StatusOK},
		{"/chats/abc-123", "text/html", "Hearth UI", "no-cache", http.StatusOK},
		{"/assets", "text/html", "Hearth UI", "no-cache", http.StatusOK},
		{"/assets/app-1a2b3c.js", "text/javascript", "console.log", "immutable", http.StatusOK},
		{"/assets/app-1a2b3c.css", "text/css", "body{}", "immutable", http.StatusOK},
		{"/favicon.svg", "image/svg+xml", "<svg", "no-cache", http.StatusOK},
		{"/assets/missing.js", "text/plain", "404", "", http.StatusNotFound},
		{"/../../secret.txt", "text/plain", "404", "", http.StatusNotFound},
	}
	for _, tt := range tests {
		res, body := do(t, nil, "GET", ts.URL+tt.path, "", nil)
		if res.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.path, res.StatusCode, tt.status)
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
			t.Errorf("%s: Content-Type %q, want %q", tt.path, ct, tt.contentType)
		}
		if !strings.Contains(string(body), tt.body) {
			t.Errorf("%s: body %q lacks %q", tt.path, body, tt.body)
		}
		if !strings.Contains(res.Header.Get("Cache-Control"), tt.cache) {
			t.Errorf("%s: Cache-Control %q, want %q", tt.path, res.Header.Get("Cache-Control"), tt.cache)
		}
		if tt.contentType == "text/html" {
			wantAppHeaders(t, res)
		}
	}
	res, body := do(t, nil, "POST", ts.URL+"/", "{}", jsonHeader)
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: status %d: %s", res.StatusCode, body)
	}
}
