package cli

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"hearth/backend/internal/testcert"
)

var servingLine = regexp.MustCompile(`^Hearth is serving at (https?://127\.0\.0\.1:[1-9][0-9]*/)(\?token=([A-Za-z0-9_-]{43}))?$`)

// served is a `hearth serve` running in the background.
type served struct {
	url   string // the base URL, with its trailing slash
	token string // the launch token the printed address carried, if any
	dir   string // the data folder
	// stop stops it (like SIGINT would) and returns the exit code.
	stop   func() int
	stderr *syncBuffer
}

// startServe runs `hearth serve` in the background on a new data folder.
func startServe(t *testing.T, args ...string) served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	p := &Program{
		Assets: fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>Hearth</title><p>placeholder")}},
		Stdout: outW, Stderr: stderr, Getenv: env(nil),
	}
	done := make(chan int, 1)
	dir := t.TempDir()
	go func() {
		done <- p.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir}, args...))
		outW.Close()
	}()
	stop := func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop")
			return -1
		}
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	m := servingLine.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
	if err != nil || m == nil {
		code := stop()
		t.Fatalf("first line %q (err %v, exit %d, stderr %s)", line, err, code, stderr)
	}
	return served{url: m[1], token: m[3], dir: dir, stop: stop, stderr: stderr}
}

// post sends a JSON body, with the bearer token when one is given, and
// returns the status and body.
func post(t *testing.T, client *http.Client, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res.StatusCode, strings.TrimSpace(string(data))
}

func TestServeServesFrontendAndAPI(t *testing.T) {
	t.Parallel()
	srv := startServe(t)
	url, stop, stderr := srv.url, srv.stop, srv.stderr

	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "placeholder") {
		t.Fatalf("GET / = %d %s", res.StatusCode, page)
	}

	if status, body := post(t, nil, url+"api/invoke", srv.token, `{"method":"characters.list","args":[]}`); status != http.StatusOK || body != `{"result":[]}` {
		t.Fatalf("invoke = %d %s", status, body)
	}

	if code := stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := http.Get(url); err == nil {
		t.Fatal("server still answering after stop")
	}
}

func TestServeWithPasswordRequiresLogin(t *testing.T) {
	t.Parallel()
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, "--password-file", pwFile)
	url := srv.url
	defer srv.stop()
	if srv.token != "" {
		t.Errorf("a password server printed its launch token")
	}
	res, err := http.Post(url+"api/invoke", "application/json", strings.NewReader(`{"method":"characters.list","args":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("invoke without login = %d, want 401", res.StatusCode)
	}
	res, err = http.Post(url+"api/login", "application/json", strings.NewReader(`{"password":"hunter2"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("login with the file's password (newline trimmed) = %d", res.StatusCode)
	}
}

func TestServeRefusesBadSetups(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:0"}, "without a password"},
		{[]string{"--password-file", empty}, "is empty"},
		{[]string{"--password-file", empty + ".missing"}, "read password file"},
		{[]string{"--tls-cert", empty + ".missing", "--tls-key", empty + ".missing"}, "load TLS certificate"},
		{[]string{"--tls-cert", empty, "--tls-key", empty}, "load TLS certificate"},
	}
	for _, tc := range tests {
		args := append([]string{"serve", "--data-dir", t.TempDir()}, tc.args...)
		code, stdout, stderr := run(&Program{}, args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

func TestServeFlags(t *testing.T) {
	t.Parallel()
	o, err := (&Program{Stderr: io.Discard}).parseServeFlags(&globals{}, []string{
		"--addr", "0.0.0.0:8443", "--tls-cert", "c.pem", "--tls-key", "k.pem",
		"--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "::1",
		"--allowed-host", "Hearth.Local.", "--allowed-host", "proxy.example:443",
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.addr != "0.0.0.0:8443" || o.tlsCert != "c.pem" || o.tlsKey != "k.pem" {
		t.Errorf("options %+v", o)
	}
	if got := (*proxyList)(&o.trustedProxies).String(); got != "10.0.0.0/8,::1/128" {
		t.Errorf("trusted proxies %s", got)
	}
	if got := strings.Join(o.allowedHosts, ","); got != "hearth.local,proxy.example:443" {
		t.Errorf("allowed hosts %s", got)
	}
	o, err = (&Program{Stderr: io.Discard}).parseServeFlags(&globals{}, nil)
	if err != nil || o.addr != defaultServeAddr || o.tlsCert != "" || len(o.trustedProxies)+len(o.allowedHosts) != 0 {
		t.Errorf("defaults %+v, %v", o, err)
	}
}

func TestServeFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--tls-cert", "c.pem"}, []string{"--tls-cert and --tls-key go together"}},
		{[]string{"--tls-key", "k.pem"}, []string{"--tls-cert and --tls-key go together"}},
		{[]string{"--trusted-proxy", "10.0.0.0/33"}, []string{`invalid value "10.0.0.0/33" for flag -trusted-proxy`, "not an IP address or CIDR prefix"}},
		{[]string{"--trusted-proxy", "10.1.2.3/8"}, []string{"did you mean 10.0.0.0/8?"}},
		{[]string{"--trusted-proxy", "proxy.lan"}, []string{"host names are not accepted"}},
		{[]string{"--allowed-host", "https://hearth.example.com"}, []string{`invalid value "https://hearth.example.com" for flag -allowed-host`, "not a URL"}},
		{[]string{"--allowed-host", "hearth.local:0"}, []string{"port must be a number from 1 to 65535"}},
		{[]string{"--allowed-host", "*.local"}, []string{"not a host name"}},
	}
	for _, tc := range tests {
		args := append([]string{"serve", "--data-dir", t.TempDir()}, tc.args...)
		code, stdout, stderr := run(&Program{}, args...)
		if code != 2 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q; want 2", tc.args, code, stdout)
		}
		for _, want := range tc.want {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, stderr, want)
			}
		}
	}
}

