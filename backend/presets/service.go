package presets

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/google/uuid"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/internal/inputs"
	"hearth/backend/prompt"
	"hearth/backend/store"
)

// activeKey is the settings row holding the active preset's id; no row
// means the built-in default.
const activeKey = "presets.active"

// Summary is one row of presets.list: enough to show and pick a preset
// without reading its prompts.
type Summary struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Builtin marks the preset "default", which cannot be changed or
	// deleted.
	Builtin   bool  `json:"builtin"`
	Active    bool  `json:"active"`
	CreatedAt int64 `json:"createdAt"`
	UpdatedAt int64 `json:"updatedAt"`
}

// Service stores presets and the choice of the active one.
type Service struct {
	db  *store.Store
	bus *events.Bus
	now func() time.Time
}

// New returns the service over db, publishing PresetChanged on bus.
func New(db *store.Store, bus *events.Bus, now func() time.Time) *Service {
	return &Service{db: db, bus: bus, now: now}
}

func notFound(id string) error {
	return apperr.New(CodeNotFound, "no preset %q", inputs.Short(id)).WithDetails(map[string]any{"id": id})
}

func builtin(what string) error {
	return apperr.New(CodeBuiltin, "the built-in preset %q cannot be %s; save a copy of it under another name (leave the id out)", DefaultID, what).
		WithDetails(map[string]any{"id": DefaultID})
}

// List returns the built-in preset first, then the stored ones by name.
func (s *Service) List(ctx context.Context) ([]Summary, error) {
	active, err := s.activeID(ctx, s.db.Reader())
	if err != nil {
		return nil, err
	}
	d := prompt.DefaultPreset()
	out := []Summary{{ID: DefaultID, Name: d.Name, Builtin: true}}
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT id, name, created_at, updated_at FROM presets
		ORDER BY name COLLATE NOCASE, created_at`)
	if err != nil {
		return nil, fmt.Errorf("list presets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sum Summary
		if err := rows.Scan(&sum.ID, &sum.Name, &sum.CreatedAt, &sum.UpdatedAt); err != nil {
			return nil, fmt.Errorf("list presets: %w", err)
		}
		sum.Active = sum.ID == active
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list presets: %w", err)
	}
	// A selection naming a preset that is gone means the default (Active).
	stored := false
	for _, sum := range out[1:] {
		stored = stored || sum.Active
	}
	out[0].Active = !stored
	return out, nil
}

// Get returns preset id; "default" is the built-in one.
func (s *Service) Get(ctx context.Context, id string) (prompt.Preset, error) {
	return s.get(ctx, s.db.Reader(), id)
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Service) get(ctx context.Context, q queryer, id string) (prompt.Preset, error) {
	if id == DefaultID {
		return prompt.DefaultPreset(), nil
	}
	var name, body string
	err := q.QueryRowContext(ctx, `SELECT name, body FROM presets WHERE id = ?`, id).Scan(&name, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return prompt.Preset{}, notFound(id)
	}
	if err != nil {
		return prompt.Preset{}, fmt.Errorf("read preset: %w", err)
	}
	// A preset stored before the group texts existed takes SillyTavern's
	// defaults for them; one that emptied them keeps them empty.
	p := prompt.Preset{GroupNudge: prompt.DefaultGroupNudge, NewGroupChatPrompt: prompt.DefaultNewGroupChatPrompt}
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		return prompt.Preset{}, fmt.Errorf("read preset %s: %w", id, err)
	}
	p.ID, p.Name = id, name
	normalize(&p)
	return p, nil
}

// Save creates a preset (p.ID empty: a new id) or replaces one whole
// (p.ID set), after normalizing and validating it. The built-in preset
// is refused: save a copy instead. Saving the active preset publishes
// PresetChanged.
func (s *Service) Save(ctx context.Context, p prompt.Preset) (prompt.Preset, error) {
	if p.ID == DefaultID {
		return prompt.Preset{}, builtin("changed")
	}
	p.Prompts = append([]prompt.Item(nil), p.Prompts...) // normalize writes; the caller's slice stays theirs
	normalize(&p)
	if err := validate(&p); err != nil {
		return prompt.Preset{}, err
	}
	creating := p.ID == ""
	if creating {
		p.ID = uuid.NewString()
	}
	body, err := encode(p)
	if err != nil {
		return prompt.Preset{}, err
	}
	now := s.now().UnixMilli()
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		if creating {
			_, err := tx.ExecContext(ctx, `INSERT INTO presets (id, name, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
				p.ID, p.Name, body, now, now)
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE presets SET name = ?, body = ?, updated_at = ? WHERE id = ?`, p.Name, body, now, p.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(p.ID)
		}
		active, err := s.activeID(ctx, tx)
		if err != nil {
			return err
		}
		if active == p.ID {
			s.announce(tx, p.ID)
		}
		return nil
	})
	if err != nil {
		if apperr.As(err) != nil {
			return prompt.Preset{}, err
		}
		return prompt.Preset{}, fmt.Errorf("save preset: %w", err)
	}
	return p, nil
}

// encode is the stored body of p, refused past maxBody.
func encode(p prompt.Preset) (string, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode preset: %w", err)
	}
	if len(body) > maxBody {
		return "", apperr.Invalid("preset is larger than %d MiB", maxBody>>20).WithDetails(map[string]any{"field": "prompts"})
	}
	return string(body), nil
}

// Delete removes preset id. If it was active, the built-in default
// becomes active and PresetChanged says so.
func (s *Service) Delete(ctx context.Context, id string) error {
	if id == DefaultID {
		return builtin("deleted")
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM presets WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("delete preset: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(id)
		}
		raw, _ := json.Marshal(id)
		res, err = tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ? AND value = ?`, activeKey, string(raw))
		if err != nil {
			return fmt.Errorf("delete preset: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			s.announce(tx, DefaultID)
		}
		return nil
	})
}

