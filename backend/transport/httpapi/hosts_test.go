package httpapi

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// fakeInterfaces stands in for net.InterfaceAddrs.
func fakeInterfaces(ips ...string) func() ([]net.Addr, error) {
	return func() ([]net.Addr, error) {
		var out []net.Addr
		for _, ip := range ips {
			out = append(out, &net.IPNet{IP: net.ParseIP(ip), Mask: net.CIDRMask(24, 32)})
		}
		return out, nil
	}
}

// hostStatus sends GET /api/session with the given Host and returns the
// status and, for a refusal, the error.
func hostStatus(t *testing.T, base, host string) (int, *apperr.Error) {
	t.Helper()
	res, body := do(t, nil, "GET", base+"/api/session", "", map[string]string{"Host": host})
	if res.StatusCode == http.StatusOK {
		return res.StatusCode, nil
	}
	return res.StatusCode, decodeAPIError(t, body)
}

// TestHostAllowListAllInterfaces: a server bound to every interface answers
// to the machine's own addresses and the loopback names on its port, and to
// the --allowed-host names, and to nothing else. (It listens on loopback
// here; the check reads the port the connection arrived on.)
func TestHostAllowListAllInterfaces(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0"} {
		t.Run(addr, func(t *testing.T) {
			t.Parallel()
			_, ts := serve(t, Config{
				Router: fakeRouter{}, Addr: addr, Password: testPassword,
				AllowedHosts: []string{"hearth.local", "proxy.example:8443"},
			}, func(s *Server) {
				s.hosts.interfaceAddrs = fakeInterfaces("192.0.2.10", "2001:db8::10", "127.0.0.1")
				s.hosts.hostname = func() (string, error) { return "MyPC", nil }
			})
			port := mustURL(t, ts.URL).Port()
			allowed := []string{
				"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port,
				"192.0.2.10:" + port, "[2001:db8::10]:" + port, "[::ffff:192.0.2.10]:" + port,
				"hearth.local", "hearth.local:" + port, "hearth.local:1234", "Hearth.Local.:" + port,
				"proxy.example:8443",
				"mypc:" + port, "mypc.local:" + port, "MyPC.Local:" + port,
			}
			for _, h := range allowed {
				if status, e := hostStatus(t, ts.URL, h); status != http.StatusOK {
					t.Errorf("Host %q refused: %d %v", h, status, e)
				}
			}
			refused := []string{
				"evil.example:" + port, "evil.example", "192.0.2.11:" + port, "192.0.2.10:1",
				"localhost:1", "proxy.example:" + port, "proxy.example", "hearth.local.evil.example:" + port,
				"xhearth.local", "mypc.local:1", "mypc.local", "mypc.evil.example:" + port,
			}
			for _, h := range refused {
				status, e := hostStatus(t, ts.URL, h)
				if status != http.StatusForbidden || e.Code != apperr.CodeAuthDenied {
					t.Errorf("Host %q: %d %v, want 403 auth.denied", h, status, e)
					continue
				}
				if !strings.Contains(e.Message, "--allowed-host") {
					t.Errorf("Host %q: message %q does not name --allowed-host", h, e.Message)
				}
			}
		})
	}
}

// A request that arrives on the LAN address of a server bound to every
// interface is accepted for that address even when the interface list does
// not have it yet (an address that came up after start).
func TestHostAllowsTheAddressTheConnectionArrivedOn(t *testing.T) {
	t.Parallel()
	s, err := New(Config{Router: fakeRouter{}, Addr: "0.0.0.0:8000", Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	s.hosts.interfaceAddrs = fakeInterfaces("127.0.0.1")
	for host, want := range map[string]int{
		"198.51.100.7:8000": http.StatusOK,
		"198.51.100.8:8000": http.StatusForbidden,
		"198.51.100.7:9000": http.StatusForbidden,
		"localhost:8000":    http.StatusOK,
	} {
		if got := serveOn(s, "198.51.100.7:8000", host); got != want {
			t.Errorf("Host %q on 198.51.100.7:8000: %d, want %d", host, got, want)
		}
	}
}

// serveOn runs one GET /api/session through s's handler as if it arrived
// on the local address local, without binding it.
func serveOn(s *Server, local, host string) int {
	req := httptest.NewRequest("GET", "http://"+host+"/api/session", nil)
	req.Host = host
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(mustAddrPort(local))))
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec.Code
}

