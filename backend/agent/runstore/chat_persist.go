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
// state of chat chatID, left by run runID. A run sets it when it completes;
// a failed or cancelled run leaves the chat's state as it was.
func (s *Store) SetChatPersist(ctx context.Context, chatID, runID string, manifest json.RawMessage) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		return s.SetChatPersistTx(ctx, tx, chatID, runID, manifest)
	})
}

// SetChatPersistTx is SetChatPersist inside the caller's transaction (the
// one that completes the run).
func (s *Store) SetChatPersistTx(ctx context.Context, tx *store.Tx, chatID, runID string, manifest json.RawMessage) error {
	if err := checkText("chatId", chatID, maxChatIDBytes); err != nil {
		return err
	}
	if err := checkRunID(runID); err != nil {
		return err
	}
	if err := checkJSON("manifest", manifest, '{'); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_chat_state (chat_id, persist, run_id, updated_ms) VALUES (?, ?, ?, ?)
		ON CONFLICT (chat_id) DO UPDATE SET persist = excluded.persist, run_id = excluded.run_id, updated_ms = excluded.updated_ms`,
		chatID, string(manifest), runID, s.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("set persist state of chat %s: %w", chatID, err)
	}
	return nil
}

// CopyChatPersist gives chat toChat the persist/ state chat fromChat has
// now, inside the transaction that branches toChat off fromChat, so the
// branch's next run starts where the parent's would. A parent without
// state leaves toChat as it is.
func (s *Store) CopyChatPersist(ctx context.Context, tx *store.Tx, fromChat, toChat string) error {
	if err := checkText("chatId", fromChat, maxChatIDBytes); err != nil {
		return err
	}
	if err := checkText("chatId", toChat, maxChatIDBytes); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_chat_state (chat_id, persist, run_id, updated_ms)
		SELECT ?, persist, run_id, ? FROM agent_chat_state WHERE chat_id = ?
		ON CONFLICT (chat_id) DO UPDATE SET persist = excluded.persist, run_id = excluded.run_id, updated_ms = excluded.updated_ms`,
		toChat, s.now().UnixMilli(), fromChat)
	if err != nil {
		return fmt.Errorf("copy persist state of chat %s to %s: %w", fromChat, toChat, err)
	}
	return nil
}
