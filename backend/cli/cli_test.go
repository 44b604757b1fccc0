package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// syncBuffer is a bytes.Buffer safe for a command goroutine and a test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// run runs the program with captured output.
func run(p *Program, args ...string) (code int, stdout, stderr string) {
	var out, errOut syncBuffer
	p.Stdout, p.Stderr = &out, &errOut
	if p.Getenv == nil {
		p.Getenv = env(nil)
	}
	code = p.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestHelpListsCommands(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, stdout, stderr := run(&Program{}, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		text := stdout + stderr
		for _, want := range []string{"desktop", "serve", "version", "--data-dir", "--addr", "--password-file", "--safe-mode"} {
			if !strings.Contains(text, want) {
				t.Errorf("%v: help does not mention %q:\n%s", args, want, text)
			}
		}
	}
}

func TestCommandLineErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--nope"}, "flag provided but not defined"},
		{[]string{"serve", "--nope"}, "flag provided but not defined"},
		{[]string{"serve", "extra"}, `unexpected argument "extra"`},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
	}
	for _, tc := range tests {
		code, _, stderr := run(&Program{}, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	code, stdout, _ := run(&Program{Version: "1.2.3"}, "version")
	if code != 0 || !strings.HasPrefix(stdout, "hearth 1.2.3 (go") {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
}

func TestDesktopDataDir(t *testing.T) {
	t.Parallel()
	withEnv := map[string]string{"HEARTH_DATA_DIR": "/from/env"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no args opens the window", nil, withEnv, "/from/env"},
		{"flag before the default command", []string{"--data-dir", "/a"}, withEnv, "/a"},
		{"flag with =", []string{"--data-dir=/b"}, nil, "/b"},
		{"explicit desktop, flag after", []string{"desktop", "--data-dir", "/c"}, withEnv, "/c"},
		{"later flag wins", []string{"--data-dir", "/d", "desktop", "--data-dir", "/e"}, nil, "/e"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got string
			var gotAssets fs.FS
			assets := fstest.MapFS{"index.html": {Data: []byte("x")}}
			p := &Program{Getenv: env(tc.env), Assets: assets, Desktop: func(_ context.Context, o DesktopOptions) error {
				got, gotAssets = o.DataDir, o.Assets
				if o.SelfTest != "" {
					t.Errorf("self-test requested without --self-test")
				}
				return nil
			}}
			if code, _, stderr := run(p, tc.args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got != tc.want || gotAssets == nil {
				t.Fatalf("data dir %q (assets %v), want %q", got, gotAssets != nil, tc.want)
			}
		})
	}
}

func TestDesktopDefaultDataDir(t *testing.T) {
	// Not parallel: app.DefaultDataDir reads the process environment.
	t.Setenv("HEARTH_DATA_DIR", "")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	var got string
	p := &Program{Desktop: func(_ context.Context, o DesktopOptions) error {
		got = o.DataDir
		return nil
	}}
	if code, _, stderr := run(p); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got != filepath.Join("/xdg", "hearth") {
		t.Fatalf("data dir %q", got)
	}
}

func TestDesktopUnavailable(t *testing.T) {
	t.Parallel()
	code, _, stderr := run(&Program{}, "--data-dir", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "built without the desktop window") || !strings.Contains(stderr, "hearth serve") {
		t.Errorf("headless build: exit %d, stderr %q", code, stderr)
	}
}

func TestDesktopErrorIsReported(t *testing.T) {
	t.Parallel()
	p := &Program{Desktop: func(context.Context, DesktopOptions) error { return errors.New("no display found") }}
	code, _, stderr := run(p, "--data-dir", t.TempDir())
	if code != 1 || stderr != "hearth: no display found\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestReadPasswordFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		path    string
		want    string
		wantErr string
	}{
		{write("lf", "s3cret\n"), "s3cret", ""},
		{write("crlf", "s3cret\r\n"), "s3cret", ""},
		{write("bare", " spaced pass "), " spaced pass ", ""},
		{write("empty", ""), "", "is empty"},
		{write("newline", "\n"), "", "is empty"},
		{filepath.Join(dir, "missing"), "", "read password file"},
	}
	for _, tc := range tests {
		got, err := readPasswordFile(tc.path)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", tc.path, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}

// TestSafeModeFlag: --safe-mode reaches the window before or after the
// command name, and is refused by commands that run no extension.
func TestSafeModeFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--safe-mode"}, true},
		{[]string{"desktop", "--safe-mode"}, true},
		{[]string{"--safe-mode=false", "desktop"}, false},
	} {
		var got, called bool
		p := &Program{Desktop: func(_ context.Context, o DesktopOptions) error {
			got, called = o.SafeMode, true
			return nil
		}}
		if code, _, stderr := run(p, append(tc.args, "--data-dir", t.TempDir())...); code != 0 || !called || got != tc.want {
			t.Errorf("%v: exit %d (%s), safe mode %v, want %v", tc.args, code, stderr, got, tc.want)
		}
	}
	for _, args := range [][]string{{"version", "--safe-mode"}, {"--safe-mode", "ext", "list"}, {"ext", "list", "--safe-mode"}, {"import", "st", "/x", "--safe-mode"}} {
		code, _, stderr := run(&Program{}, append(args, "--data-dir", t.TempDir())...)
		if code != 2 || !strings.Contains(stderr, "--safe-mode starts the window or 'hearth serve'") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the reason", args, code, stderr)
		}
	}
}
