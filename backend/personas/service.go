package personas

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/events"
	"hearth/backend/internal/inputs"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/store"
)

// Settings rows holding the active and the default persona's id (JSON
// strings), and the chat metadata key of a chat's lock.
const (
	activeKey   = "personas.active"
	defaultKey  = "personas.default"
	LockKey     = "persona"
	fallbackKey = "user_name" // the legacy name row, read when no persona applies
)

// Kinds of PERSONA_CHANGED (the payload's "change").
const (
	ChangeSaved   = "saved"
	ChangeDeleted = "deleted"
	ChangeActive  = "active"
	ChangeDefault = "default"
)

// Service stores personas and answers which one applies to a chat.
type Service struct {
	db    *store.Store
	bus   *events.Bus
	media *media.Store
	chats *chats.Service
	now   func() time.Time
}

// New returns the service. chats is where chat locks live (metadata writes
// go through it, so they bump the chat's revision and journal like any
// other); avatars are stored in files.
func New(db *store.Store, bus *events.Bus, files *media.Store, chatSvc *chats.Service, now func() time.Time) *Service {
	return &Service{db: db, bus: bus, media: files, chats: chatSvc, now: now}
}

func notFound(id string) error {
	return apperr.New(CodeNotFound, "no persona %q", inputs.Short(id)).WithDetails(map[string]any{"id": id})
}

// changed schedules PERSONA_CHANGED for after tx commits: which persona
// (nil for setActive/setDefault(null)), what happened to it, and the
// active and default ids after the change, so a window need not ask.
func (s *Service) changed(ctx context.Context, tx *store.Tx, id *string, change string) error {
	active, err := readID(ctx, tx, activeKey)
	if err != nil {
		return err
	}
	def, err := readID(ctx, tx, defaultKey)
	if err != nil {
		return err
	}
	payload := &events.PersonaChangedPayload{PersonaID: id, Change: change, ActiveID: active, DefaultID: def}
	tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: events.PersonaChanged, Payload: payload}) })
	return nil
}

