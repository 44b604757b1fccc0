package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSelfTestUsesATempDirAndRemovesIt(t *testing.T) {
	t.Parallel()
	var got DesktopOptions
	p := &Program{Getenv: env(map[string]string{"HEARTH_DATA_DIR": "/users/real/data"}), Desktop: func(_ context.Context, o DesktopOptions) error {
		got = o
		if _, err := os.Stat(o.DataDir); err != nil {
			t.Errorf("the temp data dir does not exist while the window runs: %v", err)
		}
		return nil
	}}
	if code, _, stderr := run(p, "--self-test", "out/report.json"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got.SelfTest != "out/report.json" {
		t.Fatalf("SelfTest = %q", got.SelfTest)
	}
	if got.DataDir == "" || got.DataDir == "/users/real/data" || !strings.Contains(filepath.Base(got.DataDir), "hearth-selftest-") {
		t.Fatalf("self-test data dir %q: want a fresh temp dir, never $HEARTH_DATA_DIR", got.DataDir)
	}
	if _, err := os.Stat(got.DataDir); !os.IsNotExist(err) {
		t.Fatalf("temp data dir %s left behind (%v)", got.DataDir, err)
	}
}

func TestSelfTestDataDir(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	fresh := filepath.Join(t.TempDir(), "new")
	used := t.TempDir()
	if err := os.WriteFile(filepath.Join(used, "hearth.db"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{empty, fresh} {
		var got string
		p := &Program{Desktop: func(_ context.Context, o DesktopOptions) error {
			got = o.DataDir
			return nil
		}}
		if code, _, stderr := run(p, "desktop", "--self-test", "r.json", "--data-dir", dir); code != 0 || got != dir {
			t.Fatalf("%s: exit %d, data dir %q: %s", dir, code, got, stderr)
		}
	}
	called := false
	p := &Program{Desktop: func(context.Context, DesktopOptions) error {
		called = true
		return nil
	}}
	code, _, stderr := run(p, "--data-dir", used, "--self-test", "r.json")
	if code != 2 || called || !strings.Contains(stderr, "must be empty") {
		t.Fatalf("a used data dir: exit %d, called %v, stderr %q", code, called, stderr)
	}
}

func TestSelfTestIsDesktopOnly(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--self-test", "r.json", "version"}, {"serve", "--self-test", "r.json"}} {
		code, _, stderr := run(&Program{}, args...)
		if code != 2 || !strings.Contains(stderr, "--self-test runs the desktop window") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
