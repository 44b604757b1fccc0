package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// characterRow resolves an avatar to its row id. State keyed by the row
// follows the card through renames of its display name and goes with it.
func characterRow(ctx context.Context, q queryer, avatar string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM characters WHERE avatar = ?`, avatar).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, apperr.New(apperr.CodeCharacterNotFound, "no character %q", avatar).WithDetails(map[string]any{"avatar": avatar})
	}
	if err != nil {
		return 0, fmt.Errorf("find character %s: %w", avatar, err)
	}
	return id, nil
}

// CharacterState returns a character's namespace value, nil when unset.
func (s *Service) CharacterState(ctx context.Context, avatar, ns string) (json.RawMessage, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	var out json.RawMessage
	err := s.read(ctx, func(q queryer) error {
		id, err := characterRow(ctx, q, avatar)
		if err != nil {
			return err
		}
		var v string
		err = q.QueryRowContext(ctx, `SELECT value FROM character_state WHERE character_id = ? AND ns = ?`, id, ns).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read character state %s: %w", ns, err)
		}
		out = json.RawMessage(v)
		return nil
	})
	return out, err
}

// SetCharacterState writes a character's namespace; a null value deletes it.
func (s *Service) SetCharacterState(ctx context.Context, avatar, ns string, data json.RawMessage) error {
	if err := checkNamespace(ns); err != nil {
		return err
	}
	var val []byte
	if !jsonx.IsNull(data) {
		var err error
		if val, err = normalize(data, "data"); err != nil {
			return err
		}
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		id, err := characterRow(ctx, tx, avatar)
		if err != nil {
			return err
		}
		if val == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM character_state WHERE character_id = ? AND ns = ?`, id, ns)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO character_state (character_id, ns, value) VALUES (?, ?, ?)
				ON CONFLICT (character_id, ns) DO UPDATE SET value = excluded.value`, id, ns, string(val))
		}
		if err != nil {
			return fmt.Errorf("write character state %s: %w", ns, err)
		}
		return nil
	})
}
