package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestCrossOriginPostRejected(t *testing.T) {
	t.Parallel()
	a, _, ts := serveApp(t, nil)
	create := invokeBody(t, "characters.create", map[string]any{"name": "Mallory"})
	tests := []struct {
		name   string
		header map[string]string
	}{
		{"foreign origin", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}},
		{"sandboxed frame", map[string]string{"Origin": "null", "Content-Type": "application/json"}},
		{"other port", map[string]string{"Origin": "http://127.0.0.1:1", "Content-Type": "application/json"}},
		{"form without origin", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
		{"text without origin", map[string]string{"Content-Type": "text/plain"}},
		{"no content type", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, body := do(t, nil, "POST", ts.URL+"/api/invoke", create, tt.header)
			wantError(t, res, body, http.StatusForbidden, apperr.CodeAuthDenied)
		})
	}
	t.Cleanup(func() {
		list, err := a.Characters.List(context.Background())
		if err != nil || len(list) != 0 {
			t.Errorf("rejected requests changed state: %v %v", list, err)
		}
	})
}

func TestSameOriginPostAllowed(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)
	u, _ := url.Parse(ts.URL)
	tests := []map[string]string{
		{"Origin": "http://" + u.Host, "Content-Type": "application/json"},
		// A browser always sends Origin on POST; same-origin needs no JSON type.
		{"Origin": "http://" + u.Host, "Content-Type": "text/plain"},
		{"Content-Type": "application/json; charset=utf-8"},
	}
	for _, h := range tests {
		res, body := do(t, nil, "POST", ts.URL+"/api/invoke", invokeBody(t, "characters.list"), h)
		if res.StatusCode != http.StatusOK {
			t.Errorf("headers %v: status %d: %s", h, res.StatusCode, body)
		}
	}
}

func TestForeignHostRejected(t *testing.T) {
	t.Parallel()
	a, _, ts := serveApp(t, nil)
	u, _ := url.Parse(ts.URL)
	port := u.Port()
	rebound := []string{"evil.example:" + port, "evil.example", "127.0.0.1:1", "localhost.evil.example:" + port, "192.168.1.2:" + port}
	for _, host := range rebound {
		h := map[string]string{"Host": host, "Content-Type": "application/json"}
		res, body := do(t, nil, "POST", ts.URL+"/api/invoke", invokeBody(t, "characters.create", map[string]any{"name": "Rebound"}), h)
		wantError(t, res, body, http.StatusForbidden, apperr.CodeAuthDenied)
		res, body = do(t, nil, "GET", ts.URL+"/", "", h)
		wantError(t, res, body, http.StatusForbidden, apperr.CodeAuthDenied)
	}
	if list, _ := a.Characters.List(t.Context()); len(list) != 0 {
		t.Errorf("rebound requests wrote %d characters", len(list))
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port} {
		res, body := do(t, nil, "GET", ts.URL+"/api/session", "", map[string]string{"Host": host})
		if res.StatusCode != http.StatusOK {
			t.Errorf("Host %q: status %d: %s", host, res.StatusCode, body)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	r := &http.Request{Host: "127.0.0.1:8080"}
	tests := []struct {
		origin string
		tls    bool
		want   bool
	}{
		{"http://127.0.0.1:8080", false, true},
		{"HTTP://127.0.0.1:8080", false, true},
		{"https://127.0.0.1:8080", true, true},
		// The scheme must be the one the request came over: a page served
		// over plain HTTP is never https, and the reverse.
		{"https://127.0.0.1:8080", false, false},
		{"http://127.0.0.1:8080", true, false},
		{"http://127.0.0.1:8081", false, false},
		{"http://127.0.0.1", false, false},
		{"http://localhost:8080", false, false},
		{"null", false, false},
		{"file://", false, false},
		{"ws://127.0.0.1:8080", false, false},
		{"http://127.0.0.1:8080/path", false, false},
		{"http://user@127.0.0.1:8080", false, false},
	}
	for _, tt := range tests {
		if got := sameOrigin(tt.origin, r, tt.tls); got != tt.want {
			t.Errorf("sameOrigin(%q, tls %v) = %v, want %v", tt.origin, tt.tls, got, tt.want)
		}
	}
}

// An https page behind an unconfigured proxy is told what to configure.
func TestHTTPSOriginWithoutTrustedProxy(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)
	host := mustURL(t, ts.URL).Host
	res, body := do(t, nil, "POST", ts.URL+"/api/invoke", invokeBody(t, "characters.list"),
		map[string]string{"Origin": "https://" + host, "Content-Type": "application/json"})
	e := wantError(t, res, body, http.StatusForbidden, apperr.CodeAuthDenied)
	if !strings.Contains(e.Message, "--trusted-proxy") {
		t.Errorf("message %q does not name --trusted-proxy", e.Message)
	}
}
