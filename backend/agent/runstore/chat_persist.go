package runstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"hearth/backend/store"
)

// ChatPersist reads the persist/ manifest a chat's next run starts from,
// and the run that left it. A chat no successful run has touched has none:
// that is its normal state, not a failure (the next run starts from an
// empty persist/), so ChatPersist returns nil, "" and no error then rather
// than a not-found error every caller would have to swallow.
func (s *Store) ChatPersist(ctx context.Context, chatID string) (json.RawMessage, string, error) {
	if err := checkText("chatId", chatID, maxChatIDBytes); err != nil {
		return nil, "", err
	}
	var manifest, runID string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT persist, run_id FROM agent_chat_state WHERE chat_id = ?`, chatID).Scan(&manifest, &runID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read persist state of chat %s: %w", chatID, err)
	}
	return json.RawMessage(manifest), runID, nil
}

// SetChatPersist records manifest ({path: {sha256, bytes}}) as the persist/
// state of chat chatID, left by run runID, and keeps it on the run with
// at, the uuid of the chat's last message then ("" for an empty chat), so
// a later branch can find the state of its branch point. A run sets it
// when it completes; a failed or cancelled run leaves the chat's state as
// it was.
func (s *Store) SetChatPersist(ctx context.Context, chatID, runID string, manifest json.RawMessage, at string) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		return s.SetChatPersistTx(ctx, tx, chatID, runID, manifest, at)
	})
}

// SetChatPersistTx is SetChatPersist inside the caller's transaction (the
// one that completes the run).
func (s *Store) SetChatPersistTx(ctx context.Context, tx *store.Tx, chatID, runID string, manifest json.RawMessage, at string) error {
	if err := checkText("chatId", chatID, maxChatIDBytes); err != nil {
		return err
	}
	if err := checkRunID(runID); err != nil {
		return err
	}
	if err := checkJSON("manifest", manifest, '{'); err != nil {
		return err
	}
	if len(at) > maxChatIDBytes {
		return invalid("at", "a message id is at most %d bytes", maxChatIDBytes)
	}
	res, err := tx.ExecContext(ctx, `UPDATE agent_runs SET persist = ?, persist_at = ? WHERE id = ? AND chat_id = ?`,
		string(manifest), at, runID, chatID)
	if err != nil {
		return fmt.Errorf("keep persist state on run %s: %w", runID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return runNotFound(runID)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO agent_chat_state (chat_id, persist, run_id, updated_ms) VALUES (?, ?, ?, ?)
		ON CONFLICT (chat_id) DO UPDATE SET persist = excluded.persist, run_id = excluded.run_id, updated_ms = excluded.updated_ms`,
		chatID, string(manifest), runID, s.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("set persist state of chat %s: %w", chatID, err)
	}
	return nil
}

// PersistPoint is the persist/ state a completed run left, and where in
// its chat: At is the uuid of the chat's last message when the run
// completed ("" when the chat was empty).
type PersistPoint struct {
	RunID    string
	At       string
	Manifest json.RawMessage
}

// PersistPointsTx lists the persist/ states runs of chatID left, newest
// first, at most limit of them. Runs from before their position was kept
// are left out: their place in the chat is unknown.
func (s *Store) PersistPointsTx(ctx context.Context, tx *store.Tx, chatID string, limit int) ([]PersistPoint, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, persist_at, persist FROM agent_runs
		WHERE chat_id = ? AND persist IS NOT NULL AND persist_at IS NOT NULL
		ORDER BY ended_ms DESC, id DESC LIMIT ?`, chatID, limit)
	if err != nil {
		return nil, fmt.Errorf("list persist states of chat %s: %w", chatID, err)
	}
	defer rows.Close()
	var out []PersistPoint
	for rows.Next() {
		var p PersistPoint
		var manifest string
		if err := rows.Scan(&p.RunID, &p.At, &manifest); err != nil {
			return nil, fmt.Errorf("read a persist state of chat %s: %w", chatID, err)
		}
		p.Manifest = json.RawMessage(manifest)
		out = append(out, p)
	}
	return out, rows.Err()
}

// InheritedTx reads the persist/ state chat chatID was forked with: the
// state of its source at the branch point, kept for when the source is
// gone. ok is false for a chat forked without state, or never forked.
func (s *Store) InheritedTx(ctx context.Context, tx *store.Tx, chatID string) (PersistPoint, bool, error) {
	var manifest, runID sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT inherited, inherited_run FROM agent_chat_state WHERE chat_id = ?`, chatID).Scan(&manifest, &runID)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !manifest.Valid {
		return PersistPoint{}, false, nil
	}
	if err != nil {
		return PersistPoint{}, false, fmt.Errorf("read the inherited persist state of chat %s: %w", chatID, err)
	}
	return PersistPoint{RunID: runID.String, Manifest: json.RawMessage(manifest.String)}, true, nil
}

// ForkChatPersistTx gives chat toChat, being forked, the persist/ state p
// (its source's at the branch point, left by run p.RunID), as both its
// current state and what it inherited.
func (s *Store) ForkChatPersistTx(ctx context.Context, tx *store.Tx, toChat string, p PersistPoint) error {
	if err := checkText("chatId", toChat, maxChatIDBytes); err != nil {
		return err
	}
	if err := checkRunID(p.RunID); err != nil {
		return err
	}
	if err := checkJSON("manifest", p.Manifest, '{'); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_chat_state (chat_id, persist, run_id, updated_ms, inherited, inherited_run)
		VALUES (?1, ?2, ?3, ?4, ?2, ?3)
		ON CONFLICT (chat_id) DO UPDATE SET persist = excluded.persist, run_id = excluded.run_id, updated_ms = excluded.updated_ms,
			inherited = excluded.inherited, inherited_run = excluded.inherited_run`,
		toChat, string(p.Manifest), p.RunID, s.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("fork persist state into chat %s: %w", toChat, err)
	}
	return nil
}
