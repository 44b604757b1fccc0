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
	if e, err := s.get("a"); err != nil || e != (secret{}) {
		t.Fatalf("get before any write: %+v, %v", e, err)
	}
	a := secret{Key: "sk-a", Origin: "https://api.anthropic.com", Provider: "anthropic"}
	if _, err := s.set("a", a); err != nil {
		t.Fatal(err)
	}
	b := secret{Key: "sk-b", Origin: "http://127.0.0.1:8080", Provider: "openai-compatible"}
	if prev, err := s.set("b", b); err != nil || prev != (secret{}) {
		t.Fatalf("set b: %+v, %v", prev, err)
	}
	a2 := secret{Key: "sk-a2", Origin: "https://api.anthropic.com", Provider: "anthropic"}
	if prev, err := s.set("a", a2); err != nil || prev != a {
		t.Fatalf("replace a: previous %+v, %v", prev, err)
	}
	if got, err := NewSecrets(path).get("a"); err != nil || got != a2 {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", info.Mode().Perm(), err)
	}
	if err := s.update(func(id string, e secret) secret {
		if id == "b" {
			return e
		}
		return secret{}
	}); err != nil {
		t.Fatal(err)
	}
	all, err := s.all()
	if err != nil || len(all) != 1 || all["b"] != b {
		t.Fatalf("after update: %+v, %v", all, err)
	}
	if _, err := s.set("b", secret{}); err != nil {
		t.Fatal(err)
	}
	if all, _ := s.all(); len(all) != 0 {
		t.Fatalf("after removing b: %+v", all)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

// A file written before keys were bound holds bare key strings: they read
// as unbound keys, beside bound ones.
func TestSecretsFileBeforeBindings(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, []byte(`{"old": "sk-old", "new": {"key": "sk-new", "origin": "https://x.example", "provider": "google"}, "empty": ""}`), 0o600); err != nil {
		t.Fatal(err)
	}
	all, err := NewSecrets(path).all()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]secret{"old": {Key: "sk-old"}, "new": {Key: "sk-new", Origin: "https://x.example", Provider: "google"}}
	if len(all) != len(want) || all["old"] != want["old"] || all["new"] != want["new"] {
		t.Fatalf("read %+v, want %+v", all, want)
	}
	if all["old"].bound("openai-compatible", "") || !all["new"].bound("google", "https://x.example") || all["new"].bound("anthropic", "https://x.example") {
		t.Fatal("bound")
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
	if _, err := s.set("b", secret{Key: "sk-b"}); err == nil {
		t.Fatal("a write over a damaged file succeeded and would have dropped its keys")
	}
	for _, raw := range []string{`{"a": ["sk-visible-key"]}`, `{"a": {"key": ["sk-visible-key"]}}`, `["sk-visible-key"]`} {
		odd := filepath.Join(dir, "odd.json")
		if err := os.WriteFile(odd, []byte(raw), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := NewSecrets(odd).all(); err == nil || strings.Contains(err.Error(), "sk-visible-key") {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"a":"`+strings.Repeat("x", maxSecretsBytes)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSecrets(big).get("a"); err == nil {
		t.Fatal("an oversized file was read")
	}
}
