package connections

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.json")
	s := NewSecrets(path)
	if k, err := s.get("a"); err != nil || k != "" {
		t.Fatalf("get before any write: %q, %v", k, err)
	}
	if _, err := s.set("a", "sk-a"); err != nil {
		t.Fatal(err)
	}
	if prev, err := s.set("b", "sk-b"); err != nil || prev != "" {
		t.Fatalf("set b: %q, %v", prev, err)
	}
	if prev, err := s.set("a", "sk-a2"); err != nil || prev != "sk-a" {
		t.Fatalf("replace a: previous %q, %v", prev, err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", info.Mode().Perm(), err)
	}
	if err := s.keep(map[string]bool{"b": true}); err != nil {
		t.Fatal(err)
	}
	has, err := s.has()
	if err != nil || len(has) != 1 || !has["b"] {
		t.Fatalf("after keep: %v, %v", has, err)
	}
	if _, err := s.set("b", ""); err != nil {
		t.Fatal(err)
	}
	if has, _ := s.has(); len(has) != 0 {
		t.Fatalf("after removing b: %v", has)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestSecretsFileDamaged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(path, []byte(`{"a": "sk-visible-key"`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewSecrets(path)
	_, err := s.get("a")
	if err == nil || strings.Contains(err.Error(), "sk-visible-key") {
		t.Fatalf("a damaged file: %v (the error must not quote the file)", err)
	}
	if _, err := s.set("b", "sk-b"); err == nil {
		t.Fatal("a write over a damaged file succeeded and would have dropped its keys")
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"a":"`+strings.Repeat("x", maxSecretsBytes)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSecrets(big).get("a"); err == nil {
		t.Fatal("an oversized file was read")
	}
}
