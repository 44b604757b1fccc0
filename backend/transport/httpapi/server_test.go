package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestNewRefusesPublicAddrWithoutPassword(t *testing.T) {
	t.Parallel()
	a := openApp(t)
	tests := []struct {
		addr     string
		password string
		ok       bool
	}{
		{"", "", true},
		{"127.0.0.1:0", "", true},
		{"127.0.0.2:8080", "", true},
		{"localhost:0", "", true},
		{"[::1]:0", "", true},
		{"0.0.0.0:0", "", false},
		{":8080", "", false},
		{"[::]:0", "", false},
		{"192.168.1.5:80", "", false},
		{"hearth.example:80", "", false},
		{"0.0.0.0:0", "secret", true},
		{"no-port", "", false},
	}
	for _, tt := range tests {
		_, err := New(Config{Router: a.Router, Addr: tt.addr, Password: tt.password})
		if (err == nil) != tt.ok {
			t.Errorf("New(Addr %q, password %q): err = %v, want ok=%v", tt.addr, tt.password, err, tt.ok)
		}
		if err != nil && tt.addr == "0.0.0.0:0" && !strings.Contains(err.Error(), "password") {
			t.Errorf("refusal does not say why: %v", err)
		}
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New without a Router succeeded")
	}
}

func TestStartAndClose(t *testing.T) {
	t.Parallel()
	a := openApp(t)
	s, err := New(Config{Router: a.Router, Bus: a.Bus, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.Start(t.Context())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") || s.URL() != base {
		t.Errorf("URL = %q / %q", base, s.URL())
	}
	if _, err := s.Start(t.Context()); err == nil {
		t.Error("second Start succeeded")
	}
	if _, err := NewClient(base, s.Token()).Invoke(t.Context(), "characters.list", nil); err != nil {
		t.Fatalf("invoke: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	_, err = NewClient(base, s.Token()).Invoke(t.Context(), "characters.list", nil)
	if apperr.CodeOf(err) != apperr.CodeInternal {
		t.Errorf("invoke after Close: %v", err)
	}
	if _, err := s.Start(t.Context()); err == nil {
		t.Error("Start after Close succeeded")
	}
}

func TestStartStopsWithContext(t *testing.T) {
	t.Parallel()
	a := openApp(t)
	s, err := New(Config{Router: a.Router})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	base, err := s.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	eventually(t, "server to stop", func() bool {
		_, err := http.Get(base + "/api/session")
		return err != nil
	})
	if err := s.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
}

// A public bind with a password answers to its own addresses and the
// allowed names, and still wants the session. It listens on loopback here
// (tests bind nothing else); the Host check reads the connection's port.
func TestPublicBindWithPassword(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, func(c *Config) {
		c.Addr, c.Password, c.AllowedHosts = "0.0.0.0:0", testPassword, []string{"hearth.lan"}
	})
	port := mustURL(t, ts.URL).Port()
	lan := map[string]string{"Host": "hearth.lan:" + port, "Content-Type": "application/json", "Authorization": ""}
	res, body := do(t, nil, "POST", ts.URL+"/api/invoke", invokeBody(t, "characters.list"), lan)
	wantError(t, res, body, http.StatusUnauthorized, apperr.CodeAuthDenied)
	rebound := map[string]string{"Host": "evil.example:" + port, "Content-Type": "application/json"}
	res, body = do(t, nil, "POST", ts.URL+"/api/login", `{"password":"`+testPassword+`"}`, rebound)
	wantError(t, res, body, http.StatusForbidden, apperr.CodeAuthDenied)

	c := NewClient(ts.URL, "")
	if err := c.Login(t.Context(), testPassword); err != nil {
		t.Fatalf("login: %v", err)
	}
	if _, err := c.Invoke(t.Context(), "characters.list", nil); err != nil {
		t.Fatalf("invoke: %v", err)
	}
}

func TestIsLoopbackAddr(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"127.0.0.1:1": true, "127.255.0.9:1": true, "[::1]:1": true, "localhost:1": true,
		"LocalHost:1": true, "[::ffff:127.0.0.1]:1": true,
		"0.0.0.0:1": false, ":1": false, "[::]:1": false, "10.0.0.1:1": false, "example.com:1": false,
	}
	for addr, want := range tests {
		got, err := isLoopbackAddr(addr)
		if err != nil || got != want {
			t.Errorf("isLoopbackAddr(%q) = %v, %v; want %v", addr, got, err, want)
		}
	}
}
