package extensions

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hearth/backend/apperr"
)

// tlsServer serves h over TLS on 127.0.0.1; the fetcher it returns
// reaches it under any host name (its certificate is for example.com),
// never the real network.
func tlsServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *Fetcher) {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	tr := srv.Client().Transport.(*http.Transport).Clone()
	addr := srv.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{Timeout: time.Second}).DialContext(ctx, network, addr)
	}
	tr.TLSClientConfig = &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs, ServerName: "example.com"}
	return srv, NewFetcher(&http.Client{Transport: tr})
}

func TestArchiveURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{
		"https://github.com/o/My-Ext":             {"https://codeload.github.com/o/My-Ext/zip/HEAD", "My-Ext"},
		"https://github.com/o/r.git":              {"https://codeload.github.com/o/r/zip/HEAD", "r"},
		"https://codeberg.org/o/r/":               {"https://codeberg.org/o/r/archive/HEAD.zip", "r"},
		"https://gitlab.com/g/sub/r":              {"https://gitlab.com/g/sub/r/-/archive/HEAD/r-HEAD.zip", "r"},
		"https://example.com/dl/pack-1.2.ZIP?x=1": {"https://example.com/dl/pack-1.2.ZIP?x=1", "pack-1.2"},
	} {
		u, name, err := archiveURL(in)
		if err != nil || u != want[0] || name != want[1] {
			t.Errorf("archiveURL(%s) = %s, %s, %v; want %v", in, u, name, err, want)
		}
	}
	for _, bad := range []string{"http://github.com/o/r", "https://github.com/o", "file:///etc", "https://u:p@x.com/o/r", "ftp://x/a.zip"} {
		if _, _, err := archiveURL(bad); err == nil {
			t.Errorf("archiveURL(%s) accepted", bad)
		}
	}
}

func TestInstallFromURL(t *testing.T) {
	t.Parallel()
	pkg := makeZip(t, zipEntry{name: "r-HEAD/manifest.json", body: pageManifest}, zipEntry{name: "r-HEAD/index.js", body: "1"})
	var hits atomic.Int32
	_, f := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/o/r/archive/HEAD.zip":
			http.Redirect(w, r, "/files/r.zip", http.StatusFound)
		case "/files/r.zip":
			w.Write(pkg)
		case "/loop.zip":
			http.Redirect(w, r, "/loop.zip", http.StatusFound)
		case "/plain.zip":
			http.Redirect(w, r, "http://example.com/files/r.zip", http.StatusFound)
		case "/huge.zip":
			w.Header().Set("Content-Length", "99999999999")
		case "/stall.zip":
			w.Write([]byte("PK"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			http.NotFound(w, r)
		}
	})
	f.readTimeout = 300 * time.Millisecond
	e := newEnv(t, func(o *Options) { o.Fetcher = f })
	ctx := context.Background()
	got, err := e.svc.Install(ctx, Source{URL: "https://example.com/o/r"}, InstallOptions{Enable: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "r" || got.Source != (SourceInfo{"url", "https://example.com/o/r"}) || got.Status != StatusActive {
		t.Errorf("installed %+v", got)
	}
	before := hits.Load()
	if _, err := e.svc.Update(ctx, "r"); err != nil {
		t.Fatal(err)
	}
	if hits.Load() == before {
		t.Error("update did not fetch again")
	}
	for _, c := range []struct{ url, says string }{
		{"https://example.com/loop.zip", "redirects"},
		{"https://example.com/plain.zip", "not https"},
		{"https://example.com/huge.zip", "at most"},
		{"https://example.com/stall.zip", "no data"},
		{"https://example.com/missing.zip", "404"},
	} {
		_, err := e.svc.Install(ctx, Source{URL: c.url}, InstallOptions{})
		if ae := wantCode(t, err, CodeFetchFailed); !strings.Contains(ae.Message, c.says) {
			t.Errorf("%s: %s, want it to say %q", c.url, ae.Message, c.says)
		}
	}
	if dirs, rows := e.installed(); len(dirs) != 1 || rows != 1 {
		t.Errorf("failed fetches left %v, %d rows", dirs, rows)
	}
}

// TestDefaultFetcherRefusesLocalAddresses: without a proxy, the default
// transport will not connect to the machine itself or a local network
// (nothing is dialled: the check runs before the connection).
func TestDefaultFetcherRefusesLocalAddresses(t *testing.T) {
	t.Parallel()
	f := newFetcher(defaultTransport(func(*http.Request) (*url.URL, error) { return nil, nil }))
	for _, u := range []string{"https://127.0.0.1:9/a.zip", "https://[::1]:9/a.zip", "https://10.1.2.3:9/a.zip", "https://169.254.169.254/o/r"} {
		_, _, err := f.Fetch(context.Background(), u)
		if ae := apperr.As(err); ae == nil || ae.Code != CodeFetchFailed || !strings.Contains(ae.Message, "not a public address") {
			t.Errorf("%s: %v, want it refused as not public", u, err)
		}
	}
	for ip, want := range map[string]bool{"8.8.8.8": true, "100.64.0.1": false, "192.168.1.1": false, "2606:4700::1": true, "fe80::1": false, "0.1.2.3": false} {
		if got := publicIP(net.ParseIP(ip)); got != want {
			t.Errorf("publicIP(%s) = %v", ip, got)
		}
	}
}
