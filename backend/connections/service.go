package connections

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/internal/inputs"
	"hearth/backend/providers"
	"hearth/backend/store"
)

// activeKey is the settings row holding the active connection's id.
const activeKey = "connections.active"

// testTimeout bounds connections.test.
const testTimeout = 30 * time.Second

// Service stores connections and builds their providers.
type Service struct {
	db      *store.Store
	bus     *events.Bus
	secrets *Secrets
	now     func() time.Time
	// Transport replaces the providers' HTTP transport (tests).
	Transport http.RoundTripper
	// IdleTimeout replaces the providers' default silence limit between
	// stream chunks (tests of stalled streams).
	IdleTimeout time.Duration
	// mu keeps a connection's row and its key in step: a save writes
	// both, and no other save may come between.
	mu sync.Mutex
}

// New returns the service over db, with keys in secrets. It publishes
// CONNECTIONS_CHANGED on bus after every committed change, so every window
// shows the connection in use (getContext().online_status).
func New(db *store.Store, bus *events.Bus, secrets *Secrets, now func() time.Time) *Service {
	return &Service{db: db, bus: bus, secrets: secrets, now: now}
}

// changed schedules CONNECTIONS_CHANGED for after tx commits.
func (s *Service) changed(tx *store.Tx, id string) {
	tx.AfterCommit(func() {
		s.bus.Publish(events.Event{Type: events.ConnectionsChanged, Payload: &events.ConnectionsChangedPayload{ConnectionID: id}})
	})
}

func notFound(id string) error {
	return apperr.New(CodeNotFound, "no connection %q", inputs.Short(id)).WithDetails(map[string]any{"id": id})
}

// Save creates or updates a connection. The key is written first and put
// back if the row's transaction fails, so a failed save changes nothing.
//
// A stored key is bound to the origin (providers.Origin: scheme, host and
// port) and the provider it was entered for, and goes nowhere else: a save
// that changes either drops the stored key, unless the same save brings a
// key (which is then bound to the new origin and provider). Otherwise
// save({id, baseUrl}) followed by test(id) would hand the key to any
// server. A save that changes only the path under the same origin, or
// writes the same origin another way (case, default port), keeps it.
func (s *Service) Save(ctx context.Context, in Input) (*Connection, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &Connection{}
	creating := in.ID == nil
	var before Connection
	if creating {
		c.ID = uuid.NewString()
		c.CreatedAt = s.now().UnixMilli()
	} else {
		cur, err := s.get(ctx, s.db.Reader(), *in.ID)
		if err != nil {
			return nil, err
		}
		c, before = cur, *cur
	}
	if err := in.apply(c); err != nil {
		return nil, err
	}
	origin, err := providers.Origin(c.Provider, c.BaseURL)
	if err != nil {
		return nil, err
	}
	c.UpdatedAt = s.now().UnixMilli()
	prev, err := s.secrets.get(c.ID)
	if err != nil {
		return nil, err
	}
	var next secret // none, unless set below
	switch {
	case in.APIKey != nil && *in.APIKey != "":
		next = secret{Key: *in.APIKey, Origin: origin, Provider: c.Provider}
	case in.APIKey != nil:
		// "" removes the key.
	case !creating && keyFor(prev, &before) != "" && prev.bound(c.Provider, origin):
		next = prev
	}
	// Anything else drops the stored key: it was entered for another
	// origin or provider than the one the connection now names.
	wrote := next != prev
	if wrote {
		if _, err := s.secrets.set(c.ID, next); err != nil {
			return nil, err
		}
	}
	headers, _ := json.Marshal(c.Headers)
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		s.changed(tx, c.ID)
		if creating {
			_, err := tx.ExecContext(ctx, `INSERT INTO connections (id, name, provider, base_url, model, headers, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, c.ID, c.Name, c.Provider, c.BaseURL, c.Model, string(headers), c.CreatedAt, c.UpdatedAt)
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE connections SET name = ?, provider = ?, base_url = ?, model = ?, headers = ?, updated_at = ?
			WHERE id = ?`, c.Name, c.Provider, c.BaseURL, c.Model, string(headers), c.UpdatedAt, c.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(c.ID) // deleted meanwhile
		}
		return nil
	})
	if err != nil {
		if wrote {
			_, _ = s.secrets.set(c.ID, prev)
		}
		if apperr.As(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("save connection: %w", err)
	}
	c.APIKeySet = next.Key != ""
	return c, nil
}

