package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"hearth/backend/app"
	"hearth/backend/apperr"
)

// openApp opens a real app on a temp data dir, closed when the test ends.
func openApp(t *testing.T) *app.App {
	t.Helper()
	a, err := app.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatalf("app.Open: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// serveApp runs a Server over a real app behind httptest; tweak adjusts the
// config before New, tune the server before it takes requests.
func serveApp(t *testing.T, tweak func(*Config), tune ...func(*Server)) (*app.App, *Server, *httptest.Server) {
	t.Helper()
	a := openApp(t)
	cfg := Config{Router: a.Router, Bus: a.Bus, Avatars: a.Characters}
	if tweak != nil {
		tweak(&cfg)
	}
	s, ts := serve(t, cfg, tune...)
	return a, s, ts
}

// freezeLogins stops the login budget's clock, so a test that spends the
// budget sees it spent however slowly the machine runs (it refills one
// attempt every loginEvery).
func freezeLogins(s *Server) {
	at := time.Now()
	s.auth.limiter.now = func() time.Time { return at }
}

// testToken is the launch token of the tests' servers; do sends it unless
// told otherwise.
const testToken = "test-launch-token"

// serve runs cfg behind httptest; both are closed when the test ends.
func serve(t *testing.T, cfg Config, tune ...func(*Server)) (*Server, *httptest.Server) {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	for _, f := range tune {
		f(s)
	}
	// The same http.Server settings Start uses (timeouts, connection
	// hooks), on httptest's loopback listener.
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Config = s.newHTTPServer()
	ts.Start()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		ts.Close()
	})
	return s, ts
}

// start runs cfg through Server.Start on a loopback port and returns its
// URL; tune adjusts the server before it listens. Closed when the test ends.
func start(t *testing.T, cfg Config, tune ...func(*Server)) (*Server, string) {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	for _, f := range tune {
		f(s)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	base, err := s.Start(t.Context())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return s, base
}

// startApp is serveApp through Server.Start.
func startApp(t *testing.T, tweak func(*Config), tune ...func(*Server)) (*app.App, *Server, string) {
	t.Helper()
	a := openApp(t)
	cfg := Config{Router: a.Router, Bus: a.Bus, Avatars: a.Characters}
	if tweak != nil {
		tweak(&cfg)
	}
	s, base := start(t, cfg, tune...)
	return a, s, base
}

// do sends a request with a body and headers and returns status, headers
// and body. It sends the launch token as a script would, unless header
// has an "Authorization" entry ("" sends none: a browser, a stranger).
func do(t *testing.T, c *http.Client, method, url, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if _, set := header["Authorization"]; !set {
		req.Header.Set("Authorization", "Bearer "+testToken)
	}
	for k, v := range header {
		if k == "Authorization" && v == "" {
			continue
		}
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, data
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

// asBrowser and jsonAsBrowser send no launch token: a browser with only
// its cookies, or a stranger.
var (
	asBrowser     = map[string]string{"Authorization": ""}
	jsonAsBrowser = map[string]string{"Authorization": "", "Content-Type": "application/json"}
)

// tokenLine is the launch token as a raw request's header line.
const tokenLine = "Authorization: Bearer " + testToken

// invokeBody renders a POST /api/invoke body.
func invokeBody(t *testing.T, method string, args ...any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"method": method, "args": args})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decodeAPIError reads the {"error": {...}} body.
func decodeAPIError(t *testing.T, body []byte) *apperr.Error {
	t.Helper()
	var eb struct {
		Error *apperr.Error `json:"error"`
	}
	if err := json.Unmarshal(body, &eb); err != nil || eb.Error == nil {
		t.Fatalf("body is not an API error: %s", body)
	}
	return eb.Error
}

// wantError checks status and code of an error response.
func wantError(t *testing.T, res *http.Response, body []byte, status int, code string) *apperr.Error {
	t.Helper()
	if res.StatusCode != status {
		t.Errorf("status = %d, want %d (body %s)", res.StatusCode, status, body)
	}
	e := decodeAPIError(t, body)
	if e.Code != code {
		t.Errorf("code = %q, want %q (message %q)", e.Code, code, e.Message)
	}
	if e.Message == "" {
		t.Errorf("error %q has no message", e.Code)
	}
	return e
}

// tinyPNG returns a 2×2 PNG.
func tinyPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func b64(data []byte) string { return base64.StdEncoding.EncodeToString(data) }

// eventually polls cond until it holds or a few seconds pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func mustAddrPort(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
