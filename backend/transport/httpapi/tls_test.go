package httpapi

import (
	"crypto/tls"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/internal/testcert"
)

func sessionCookieIn(res *http.Response) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == sessionCookie {
			return c
		}
	}
	return nil
}

func TestTLSServer(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testcert.Write(t)
	_, _, base := startApp(t, func(c *Config) {
		c.Password = testPassword
		c.TLSCertFile, c.TLSKeyFile = certFile, keyFile
	})
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Fatalf("URL = %q, want https://127.0.0.1:PORT", base)
	}
	host := strings.TrimPrefix(base, "https://")
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}

	res, body := login(t, browser, base, testPassword)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("login: %d %s", res.StatusCode, body)
	}
	if res.TLS == nil || res.TLS.Version < tls.VersionTLS12 || res.ProtoMajor != 1 {
		t.Errorf("TLS %+v, protocol %s", res.TLS, res.Proto)
	}
	if c := sessionCookieIn(res); c == nil || !c.Secure {
		t.Errorf("session cookie %v is not Secure over TLS", c)
	}
	list := invokeBody(t, "characters.list")
	res, body = do(t, browser, "POST", base+"/api/invoke", list, map[string]string{"Origin": "https://" + host, "Content-Type": "text/plain"})
	if res.StatusCode != http.StatusOK {
		t.Errorf("https origin on a TLS server: %d %s", res.StatusCode, body)
	}
	res, body = do(t, browser, "POST", base+"/api/invoke", list, map[string]string{"Origin": "http://" + host, "Content-Type": "application/json"})
	wantError(t, res, body, http.StatusForbidden, apperr.CodeAuthDenied)

	// No TLS 1.1, and no plain HTTP on the TLS port.
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS11}}}
	if res, err := old.Get(base + "/api/session"); err == nil {
		res.Body.Close()
		t.Error("a TLS 1.1 client was served")
	}
	res, _ = do(t, nil, "GET", "http://"+host+"/api/session", "", nil)
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("plain HTTP to the TLS port: %d", res.StatusCode)
	}
}

func TestNewChecksTLSFiles(t *testing.T) {
	t.Parallel()
	certFile, keyFile, _ := testcert.Write(t)
	tests := []struct {
		cert, key, want string
	}{
		{certFile, "", "both"},
		{"", keyFile, "both"},
		{certFile + ".missing", keyFile, "TLS"},
		{keyFile, certFile, "TLS"},
	}
	for _, tt := range tests {
		_, err := New(Config{Router: fakeRouter{}, TLSCertFile: tt.cert, TLSKeyFile: tt.key})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("cert %q key %q: err %v, want %q", tt.cert, tt.key, err, tt.want)
		}
	}
}

// TestForwardedProto: behind a TLS-terminating proxy, X-Forwarded-Proto
// says the page is https, but only a trusted peer may say so.
func TestForwardedProto(t *testing.T) {
	t.Parallel()
	viaProxy := func(proxies ...string) string {
		_, _, ts := serveApp(t, func(c *Config) {
			c.Password = testPassword
			for _, p := range proxies {
				c.TrustedProxies = append(c.TrustedProxies, netip.MustParsePrefix(p))
			}
		})
		return ts.URL
	}
	tests := []struct {
		name    string
		base    string
		trusted bool
	}{
		{"trusted proxy", viaProxy("127.0.0.1/32"), true},
		{"trusted proxy range", viaProxy("10.0.0.0/8", "127.0.0.0/8"), true},
		{"untrusted peer", viaProxy("10.0.0.0/8"), false},
		{"no trusted proxy", viaProxy(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host := strings.TrimPrefix(tt.base, "http://")
			https := map[string]string{"X-Forwarded-Proto": "https", "Content-Type": "application/json"}
			res, body := do(t, nil, "POST", tt.base+"/api/login", `{"password":"`+testPassword+`"}`, https)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("login: %d %s", res.StatusCode, body)
			}
			c := sessionCookieIn(res)
			if c == nil || c.Secure != tt.trusted {
				t.Errorf("cookie %v: Secure want %v", c, tt.trusted)
			}
			withOrigin := func(origin string) int {
				h := map[string]string{"X-Forwarded-Proto": "https", "Origin": origin, "Content-Type": "application/json"}
				res, _ := do(t, nil, "POST", tt.base+"/api/logout", "", h)
				return res.StatusCode
			}
			wantHTTPS, wantHTTP := http.StatusOK, http.StatusForbidden
			if !tt.trusted {
				wantHTTPS, wantHTTP = http.StatusForbidden, http.StatusOK
			}
			if got := withOrigin("https://" + host); got != wantHTTPS {
				t.Errorf("https origin: %d, want %d", got, wantHTTPS)
			}
			if got := withOrigin("http://" + host); got != wantHTTP {
				t.Errorf("http origin: %d, want %d", got, wantHTTP)
			}
		})
	}
}

func TestViaTLS(t *testing.T) {
	t.Parallel()
	s := &Server{trustedProxies: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("2001:db8::/32")}}
	tests := []struct {
		remote string
		proto  []string
		tls    bool
		want   bool
	}{
		{"192.0.2.1:5000", []string{"https"}, false, true},
		{"192.0.2.1:5000", []string{"HTTPS"}, false, true},
		{"[::ffff:192.0.2.1]:5000", []string{"https"}, false, true},
		{"[2001:db8::5]:5000", []string{"https"}, false, true},
		{"192.0.2.1:5000", []string{"http"}, false, false},
		{"192.0.2.1:5000", []string{"https, http"}, false, false}, // the nearest proxy says http
		{"192.0.2.1:5000", []string{"http", "https"}, false, true},
		{"192.0.2.1:5000", nil, false, false},
		{"198.51.100.1:5000", []string{"https"}, false, false},
		{"198.51.100.1:5000", nil, true, true},
		{"garbage", []string{"https"}, false, false},
	}
	for _, tt := range tests {
		r := &http.Request{RemoteAddr: tt.remote, Header: http.Header{"X-Forwarded-Proto": tt.proto}}
		if tt.tls {
			r.TLS = &tls.ConnectionState{}
		}
		if got := s.viaTLS(r); got != tt.want {
			t.Errorf("viaTLS(%s, %q, tls %v) = %v, want %v", tt.remote, tt.proto, tt.tls, got, tt.want)
		}
	}
}

func TestParseTrustedProxy(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"10.0.0.1":         "10.0.0.1/32",
		"10.0.0.0/8":       "10.0.0.0/8",
		" 192.168.1.0/24 ": "192.168.1.0/24",
		"::1":              "::1/128",
		"fd00::/8":         "fd00::/8",
		"::ffff:10.0.0.1":  "10.0.0.1/32",
	}
	for in, want := range good {
		p, err := ParseTrustedProxy(in)
		if err != nil || p.String() != want {
			t.Errorf("ParseTrustedProxy(%q) = %v, %v; want %s", in, p, err, want)
		}
	}
	bad := map[string]string{
		"":             "empty",
		"proxy.lan":    "not an IP address",
		"10.0.0.0/33":  "not an IP address or CIDR",
		"10.0.0.1/8":   "did you mean 10.0.0.0/8",
		"10.0.0.0/-1":  "not an IP address or CIDR",
		"fe80::1%eth0": "zone",
	}
	for in, want := range bad {
		_, err := ParseTrustedProxy(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTrustedProxy(%q): err %v, want %q", in, err, want)
		}
	}
}