// keyFor is e's key when it may be sent to c's server: it was entered for
// c's origin and provider. Otherwise "": a key is never sent to a server
// it was not entered for, whatever brought the row and the file out of
// step (a save cut short between the two writes, an edited file).
func keyFor(e secret, c *Connection) string {
	origin, err := providers.Origin(c.Provider, c.BaseURL)
	if err != nil || !e.bound(c.Provider, origin) {
		return ""
	}
	return e.Key
}

// List returns every connection, by name.
func (s *Service) List(ctx context.Context) ([]Connection, error) {
	keys, err := s.secrets.all()
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT id, name, provider, base_url, model, headers, created_at, updated_at
		FROM connections ORDER BY name COLLATE NOCASE, created_at`)
	if err != nil {
		return nil, fmt.Errorf("list connections: %w", err)
	}
	defer rows.Close()
	out := []Connection{}
	for rows.Next() {
		c, err := scan(rows)
		if err != nil {
			return nil, err
		}
		c.APIKeySet = keyFor(keys[c.ID], c) != ""
		out = append(out, *c)
	}
	return out, rows.Err()
}

// Get returns one connection.
func (s *Service) Get(ctx context.Context, id string) (*Connection, error) {
	c, _, err := s.withKey(ctx, id)
	return c, err
}

// withKey returns connection id and the key that may be sent to its
// server ("" when none: see keyFor).
func (s *Service) withKey(ctx context.Context, id string) (*Connection, string, error) {
	c, err := s.get(ctx, s.db.Reader(), id)
	if err != nil {
		return nil, "", err
	}
	e, err := s.secrets.get(id)
	if err != nil {
		return nil, "", err
	}
	key := keyFor(e, c)
	c.APIKeySet = key != ""
	return c, key, nil
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Service) get(ctx context.Context, q queryer, id string) (*Connection, error) {
	c, err := scan(q.QueryRowContext(ctx, `SELECT id, name, provider, base_url, model, headers, created_at, updated_at
		FROM connections WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	return c, err
}

func scan(r interface{ Scan(...any) error }) (*Connection, error) {
	var c Connection
	var headers string
	if err := r.Scan(&c.ID, &c.Name, &c.Provider, &c.BaseURL, &c.Model, &headers, &c.CreatedAt, &c.UpdatedAt); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("read connection: %w", err)
	}
	if err := json.Unmarshal([]byte(headers), &c.Headers); err != nil || c.Headers == nil {
		c.Headers = map[string]string{}
	}
	return &c, nil
}

// Delete removes a connection and its key; the active connection becomes
// none if it was this one.
func (s *Service) Delete(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		s.changed(tx, id)
		res, err := tx.ExecContext(ctx, `DELETE FROM connections WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("delete connection: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(id)
		}
		raw, _ := json.Marshal(id)
		_, err = tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ? AND value = ?`, activeKey, string(raw))
		return err
	})
	if err != nil {
		return err
	}
	// The row is gone, so the key can no longer be used; if removing it
	// fails now, the next Open drops it (Prune).
	_, _ = s.secrets.set(id, secret{})
	return nil
}

