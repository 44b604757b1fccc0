package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

var servingLine = regexp.MustCompile(`^Hearth is serving at (http://127\.0\.0\.1:[1-9][0-9]*/)$`)

// startServe runs `hearth serve` in the background and returns its URL, a
// function that stops it (like SIGINT would) and returns the exit code,
// and its stderr.
func startServe(t *testing.T, args ...string) (url string, stop func() int, stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	stderr = &syncBuffer{}
	p := &Program{
		Assets: fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>Hearth</title><p>placeholder")}},
		Stdout: outW, Stderr: stderr, Getenv: env(nil),
	}
	done := make(chan int, 1)
	go func() {
		done <- p.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, args...))
		outW.Close()
	}()
	stop = func() int {
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
	return m[1], stop, stderr
}

func TestServeServesFrontendAndAPI(t *testing.T) {
	t.Parallel()
	url, stop, stderr := startServe(t)

	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(page), "placeholder") {
		t.Fatalf("GET / = %d %s", res.StatusCode, page)
	}

	res, err = http.Post(url+"api/invoke", "application/json", strings.NewReader(`{"method":"characters.list","args":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != `{"result":[]}` {
		t.Fatalf("invoke = %d %s", res.StatusCode, body)
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
	url, stop, _ := startServe(t, "--password-file", pwFile)
	defer stop()
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
	}
	for _, tc := range tests {
		args := append([]string{"serve", "--data-dir", t.TempDir()}, tc.args...)
		code, stdout, stderr := run(&Program{}, args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
