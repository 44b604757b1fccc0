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

// Secrets keeps API keys out of the database, in a JSON file of id →
// {key, origin, provider} readable by the user only (0600), rewritten whole
// and atomically (a temporary file, fsync, rename, fsync of the
// directory), so a crash leaves the old file or the new one, never a torn
// one. Keys never leave the backend except to their provider, and are
// never logged.
//
// Each key records the origin and provider it was entered for
// (secret.bound), in the same write as the key, so the binding survives
// restarts and cannot fall out of step with the key. Files written before
// bindings existed hold a bare key string per id; such a key is read as
// unbound and bound by Service.Prune when Hearth opens.
type Secrets struct {
	path string
	mu   sync.Mutex
}

// secret is one stored key and the server it may go to.
type secret struct {
	Key string `json:"key"`
	// Origin is providers.Origin of the connection the key was entered
	// for; "" for a key from a file written before bindings existed.
	Origin string `json:"origin,omitempty"`
	// Provider is that connection's provider kind.
	Provider string `json:"provider,omitempty"`
}

// bound reports whether s's key may be sent to a connection of kind at
// origin: it was entered for exactly that origin and provider.
func (s secret) bound(kind, origin string) bool {
	return s.Key != "" && s.Origin != "" && s.Origin == origin && s.Provider == kind
}

// NewSecrets uses the file at path (created on the first write).
func NewSecrets(path string) *Secrets { return &Secrets{path: path} }

// get returns id's entry, empty when there is none.
func (s *Secrets) get(id string) (secret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return secret{}, err
	}
	return m[id], nil
}

// all returns every entry, by connection id.
func (s *Secrets) all() (map[string]secret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load()
}

// set stores id's entry (an empty Key removes it) and returns the entry it
// replaced.
func (s *Secrets) set(id string, e secret) (secret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return secret{}, err
	}
	prev := m[id]
	if e == prev || (e.Key == "" && prev.Key == "") {
		return prev, nil
	}
	if e.Key == "" {
		delete(m, id)
	} else {
		m[id] = e
	}
	return prev, s.save(m)
}

// update rewrites the file once with fix applied to every entry: fix
// returns the entry to keep, or one with an empty Key to drop it.
func (s *Secrets) update(fix func(id string, e secret) secret) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return err
	}
	changed := false
	for id, e := range m {
		next := fix(id, e)
		switch {
		case next == e:
		case next.Key == "":
			delete(m, id)
			changed = true
		default:
			m[id] = next
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return s.save(m)
}

func (s *Secrets) load() (map[string]secret, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]secret{}, nil
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
	m := map[string]secret{}
	if len(raw) == 0 {
		return m, nil
	}
	// Never quote the content in an error: it is keys.
	bad := fmt.Errorf("the secrets file %s is not a JSON object of keys", s.path)
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, bad
	}
	for id, v := range entries {
		var e secret
		if err := json.Unmarshal(v, &e.Key); err != nil { // a bare key: written before bindings
			if err := json.Unmarshal(v, &e); err != nil {
				return nil, bad
			}
		}
		if e.Key != "" {
			m[id] = e
		}
	}
	return m, nil
}

func (s *Secrets) save(m map[string]secret) error {
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
