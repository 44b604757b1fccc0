package worldinfo

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/store"
)

// Error codes of the lorebook store (HOST-ABI §0).
const (
	// CodeNotFound: no lorebook has the name.
	CodeNotFound = "worldinfo.not_found"
	// CodeNameTaken: a lorebook of that name exists (rename, import
	// without replace).
	CodeNameTaken = "worldinfo.name_taken"
)

// maxNameBytes bounds a book name: it becomes a file name on export.
const maxNameBytes = 200

// Service stores lorebooks and the World Info settings, and activates
// them for generations. One Engine is kept for every activation: it
// caches compiled keys between calls.
type Service struct {
	db     *store.Store
	bus    *events.Bus
	now    func() time.Time
	engine *Engine
	cache  bookCache
	hooks  Hooks
	// ScanDeadline bounds each activation's scan (Input.Deadline); zero
	// is ActivationDeadline. Set it before first use.
	ScanDeadline time.Duration
}

// Hooks are what the lorebook service asks of services it must not import
// (backend/app wires them). Each may be nil. They are given to NewService,
// not set later, so a service is whole from its first call.
type Hooks struct {
	// Renamed runs inside a rename's transaction after the book's row and
	// the global selection moved: the services that bind books by name
	// (cards, chats, personas) point their bindings at the new name, so a
	// rename keeps every binding or none.
	Renamed func(ctx context.Context, tx *store.Tx, from, to string) error
}

// NewService returns the lorebook service.
func NewService(db *store.Store, bus *events.Bus, now func() time.Time, hooks Hooks) *Service {
	return &Service{db: db, bus: bus, now: now, engine: NewEngine(), hooks: hooks}
}

// Summary is one row of worldinfo.list.
type Summary struct {
	Name      string `json:"name"`
	Entries   int    `json:"entries"`
	CreatedAt int64  `json:"createdAt"`
	UpdatedAt int64  `json:"updatedAt"`
}

// List returns every book, by name.
func (s *Service) List(ctx context.Context) ([]Summary, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT name, entries, created_ms, updated_ms FROM lorebooks ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list lorebooks: %w", err)
	}
	defer rows.Close()
	out := []Summary{}
	for rows.Next() {
		var b Summary
		if err := rows.Scan(&b.Name, &b.Entries, &b.CreatedAt, &b.UpdatedAt); err != nil {
			return nil, fmt.Errorf("list lorebooks: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Get returns the book name.
func (s *Service) Get(ctx context.Context, name string) (*Book, error) {
	raw, err := s.raw(ctx, s.db.Reader(), name)
	if err != nil {
		return nil, err
	}
	return ParseBook(raw)
}

// raw reads a book's stored text.
func (s *Service) raw(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) ([]byte, error) {
	var body string
	err := q.QueryRowContext(ctx, `SELECT body FROM lorebooks WHERE name = ?`, name).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(name)
	}
	if err != nil {
		return nil, fmt.Errorf("read lorebook %q: %w", name, err)
	}
	return []byte(body), nil
}

// Save stores book under name, creating or replacing it.
func (s *Service) Save(ctx context.Context, name string, book *Book) error {
	if err := checkName(name); err != nil {
		return err
	}
	body, err := Encode(book)
	if err != nil {
		return err
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		return s.put(ctx, tx, name, body, len(book.Entries), true)
	})
}

// put writes a book's row; without replace an existing name is
// worldinfo.name_taken.
func (s *Service) put(ctx context.Context, tx *store.Tx, name string, body []byte, entries int, replace bool) error {
	now := s.now().UnixMilli()
	q := `INSERT INTO lorebooks (name, body, entries, created_ms, updated_ms) VALUES (?1, ?2, ?3, ?4, ?4)`
	if replace {
		q += ` ON CONFLICT (name) DO UPDATE SET body = excluded.body, entries = excluded.entries, updated_ms = excluded.updated_ms`
	}
	if _, err := tx.ExecContext(ctx, q, name, string(body), entries, now); err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return nameTaken(name)
		}
		return fmt.Errorf("save lorebook %q: %w", name, err)
	}
	tx.AfterCommit(func() {
		s.cache.invalidate()
		s.engine.ForgetBook(name)
		s.bus.Publish(events.Event{Type: events.WorldInfoUpdated, Payload: &events.WorldInfoUpdatedPayload{Name: name, Op: "save"}})
	})
	return nil
}