// TestHostAllowListSpecificAddr: bound to one LAN address, the server
// answers to that address (and the allowed names) only.
func TestHostAllowListSpecificAddr(t *testing.T) {
	t.Parallel()
	s, err := New(Config{Router: fakeRouter{}, Addr: "192.0.2.10:8000", Password: testPassword, AllowedHosts: []string{"nas.lan:8000"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]int{
		"192.0.2.10:8000":   http.StatusOK,
		"nas.lan:8000":      http.StatusOK,
		"NAS.LAN:8000":      http.StatusOK,
		"192.0.2.10":        http.StatusForbidden, // port 80
		"192.0.2.10:8001":   http.StatusForbidden,
		"nas.lan:8001":      http.StatusForbidden,
		"localhost:8000":    http.StatusForbidden, // not listening there
		"127.0.0.1:8000":    http.StatusForbidden,
		"evil.example:8000": http.StatusForbidden,
	}
	for host, want := range tests {
		if got := serveOn(s, "192.0.2.10:8000", host); got != want {
			t.Errorf("Host %q: %d, want %d", host, got, want)
		}
	}
	// A name as the listen address is its own allowed Host.
	named, err := New(Config{Router: fakeRouter{}, Addr: "nas.lan:8000", Password: testPassword})
	if err != nil {
		t.Fatal(err)
	}
	if got := serveOn(named, "192.0.2.10:8000", "nas.lan:8000"); got != http.StatusOK {
		t.Errorf("listen name as Host: %d", got)
	}
	if got := serveOn(named, "192.0.2.10:8000", "evil.example:8000"); got != http.StatusForbidden {
		t.Errorf("foreign Host on a named bind: %d", got)
	}
}

// On loopback, --allowed-host adds names (a local reverse proxy's).
func TestAllowedHostOnLoopback(t *testing.T) {
	t.Parallel()
	_, ts := serve(t, Config{Router: fakeRouter{}, AllowedHosts: []string{"hearth.example.com"}})
	port := mustURL(t, ts.URL).Port()
	for _, h := range []string{"hearth.example.com", "hearth.example.com:443", "127.0.0.1:" + port} {
		if status, e := hostStatus(t, ts.URL, h); status != http.StatusOK {
			t.Errorf("Host %q: %d %v", h, status, e)
		}
	}
	status, e := hostStatus(t, ts.URL, "evil.example:"+port)
	if status != http.StatusForbidden || !strings.Contains(e.Message, "--allowed-host evil.example") {
		t.Errorf("foreign Host: %d %v", status, e)
	}
}

func TestParseAllowedHost(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"hearth.local":       "hearth.local",
		"Hearth.Local.":      "hearth.local",
		"hearth.local:8443":  "hearth.local:8443",
		"192.168.1.5":        "192.168.1.5",
		"192.168.1.5:8000":   "192.168.1.5:8000",
		"[fd00::5]:8000":     "[fd00::5]:8000",
		"fd00::5":            "fd00::5",
		"[fd00::5]":          "fd00::5",
		" my-nas ":           "my-nas",
		"xn--bcher-kva.test": "xn--bcher-kva.test",
	}
	for in, want := range good {
		got, err := ParseAllowedHost(in)
		if err != nil || got != want {
			t.Errorf("ParseAllowedHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                    "empty",
		"http://hearth.local": "not a URL",
		"hearth.local/app":    "not a URL",
		"hearth.local:":       "port",
		"hearth.local:99999":  "port",
		"hearth.local:http":   "port",
		"hearth local":        "not a host name",
		"user@hearth.local":   "not a host name",
		"*.local":             "not a host name",
	}
	for in, want := range bad {
		_, err := ParseAllowedHost(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAllowedHost(%q): err %v, want %q", in, err, want)
		}
	}
	if _, err := New(Config{Router: fakeRouter{}, AllowedHosts: []string{"http://x"}}); err == nil {
		t.Error("New accepted a URL as an allowed host")
	}
}
