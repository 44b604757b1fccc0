package cli

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Not parallel: the log is the process's default logger.
func TestOpenLogWritesToTheDataDir(t *testing.T) {
	dir := t.TempDir()
	p := &Program{Stderr: &bytes.Buffer{}}
	prev := slog.Default()

	closeLog, err := p.openLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	slog.Error("internal error", "ref", "abc123", "err", "open /secret/path: denied")
	closeLog()

	if slog.Default() != prev {
		t.Fatal("closing the log must restore the previous default logger")
	}
	path := filepath.Join(dir, "logs", "hearth.log")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out := string(data); !strings.Contains(out, "ref=abc123") || !strings.Contains(out, "/secret/path") {
		t.Fatalf("log line missing: %q", out)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Fatalf("log mode %v, want 0600", info.Mode().Perm())
	}
}

func TestOpenLogStartsOverPastItsSize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "logs", "hearth.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), maxLogBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	closeLog, err := (&Program{Stderr: &bytes.Buffer{}}).openLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	closeLog()
	if info, err := os.Stat(path + ".1"); err != nil || info.Size() != maxLogBytes+1 {
		t.Fatalf("previous log not kept as hearth.log.1: %v", err)
	}
	if info, err := os.Stat(path); err != nil || info.Size() != 0 {
		t.Fatalf("the new log should start empty: %v", err)
	}
}
