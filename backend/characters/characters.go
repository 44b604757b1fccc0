// Package characters stores character cards (SillyTavern V2 `data` fields)
// keyed by their avatar file name, with the avatar image kept in media.
package characters

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/store"
)

// Service manages characters.
type Service struct {
	db    *store.Store
	bus   *events.Bus
	media *media.Store
	now   func() time.Time
	// books, when set, is the lorebook library: an imported card's
	// embedded character_book becomes a book bound to the character, and
	// an exported card carries its bound book as it is now.
	books Books
	hooks Hooks
}

// Hooks are what a character's writes do in other domains, inside the
// write's transaction (backend/app fills them in).
type Hooks struct {
	// Deleting runs in a character's delete, after its row is gone: its
	// groups drop it (backend/groups), in the same transaction, so no
	// group names a character that is not there.
	Deleting func(ctx context.Context, tx *store.Tx, avatar string) error
}

// Option adjusts a service as New makes it.
type Option func(*Service)

// WithHooks has the service run h.
func WithHooks(h Hooks) Option {
	return func(s *Service) { s.hooks = h }
}

// Books is what cards need of the lorebook library (backend/worldinfo,
// wired by backend/app).
type Books interface {
	ExistsTx(ctx context.Context, tx *store.Tx, name string) (bool, error)
	// AddCharacterBook stores a character_book as a new book inside tx,
	// named want if free (else a free name like it), and returns the name.
	AddCharacterBook(ctx context.Context, tx *store.Tx, raw json.RawMessage, want, character string) (string, error)
	// CharacterBook is the stored book name as a character_book (orig,
	// the card's own, while the book is unchanged); ok false when there is
	// no such book.
	CharacterBook(ctx context.Context, name string, orig json.RawMessage) (raw json.RawMessage, ok bool, err error)
}

// New returns a character service. books may be nil: cards then keep an
// embedded character_book as a plain field.
func New(db *store.Store, bus *events.Bus, files *media.Store, books Books, now func() time.Time, opts ...Option) *Service {
	s := &Service{db: db, bus: bus, media: files, books: books, now: now}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// Summary is one row of characters.list.
type Summary struct {
	Avatar     string   `json:"avatar"`
	Name       string   `json:"name"`
	Tags       []string `json:"tags"`
	CreatedAt  int64    `json:"createdAt"`
	LastChatAt *int64   `json:"lastChatAt"`
	ChatCount  int      `json:"chatCount"`
	// HasImage says whether the avatar URL serves an image, so a list can
	// show an initial instead of requesting a missing one.
	HasImage bool `json:"hasImage"`
}

// Card is a character: the V2 data fields flattened, plus avatar and times.
type Card struct {
	Avatar    string
	Data      jsonx.Object
	HasImage  bool
	CreatedAt int64
	UpdatedAt int64
}

// MarshalJSON writes the data fields with avatar and timestamps beside them.
func (c *Card) MarshalJSON() ([]byte, error) {
	obj := c.Data.Clone()
	obj.Set("avatar", c.Avatar)
	obj.Set("createdAt", c.CreatedAt)
	obj.Set("updatedAt", c.UpdatedAt)
	obj.Set("hasImage", c.HasImage)
	return obj.MarshalJSON()
}

// Name is the card's display name.
func (c *Card) Name() string { return c.str("name") }

// FirstMes is the card's greeting.
func (c *Card) FirstMes() string { return c.str("first_mes") }

// AlternateGreetings are the card's further greetings.
func (c *Card) AlternateGreetings() []string {
	var out []string
	_ = json.Unmarshal(c.Data["alternate_greetings"], &out)
	return out
}

func (c *Card) str(key string) string {
	var s string
	_ = json.Unmarshal(c.Data[key], &s)
	return s
}

func notFound(avatar string) error {
	return apperr.New(apperr.CodeCharacterNotFound, "no character with avatar %q", avatar).
		WithDetails(map[string]any{"avatar": avatar})
}

// List returns every character with its chat statistics, by name.
func (s *Service) List(ctx context.Context) ([]Summary, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `
		SELECT c.avatar, c.name, c.card, c.created_at, c.image IS NOT NULL,
		       (SELECT MAX(updated_at) FROM chats WHERE owner_kind = 'character' AND owner = c.avatar),
		       (SELECT COUNT(*) FROM chats WHERE owner_kind = 'character' AND owner = c.avatar)
		FROM characters c ORDER BY c.name COLLATE NOCASE, c.avatar`)
	if err != nil {
		return nil, fmt.Errorf("list characters: %w", err)
	}
	defer rows.Close()
	out := []Summary{}
	for rows.Next() {
		var sum Summary
		var card string
		var last sql.NullInt64
		if err := rows.Scan(&sum.Avatar, &sum.Name, &card, &sum.CreatedAt, &sum.HasImage, &last, &sum.ChatCount); err != nil {
			return nil, fmt.Errorf("list characters: %w", err)
		}
		var data struct {
			Tags []string `json:"tags"`
		}
		_ = json.Unmarshal([]byte(card), &data)
		sum.Tags = data.Tags
		if sum.Tags == nil {
			sum.Tags = []string{}
		}
		if last.Valid {
			sum.LastChatAt = &last.Int64
		}
		out = append(out, sum)
	}
	return out, rows.Err()
}

// Get returns the card of avatar.
func (s *Service) Get(ctx context.Context, avatar string) (*Card, error) {
	return getCard(ctx, s.db.Reader(), avatar)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func getCard(ctx context.Context, q querier, avatar string) (*Card, error) {
	var c Card
	var card string
	var image sql.NullString
	err := q.QueryRowContext(ctx, `SELECT avatar, card, image, created_at, updated_at FROM characters WHERE avatar = ?`, avatar).
		Scan(&c.Avatar, &card, &image, &c.CreatedAt, &c.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(avatar)
	}
	if err != nil {
		return nil, fmt.Errorf("get character %q: %w", avatar, err)
	}
	if err := json.Unmarshal([]byte(card), &c.Data); err != nil {
		return nil, fmt.Errorf("character %q has a corrupt card: %w", avatar, err)
	}
	c.HasImage = image.Valid
	return &c, nil
}

// NameIn returns the display name of the character with the avatar key,
// and whether there is one, read inside tx: a write that names characters
// (a group's members) checks them in its own transaction, so none can be
// deleted between the check and the write.
func (s *Service) NameIn(ctx context.Context, tx *store.Tx, avatar string) (string, bool, error) {
	var name string
	err := tx.QueryRowContext(ctx, `SELECT name FROM characters WHERE avatar = ?`, avatar).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up character %q: %w", avatar, err)
	}
	return name, true, nil
}

// ImagePath returns the file holding avatar's image.
func (s *Service) ImagePath(ctx context.Context, avatar string) (string, error) {
	var image sql.NullString
	err := s.db.Reader().QueryRowContext(ctx, `SELECT image FROM characters WHERE avatar = ?`, avatar).Scan(&image)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound(avatar)
	}
	if err != nil {
		return "", fmt.Errorf("character image %q: %w", avatar, err)
	}
	if !image.Valid {
		return "", apperr.New(apperr.CodeCharacterNotFound, "character %q has no image", avatar)
	}
	return s.media.Path(image.String)
}