func TestServeTLS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pool := testcert.Write(t)
	srv := startServe(t, "--tls-cert", certFile, "--tls-key", keyFile)
	url, stop, stderr := srv.url, srv.stop, srv.stderr
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("serving line printed %q, want https", url)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if status, body := post(t, client, url+"api/invoke", srv.token, `{"method":"characters.list","args":[]}`); status != http.StatusOK || body != `{"result":[]}` {
		t.Fatalf("invoke over TLS = %d %s", status, body)
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// The proxy and host flags reach the server: a trusted proxy's
// X-Forwarded-Proto makes the cookie Secure, an allowed name is answered
// and any other refused with a pointer to the flag.
func TestServeProxyFlags(t *testing.T) {
	t.Parallel()
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, "--password-file", pwFile, "--trusted-proxy", "127.0.0.0/8", "--allowed-host", "hearth.example.com")
	url := srv.url
	defer srv.stop()
	send := func(host string) (*http.Response, string) {
		req, err := http.NewRequest("POST", url+"api/login", strings.NewReader(`{"password":"hunter2"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-Proto", "https")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res, string(body)
	}
	res, body := send("hearth.example.com")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("login via the allowed name: %d %s", res.StatusCode, body)
	}
	if cookies := res.Cookies(); len(cookies) != 1 || !cookies[0].Secure {
		t.Errorf("cookies %v: want one Secure session cookie", cookies)
	}
	res, body = send("evil.example")
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "--allowed-host") {
		t.Errorf("foreign Host: %d %s", res.StatusCode, body)
	}
}

// TestServeLaunchToken: the address serve prints carries its launch token,
// which is also in the data folder's serve-token file (0600) for scripts;
// without it the API refuses even a loopback caller; the file goes when
// the server stops.
func TestServeLaunchToken(t *testing.T) {
	t.Parallel()
	srv := startServe(t)
	if srv.token == "" {
		t.Fatal("the printed address has no token")
	}
	file := filepath.Join(srv.dir, TokenFile)
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if st.Mode().Perm() != 0o600 || strings.TrimSpace(string(data)) != srv.token {
		t.Errorf("%s: mode %v, content %q; want 0600 and the printed token", file, st.Mode().Perm(), data)
	}
	if !strings.Contains(srv.stderr.String(), file) {
		t.Errorf("stderr does not say where the token is: %s", srv.stderr)
	}
	const list = `{"method":"characters.list","args":[]}`
	if status, body := post(t, nil, srv.url+"api/invoke", "", list); status != http.StatusUnauthorized {
		t.Errorf("without the token: %d %s", status, body)
	}
	if status, body := post(t, nil, srv.url+"api/invoke", strings.TrimSpace(string(data)), list); status != http.StatusOK {
		t.Errorf("with the file's token: %d %s", status, body)
	}
	if code := srv.stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, srv.stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the token file outlived the server: %v", err)
	}
}

// TestServeLibraryRoot: served, library.importST and exportST work only
// under a --library-root (none: off), and a root that is no folder stops
// serve before it listens.
func TestServeLibraryRoot(t *testing.T) {
	t.Parallel()
	fixture, err := filepath.Abs(filepath.Join("..", "library", "testdata", "default-user"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	call := func(srv served, method, arg string) (int, string) {
		t.Helper()
		return post(t, nil, srv.url+"api/invoke", srv.token, `{"method":"`+method+`","args":[`+strconv.Quote(arg)+`]}`)
	}

	off := startServe(t)
	defer off.stop()
	for _, method := range []string{"library.importST", "library.exportST"} {
		if status, body := call(off, method, filepath.Join(root, "x")); status == http.StatusOK || !strings.Contains(body, "library.path_not_allowed") || !strings.Contains(body, "--library-root") {
			t.Errorf("%s without a root: %d %s", method, status, body)
		}
	}
	if status, body := post(t, nil, off.url+"api/invoke", off.token, `{"method":"library.access","args":[]}`); body != `{"result":{"confined":true,"roots":[]}}` {
		t.Errorf("library.access without a root: %d %s", status, body)
	}

	on := startServe(t, "--library-root", root)
	defer on.stop()
	if status, body := call(on, "library.importST", fixture); !strings.Contains(body, "library.path_not_allowed") {
		t.Errorf("import from outside the root: %d %s", status, body)
	}
	if status, body := call(on, "library.exportST", filepath.Join(t.TempDir(), "out")); !strings.Contains(body, "library.path_not_allowed") {
		t.Errorf("export outside the root: %d %s", status, body)
	}
	if status, body := call(on, "library.exportST", filepath.Join(root, "out")); status != http.StatusOK || !strings.Contains(body, `"folder":`) {
		t.Errorf("export under the root: %d %s", status, body)
	}

	code, _, stderr := run(&Program{}, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--library-root", filepath.Join(root, "missing"))
	if code != 1 || !strings.Contains(stderr, "library root") {
		t.Errorf("a missing root: exit %d, %s", code, stderr)
	}
}

// TestServeSafeMode: `hearth serve --safe-mode` starts with extensions
// off and says it was the flag.
func TestServeSafeMode(t *testing.T) {
	t.Parallel()
	srv := startServe(t, "--safe-mode")
	status, body := post(t, nil, srv.url+"api/invoke", srv.token, `{"method":"extensions.safeMode","args":[]}`)
	if status != http.StatusOK || body != `{"result":{"active":true,"atStart":false,"flag":true}}` {
		t.Errorf("safeMode = %d %s", status, body)
	}
	if code := srv.stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, srv.stderr)
	}
}