// Save creates or updates a persona. A new avatar is written to media
// before the transaction (content-addressed, so a failed save leaves at
// most an unreferenced file); the old image file stays, as it may be
// shared.
func (s *Service) Save(ctx context.Context, in Input) (*Persona, error) {
	p := &Persona{Position: PositionInPrompt, Depth: DefaultDepth, Role: DefaultRole}
	creating := in.ID == nil
	if creating {
		p.ID = uuid.NewString()
		p.CreatedAt = s.now().UnixMilli()
	} else {
		cur, err := get(ctx, s.db.Reader(), *in.ID)
		if err != nil {
			return nil, err
		}
		p = cur
	}
	av, err := in.apply(p)
	if err != nil {
		return nil, err
	}
	switch {
	case av.remove:
		p.avatar = ""
	case av.set:
		if p.avatar, err = s.media.Put(av.data, av.ext); err != nil {
			return nil, fmt.Errorf("store persona avatar: %w", err)
		}
	}
	p.UpdatedAt = s.now().UnixMilli()
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		image := sql.NullString{String: p.avatar, Valid: p.avatar != ""}
		if creating {
			if _, err := tx.ExecContext(ctx, `INSERT INTO personas (id, name, description, avatar, position, depth, role, lorebook, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, p.ID, p.Name, p.Description, image, p.Position, p.Depth, p.Role, p.Lorebook, p.CreatedAt, p.UpdatedAt); err != nil {
				return fmt.Errorf("save persona: %w", err)
			}
		} else {
			res, err := tx.ExecContext(ctx, `UPDATE personas SET name = ?, description = ?, avatar = ?, position = ?, depth = ?, role = ?, lorebook = ?, updated_at = ?
				WHERE id = ?`, p.Name, p.Description, image, p.Position, p.Depth, p.Role, p.Lorebook, p.UpdatedAt, p.ID)
			if err != nil {
				return fmt.Errorf("save persona: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return notFound(p.ID) // deleted meanwhile
			}
		}
		if err := s.flags(ctx, tx, p); err != nil {
			return err
		}
		return s.changed(ctx, tx, &p.ID, ChangeSaved)
	})
	if err != nil {
		return nil, err
	}
	p.AvatarURL = avatarURL(p.ID, p.avatar)
	return p, nil
}

// List returns every persona, by name.
func (s *Service) List(ctx context.Context) ([]Persona, error) {
	q := s.db.Reader()
	rows, err := q.QueryContext(ctx, `SELECT `+columns+` FROM personas ORDER BY name COLLATE NOCASE, created_at`)
	if err != nil {
		return nil, fmt.Errorf("list personas: %w", err)
	}
	defer rows.Close()
	out := []Persona{}
	for rows.Next() {
		p, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list personas: %w", err)
	}
	active, err := readID(ctx, q, activeKey)
	if err != nil {
		return nil, err
	}
	def, err := readID(ctx, q, defaultKey)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].IsActive = active != nil && *active == out[i].ID
		out[i].IsDefault = def != nil && *def == out[i].ID
	}
	return out, nil
}

// Get returns one persona.
func (s *Service) Get(ctx context.Context, id string) (*Persona, error) {
	q := s.db.Reader()
	p, err := get(ctx, q, id)
	if err != nil {
		return nil, err
	}
	return p, s.flags(ctx, q, p)
}

// Delete removes a persona and, in the same transaction, everything that
// names it: the active and default settings and every chat locked to it
// (a saveMetadata write of each chat: new revision, journal entry,
// CHAT_METADATA_UPDATED). The avatar file stays (it may be shared).
func (s *Service) Delete(ctx context.Context, id string) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM personas WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("delete persona: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(id)
		}
		for _, key := range []string{activeKey, defaultKey} {
			if err := clearID(ctx, tx, key, id); err != nil {
				return err
			}
		}
		if err := s.changed(ctx, tx, &id, ChangeDeleted); err != nil {
			return err
		}
		_, err = s.chats.ClearMetadataValueIn(ctx, tx, LockKey, id)
		return err
	})
}

// SetActive makes id the active persona (the one new chats and unlocked
// chats use); nil makes none active, so the default applies. It returns
// the active persona.
func (s *Service) SetActive(ctx context.Context, id *string) (*Persona, error) {
	return s.setFlag(ctx, activeKey, ChangeActive, id)
}

// SetDefault makes id the default persona (the one that applies when none
// is active and the chat is not locked); nil removes the default.
func (s *Service) SetDefault(ctx context.Context, id *string) (*Persona, error) {
	return s.setFlag(ctx, defaultKey, ChangeDefault, id)
}

func (s *Service) setFlag(ctx context.Context, key, change string, id *string) (*Persona, error) {
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		if id == nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key); err != nil {
				return fmt.Errorf("set %s: %w", key, err)
			}
		} else {
			if _, err := get(ctx, tx, *id); err != nil {
				return err
			}
			if err := writeID(ctx, tx, key, *id); err != nil {
				return err
			}
		}
		return s.changed(ctx, tx, id, change)
	})
	if err != nil || id == nil {
		return nil, err
	}
	return s.Get(ctx, *id)
}

// Active returns the active persona, or nil when none is.
func (s *Service) Active(ctx context.Context) (*Persona, error) {
	return s.byKey(ctx, activeKey)
}

// Default returns the default persona, or nil when there is none.
func (s *Service) Default(ctx context.Context) (*Persona, error) {
	return s.byKey(ctx, defaultKey)
}

func (s *Service) byKey(ctx context.Context, key string) (*Persona, error) {
	id, err := readID(ctx, s.db.Reader(), key)
	if err != nil || id == nil {
		return nil, err
	}
	p, err := s.Get(ctx, *id)
	if apperr.CodeOf(err) == CodeNotFound {
		return nil, nil
	}
	return p, err
}

// LockResult is lockToChat's answer: the chat's revision after the call
// and the persona that now applies to it.
type LockResult struct {
	Revision int64    `json:"revision"`
	Persona  *Persona `json:"persona"`
}

// LockToChat locks chatID to persona id (its metadata key "persona"), or
// with nil unlocks it. The persona is checked and the metadata written in
// one transaction, through the chats service's metadata write.
func (s *Service) LockToChat(ctx context.Context, chatID string, id *string) (*LockResult, error) {
	var rev int64
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		value := json.RawMessage("null")
		if id != nil {
			if _, err := get(ctx, tx, *id); err != nil {
				return err
			}
			value = quote(*id)
		}
		var err error
		rev, err = s.chats.SaveMetadataIn(ctx, tx, chatID, jsonx.Object{LockKey: value}, chats.WriteOptions{})
		return err
	})
	if err != nil {
		return nil, err
	}
	p, err := s.Effective(ctx, chatID)
	if err != nil {
		return nil, err
	}
	return &LockResult{Revision: rev, Persona: p}, nil
}

// Effective returns the persona that applies to chatID: the chat's lock,
// else the active persona, else the default, else nil. A lock, active or
// default id naming no persona (a lock imported from SillyTavern, which
// names avatar files) is passed over. chatID "" asks about no chat in
// particular (a chat about to be created); an unknown chat is
// chat.not_found.
func (s *Service) Effective(ctx context.Context, chatID string) (*Persona, error) {
	if chatID != "" {
		meta, err := s.chats.Metadata(ctx, chatID)
		if err != nil {
			return nil, err
		}
		if id, ok := lockOf(meta[LockKey]); ok {
			p, err := s.Get(ctx, id)
			if err == nil {
				return p, nil
			}
			if apperr.CodeOf(err) != CodeNotFound {
				return nil, err
			}
		}
	}
	p, err := s.Active(ctx)
	if err != nil || p != nil {
		return p, err
	}
	return s.Default(ctx)
}

// UserName is the user's name in chatID: the effective persona's name,
// else the legacy settings row user_name, else "User". It never fails
// (a message must be named even if the lookup cannot be made), which is
// why chats takes it as its UserName hook.
func (s *Service) UserName(ctx context.Context, chatID string) string {
	if p, err := s.Effective(ctx, chatID); err == nil && p != nil {
		return p.Name
	}
	if name, err := readString(ctx, s.db.Reader(), fallbackKey); err == nil && name != nil && *name != "" {
		return *name
	}
	return "User"
}

// ImagePath returns the file holding persona id's avatar image (the
// transports serve it at the persona's AvatarURL).
func (s *Service) ImagePath(ctx context.Context, id string) (string, error) {
	var image sql.NullString
	err := s.db.Reader().QueryRowContext(ctx, `SELECT avatar FROM personas WHERE id = ?`, id).Scan(&image)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound(id)
	}
	if err != nil {
		return "", fmt.Errorf("persona avatar %q: %w", id, err)
	}
	if !image.Valid {
		return "", apperr.New(CodeNotFound, "persona %q has no avatar", inputs.Short(id)).WithDetails(map[string]any{"id": id})
	}
	return s.media.Path(image.String)
}

// flags sets p's IsActive and IsDefault from the settings as q sees them.
func (s *Service) flags(ctx context.Context, q queryer, p *Persona) error {
	active, err := readID(ctx, q, activeKey)
	if err != nil {
		return err
	}
	def, err := readID(ctx, q, defaultKey)
	if err != nil {
		return err
	}
	p.IsActive = active != nil && *active == p.ID
	p.IsDefault = def != nil && *def == p.ID
	return nil
}

// RenameLorebookIn points every persona bound to the lorebook from at to,
// inside tx: a renamed book stays the persona's. PERSONA_CHANGED fires
// for each after the commit.
func (s *Service) RenameLorebookIn(ctx context.Context, tx *store.Tx, from, to string) error {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM personas WHERE lorebook = ?`, from)
	if err != nil {
		return fmt.Errorf("find personas bound to lorebook %q: %w", from, err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("find personas bound to lorebook %q: %w", from, err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find personas bound to lorebook %q: %w", from, err)
	}
	now := s.now().UnixMilli()
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `UPDATE personas SET lorebook = ?, updated_at = ? WHERE id = ?`, to, now, id); err != nil {
			return fmt.Errorf("rebind persona %s: %w", id, err)
		}
		if err := s.changed(ctx, tx, &id, ChangeSaved); err != nil {
			return err
		}
	}
	return nil
}