// Delete removes the book name. Characters and chats that name it keep
// the name (as in SillyTavern: a missing book is skipped, and a book
// imported again under the name is found again).
func (s *Service) Delete(ctx context.Context, name string) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM lorebooks WHERE name = ?`, name)
		if err != nil {
			return fmt.Errorf("delete lorebook %q: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(name)
		}
		tx.AfterCommit(func() {
			s.cache.invalidate()
			s.engine.ForgetBook(name)
			s.bus.Publish(events.Event{Type: events.WorldInfoUpdated, Payload: &events.WorldInfoUpdatedPayload{Name: name, Op: "delete"}})
		})
		return nil
	})
}

// Rename gives the book from the name to; the global selection follows,
// and through Renamed the cards, chats and personas bound to it.
func (s *Service) Rename(ctx context.Context, from, to string) error {
	if err := checkName(to); err != nil {
		return err
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE lorebooks SET name = ?, updated_ms = ? WHERE name = ?`, to, s.now().UnixMilli(), from)
		if err != nil {
			if strings.Contains(err.Error(), "UNIQUE") {
				return nameTaken(to)
			}
			return fmt.Errorf("rename lorebook %q: %w", from, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(from)
		}
		sel, err := globalSelection(ctx, tx)
		if err != nil {
			return err
		}
		for i, n := range sel {
			if n == from {
				sel[i] = to
			}
		}
		if err := putSetting(ctx, tx, globalKey, sel); err != nil {
			return err
		}
		if s.hooks.Renamed != nil {
			if err := s.hooks.Renamed(ctx, tx, from, to); err != nil {
				return err
			}
		}
		tx.AfterCommit(func() {
			s.cache.invalidate()
			s.engine.ForgetBook(from)
			s.engine.ForgetBook(to)
			s.bus.Publish(events.Event{Type: events.WorldInfoUpdated, Payload: &events.WorldInfoUpdatedPayload{Name: to, OldName: from, Op: "rename"}})
		})
		return nil
	})
}

// Clone copies the book name to a new book with a free name derived from
// base ("base", "base 2", …) inside tx and returns the new name: a branch
// gets its own copy of the chat's book.
func (s *Service) Clone(ctx context.Context, tx *store.Tx, name, base string) (string, error) {
	body, err := s.raw(ctx, tx, name)
	if err != nil {
		return "", err
	}
	var entries int
	if err := tx.QueryRowContext(ctx, `SELECT entries FROM lorebooks WHERE name = ?`, name).Scan(&entries); err != nil {
		return "", fmt.Errorf("clone lorebook %q: %w", name, err)
	}
	candidate, err := freeName(ctx, tx, base)
	if err != nil {
		return "", err
	}
	return candidate, s.put(ctx, tx, candidate, body, entries, false)
}

// freeName returns base, or "base 2", "base 3", … : the first name no book
// has, cut to the longest name allowed.
func freeName(ctx context.Context, tx *store.Tx, base string) (string, error) {
	for i := 1; i < 10000; i++ {
		suffix := ""
		if i > 1 {
			suffix = fmt.Sprintf(" %d", i)
		}
		candidate := truncateName(base, maxNameBytes-len(suffix)) + suffix
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM lorebooks WHERE name = ?`, candidate).Scan(&n); err != nil {
			return "", fmt.Errorf("find a free lorebook name: %w", err)
		}
		if n == 0 {
			return candidate, nil
		}
	}
	return "", apperr.New(CodeNameTaken, "no free lorebook name like %q", base)
}

// truncateName cuts name to at most n bytes on a rune boundary.
func truncateName(name string, n int) string {
	if len(name) <= n {
		return name
	}
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n]
}

// CloneForFork gives a chat being forked its own copy of the book name
// its metadata binds (chats.Hooks.CloneLorebook, inside the fork's
// transaction), named after the new chat. ok is false when no book of
// that name exists: the reference is then kept as it is, as SillyTavern
// keeps a missing book's name.
func (s *Service) CloneForFork(ctx context.Context, tx *store.Tx, name, chatName string) (clone string, ok bool, err error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM lorebooks WHERE name = ?`, name).Scan(&n); err != nil {
		return "", false, fmt.Errorf("clone lorebook %q: %w", name, err)
	}
	if n == 0 {
		return "", false, nil
	}
	clone, err = s.Clone(ctx, tx, name, name+" ("+chatName+")")
	return clone, err == nil, err
}

// checkName refuses names that cannot be a file name on any system.
func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return apperr.Invalid("a lorebook needs a name")
	case len(name) > maxNameBytes:
		return apperr.Invalid("a lorebook name is at most %d bytes", maxNameBytes)
	case !utf8.ValidString(name) || strings.ContainsAny(name, "/\\\x00:*?\"<>|") || name == "." || name == "..":
		return apperr.Invalid("a lorebook name cannot contain / \\ : * ? \" < > | (it becomes a file name)").WithDetails(map[string]any{"field": "name"})
	}
	for _, r := range name {
		if r < 0x20 {
			return apperr.Invalid("a lorebook name cannot contain control characters").WithDetails(map[string]any{"field": "name"})
		}
	}
	return nil
}

func notFound(name string) error {
	return apperr.New(CodeNotFound, "no lorebook named %q", name).WithDetails(map[string]any{"name": name})
}

func nameTaken(name string) error {
	return apperr.New(CodeNameTaken, "a lorebook named %q exists already", name).WithDetails(map[string]any{"name": name})
}

// Setting keys.
const (
	globalKey   = "worldinfo.global"
	settingsKey = "worldinfo.settings"
)

// globalSelection reads the names of the globally selected books.
func globalSelection(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) ([]string, error) {
	var raw string
	err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, globalKey).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the global lorebooks: %w", err)
	}
	var names []string
	if err := json.Unmarshal([]byte(raw), &names); err != nil {
		return []string{}, nil
	}
	return names, nil
}

// putSetting stores a JSON settings row.
func putSetting(ctx context.Context, tx *store.Tx, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, string(raw))
	if err != nil {
		return fmt.Errorf("save %s: %w", key, err)
	}
	return nil
}
