package connections

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// maxSecretsBytes bounds the secrets file read back: it holds a few keys.
const maxSecretsBytes = 1 << 20

// Secrets keeps API keys out of the database, in a JSON file of id → key
// readable by the user only (0600), rewritten whole and atomically (a
// temporary file, fsync, rename, fsync of the directory), so a crash
// leaves the old file or the new one, never a torn one. Keys never leave
// the backend except to their provider, and are never logged.
type Secrets struct {
	path string
	mu   sync.Mutex
}

// NewSecrets uses the file at path (created on the first write).
func NewSecrets(path string) *Secrets { return &Secrets{path: path} }

// get returns id's key, "" when there is none.
func (s *Secrets) get(id string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return "", err
	}
	return m[id], nil
}

// has reports which of ids have a key.
func (s *Secrets) has() (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(m))
	for id, k := range m {
		out[id] = k != ""
	}
	return out, nil
}

// set stores id's key ("" removes it) and returns the key it replaced.
func (s *Secrets) set(id, key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return "", err
	}
	prev := m[id]
	if key == prev {
		return prev, nil
	}
	if key == "" {
		delete(m, id)
	} else {
		m[id] = key
	}
	return prev, s.save(m)
}

// keep drops the keys of ids not in live (connections deleted while a
// write of this file failed).
func (s *Secrets) keep(live map[string]bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return err
	}
	changed := false
	for id := range m {
		if !live[id] {
			delete(m, id)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return s.save(m)
}

func (s *Secrets) load() (map[string]string, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the secrets file: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxSecretsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the secrets file: %w", err)
	}
	if len(raw) > maxSecretsBytes {
		return nil, fmt.Errorf("the secrets file %s is larger than %d KiB", s.path, maxSecretsBytes>>10)
	}
	m := map[string]string{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			// Never quote the content: it is keys.
			return nil, fmt.Errorf("the secrets file %s is not a JSON object of strings", s.path)
		}
	}
	return m, nil
}

func (s *Secrets) save(m map[string]string) error {
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".secrets-*.tmp")
	if err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	done = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