// Select makes id the active preset ("default" or nil: the built-in one)
// and returns it. PresetChanged is published when the choice changed.
func (s *Service) Select(ctx context.Context, id *string) (prompt.Preset, error) {
	want := DefaultID
	if id != nil {
		want = *id
	}
	var p prompt.Preset
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if p, err = s.get(ctx, tx, want); err != nil {
			return err
		}
		was, err := s.activeID(ctx, tx)
		if err != nil {
			return err
		}
		if want == DefaultID {
			_, err = tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, activeKey)
		} else {
			raw, _ := json.Marshal(want)
			_, err = tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
				activeKey, string(raw))
		}
		if err != nil {
			return fmt.Errorf("select preset: %w", err)
		}
		if was != want {
			s.announce(tx, want)
		}
		return nil
	})
	if err != nil {
		return prompt.Preset{}, err
	}
	return p, nil
}

// Active returns the active preset: the one selected, or the built-in
// default when none is (or the selected one is gone). Generation calls it
// for every request that names no preset.
func (s *Service) Active(ctx context.Context) (prompt.Preset, error) {
	id, err := s.activeID(ctx, s.db.Reader())
	if err != nil {
		return prompt.Preset{}, err
	}
	p, err := s.Get(ctx, id)
	if apperr.CodeOf(err) == CodeNotFound {
		return prompt.DefaultPreset(), nil
	}
	return p, err
}

// activeID reads the selected preset's id ("default" when none).
func (s *Service) activeID(ctx context.Context, q queryer) (string, error) {
	var raw string
	err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, activeKey).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return DefaultID, nil
	}
	if err != nil {
		return "", fmt.Errorf("read the active preset: %w", err)
	}
	var id string
	if json.Unmarshal([]byte(raw), &id) != nil || id == "" {
		return DefaultID, nil
	}
	return id, nil
}

// announce publishes PresetChanged for id once tx commits.
func (s *Service) announce(tx *store.Tx, id string) {
	tx.AfterCommit(func() {
		s.bus.Publish(events.Event{Type: events.PresetChanged, Payload: &events.PresetChangedPayload{PresetID: id}})
	})
}

// ImportResult is presets.import's answer: the stored preset and what of
// the file could not be kept as it was.
type ImportResult struct {
	Preset   prompt.Preset `json:"preset"`
	Warnings []string      `json:"warnings"`
}

// Import stores a SillyTavern chat-completion preset file (raw: its text
// as a JSON string, or the object itself) as a new preset named after
// fileName. A name already taken gets " (2)", " (3)"… Nothing is stored
// when the file is refused.
func (s *Service) Import(ctx context.Context, fileName string, raw []byte) (*ImportResult, error) {
	p, warnings, err := FromST(fileName, raw)
	if err != nil {
		return nil, err
	}
	normalize(&p)
	if err := validate(&p); err != nil {
		return nil, importInvalid(err)
	}
	p.ID = uuid.NewString()
	now := s.now().UnixMilli()
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		name, err := freeName(ctx, tx, p.Name)
		if err != nil {
			return err
		}
		p.Name = name
		body, err := encode(p)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO presets (id, name, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			p.ID, p.Name, body, now, now)
		return err
	})
	if err != nil {
		if apperr.As(err) != nil {
			return nil, err
		}
		return nil, fmt.Errorf("import preset: %w", err)
	}
	return &ImportResult{Preset: p, Warnings: warnings}, nil
}

// numbered is a name's " (N)" suffix, which freeName counts on from.
var numbered = regexp.MustCompile(` \(\d+\)$`)

// freeName is name, or name with the first free " (N)", among the stored
// presets and the built-in one ("Default (2)" taken: "Default (3)").
func freeName(ctx context.Context, tx *store.Tx, name string) (string, error) {
	taken := func(n string) (bool, error) {
		if n == prompt.DefaultPreset().Name {
			return true, nil
		}
		var c int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM presets WHERE name = ?`, n).Scan(&c)
		return c > 0, err
	}
	candidate := name
	if t, err := taken(name); err == nil && t {
		name = numbered.ReplaceAllString(name, "")
	}
	for i := 2; ; i++ {
		t, err := taken(candidate)
		if err != nil {
			return "", fmt.Errorf("import preset: %w", err)
		}
		if !t {
			return candidate, nil
		}
		suffix := fmt.Sprintf(" (%d)", i)
		candidate = truncateRunes(name, maxName-len(suffix)) + suffix
	}
}

// Export is presets.export's answer: a file name and the SillyTavern
// preset object, ready to save as JSON (and to import again).
type Export struct {
	FileName string          `json:"fileName"`
	JSON     json.RawMessage `json:"json"`
}

// Export writes preset id as a SillyTavern chat-completion preset.
func (s *Service) Export(ctx context.Context, id string) (*Export, error) {
	p, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	raw, err := ToST(p)
	if err != nil {
		return nil, err
	}
	return &Export{FileName: fileNameFor(p.Name), JSON: raw}, nil
}
