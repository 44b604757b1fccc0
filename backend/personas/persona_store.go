package personas

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// queryer reads through the reader pool or inside a transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// execer writes inside a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

const columns = `id, name, description, avatar, position, depth, role, lorebook, created_at, updated_at`

func scan(r interface{ Scan(...any) error }) (*Persona, error) {
	var p Persona
	var image sql.NullString
	if err := r.Scan(&p.ID, &p.Name, &p.Description, &image, &p.Position, &p.Depth, &p.Role, &p.Lorebook, &p.CreatedAt, &p.UpdatedAt); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("read persona: %w", err)
	}
	p.avatar = image.String
	p.AvatarURL = avatarURL(p.ID, p.avatar)
	return &p, nil
}

// get reads one persona without its flags.
func get(ctx context.Context, q queryer, id string) (*Persona, error) {
	p, err := scan(q.QueryRowContext(ctx, `SELECT `+columns+` FROM personas WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	return p, err
}

// readString reads a settings row holding a JSON string; nil when the row
// is missing or holds something else.
func readString(ctx context.Context, q queryer, key string) (*string, error) {
	var raw string
	err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read setting %s: %w", key, err)
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return nil, nil
	}
	return &s, nil
}

// readID reads the persona id a settings row names (nil for none).
func readID(ctx context.Context, q queryer, key string) (*string, error) {
	id, err := readString(ctx, q, key)
	if id != nil && *id == "" {
		return nil, err
	}
	return id, err
}

// writeID makes the settings row key name persona id.
func writeID(ctx context.Context, tx execer, key, id string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		key, string(quote(id))); err != nil {
		return fmt.Errorf("write setting %s: %w", key, err)
	}
	return nil
}

// clearID removes the settings row key if it names persona id.
func clearID(ctx context.Context, tx execer, key, id string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ? AND value = ?`, key, string(quote(id))); err != nil {
		return fmt.Errorf("clear setting %s: %w", key, err)
	}
	return nil
}

// lockOf reads a chat's lock: a non-empty JSON string.
func lockOf(raw json.RawMessage) (string, bool) {
	var id string
	if raw == nil || json.Unmarshal(raw, &id) != nil || id == "" {
		return "", false
	}
	return id, true
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