// Prune makes the secrets file agree with the connections; Open calls it
// before anything reads a key. In one write of the file it
//
//   - drops the keys of connections that no longer exist (deleted while a
//     write of the file failed);
//   - binds each key from a file written before keys were bound to an
//     origin to its connection's current origin and provider, the server
//     it was being sent to, so an upgrade keeps every key;
//   - drops keys bound to another origin or provider than their
//     connection's (a save cut short between the key and the row), which
//     could never be sent anyway (keyFor).
func (s *Service) Prune(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT id, provider, base_url FROM connections`)
	if err != nil {
		return fmt.Errorf("prune keys: %w", err)
	}
	defer rows.Close()
	live := map[string]*Connection{}
	for rows.Next() {
		var c Connection
		if err := rows.Scan(&c.ID, &c.Provider, &c.BaseURL); err != nil {
			return fmt.Errorf("prune keys: %w", err)
		}
		live[c.ID] = &c
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("prune keys: %w", err)
	}
	return s.secrets.update(func(id string, e secret) secret {
		c := live[id]
		if c == nil {
			return secret{}
		}
		if e.Origin == "" {
			origin, err := providers.Origin(c.Provider, c.BaseURL)
			if err != nil {
				return secret{}
			}
			return secret{Key: e.Key, Origin: origin, Provider: c.Provider}
		}
		if keyFor(e, c) == "" {
			return secret{}
		}
		return e
	})
}

// Select makes id the active connection; nil makes none active.
func (s *Service) Select(ctx context.Context, id *string) (*Connection, error) {
	var c *Connection
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		if id == nil {
			s.changed(tx, "")
			_, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, activeKey)
			return err
		}
		var err error
		if c, err = s.get(ctx, tx, *id); err != nil {
			return err
		}
		s.changed(tx, *id)
		raw, _ := json.Marshal(*id)
		_, err = tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
			activeKey, string(raw))
		return err
	})
	if err != nil || c == nil {
		return nil, err
	}
	return s.Get(ctx, c.ID)
}

// Active returns the active connection, or nil.
func (s *Service) Active(ctx context.Context) (*Connection, error) {
	var raw string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, activeKey).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the active connection: %w", err)
	}
	var id string
	if json.Unmarshal([]byte(raw), &id) != nil {
		return nil, nil
	}
	c, err := s.Get(ctx, id)
	if apperr.CodeOf(err) == CodeNotFound {
		return nil, nil
	}
	return c, err
}

// Provider builds the provider of connection id, with its key when the
// key was entered for the connection's current origin and provider
// (keyFor), and without one otherwise.
func (s *Service) Provider(ctx context.Context, id string) (providers.Provider, *Connection, error) {
	c, key, err := s.withKey(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	p, err := providers.New(providers.Config{Kind: c.Provider, BaseURL: c.BaseURL, Model: c.Model, APIKey: key,
		Headers: c.Headers, Transport: s.Transport, IdleTimeout: s.IdleTimeout})
	if err != nil {
		return nil, nil, err
	}
	return p, c, nil
}

// Models lists the models connection id's server offers.
func (s *Service) Models(ctx context.Context, id string) ([]string, error) {
	p, _, err := s.Provider(ctx, id)
	if err != nil {
		return nil, err
	}
	return p.Models(ctx)
}

// TestResult is connections.test's answer: ok, or why not.
type TestResult struct {
	OK    bool          `json:"ok"`
	Error *apperr.Error `json:"error,omitempty"`
	// Models is how many models the server listed, when it lists them.
	Models *int `json:"models,omitempty"`
}

// Test checks that connection id answers: its model list, or for a server
// without one (404, 405), a one-token reply from its model.
func (s *Service) Test(ctx context.Context, id string) (*TestResult, error) {
	p, c, err := s.Provider(ctx, id)
	if err != nil {
		if ae := apperr.As(err); ae != nil && ae.Code != CodeNotFound {
			return &TestResult{Error: ae}, nil // say, a Google connection without a key
		}
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	models, err := p.Models(ctx)
	if err == nil {
		n := len(models)
		return &TestResult{OK: true, Models: &n}, nil
	}
	if ae := apperr.As(err); ae == nil || ae.Code != providers.CodeRequestFailed || (ae.Details["status"] != 404 && ae.Details["status"] != 405) {
		return failed(c, err)
	}
	if c.Model == "" {
		return &TestResult{Error: apperr.New(providers.CodeRequestFailed, "the server lists no models; set a model to test it with")}, nil
	}
	one := 1
	if _, err := p.Stream(ctx, providers.Request{Messages: []providers.Message{{Role: providers.RoleUser, Content: "Hi"}},
		Sampling: providers.Sampling{MaxTokens: &one}}, nil); err != nil {
		return failed(c, err)
	}
	return &TestResult{OK: true}, nil
}

// failed reports a provider failure of connection c as a test result; a
// test that ran out of time says so of c's server; other errors (a
// cancelled call) stay errors.
func failed(c *Connection, err error) (*TestResult, error) {
	if errors.Is(err, context.DeadlineExceeded) {
		return &TestResult{Error: providers.TookTooLong(c.Provider, c.BaseURL, testTimeout)}, nil
	}
	if ae := apperr.As(err); ae != nil {
		return &TestResult{Error: ae}, nil
	}
	return nil, err
}
