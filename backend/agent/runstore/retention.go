package runstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"hearth/backend/store"
)

// DeleteChat removes everything kept for chat chatID: its runs with their
// events and checkpoints, and its persist/ state, in one transaction. It
// returns the ids of the runs removed, whose folders the caller removes.
// The caller makes sure none of them is still going.
func (s *Store) DeleteChat(ctx context.Context, chatID string) ([]string, error) {
	if err := checkText("chatId", chatID, maxChatIDBytes); err != nil {
		return nil, err
	}
	var ids []string
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if ids, err = runIDs(ctx, tx, `SELECT id FROM agent_runs WHERE chat_id = ?`, chatID); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM agent_events WHERE run_id IN (SELECT id FROM agent_runs WHERE chat_id = ?)`,
			`DELETE FROM agent_checkpoints WHERE run_id IN (SELECT id FROM agent_runs WHERE chat_id = ?)`,
			`DELETE FROM agent_runs WHERE chat_id = ?`,
			`DELETE FROM agent_chat_state WHERE chat_id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, chatID); err != nil {
				return fmt.Errorf("forget the agent history of chat %s: %w", chatID, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// PruneChat removes the ended runs of chat chatID beyond its keep newest
// (by start), with their events and checkpoints, and returns their ids.
// A run still going is never removed and not counted against keep.
func (s *Store) PruneChat(ctx context.Context, chatID string, keep int) ([]string, error) {
	if err := checkText("chatId", chatID, maxChatIDBytes); err != nil {
		return nil, err
	}
	var ids []string
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		ids, err = runIDs(ctx, tx, `SELECT id FROM agent_runs WHERE chat_id = ? AND status IN `+terminalSQL+`
			ORDER BY created_ms DESC, id DESC LIMIT -1 OFFSET ?`, chatID, max(keep, 0))
		if err != nil || len(ids) == 0 {
			return err
		}
		for _, id := range ids {
			for _, q := range []string{
				`DELETE FROM agent_events WHERE run_id = ?`,
				`DELETE FROM agent_checkpoints WHERE run_id = ?`,
				`DELETE FROM agent_runs WHERE id = ?`,
			} {
				if _, err := tx.ExecContext(ctx, q, id); err != nil {
					return fmt.Errorf("prune run %s: %w", id, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// ChatIDs lists every chat the store keeps agent history or state for.
func (s *Store) ChatIDs(ctx context.Context) ([]string, error) {
	return runIDs(ctx, s.db.Reader(), `SELECT chat_id FROM agent_runs UNION SELECT chat_id FROM agent_chat_state`)
}

// RunIDs lists the ids of every stored run.
func (s *Store) RunIDs(ctx context.Context) (map[string]bool, error) {
	ids, err := runIDs(ctx, s.db.Reader(), `SELECT id FROM agent_runs`)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// ReferencedBlobs gathers the hash of every blob a stored manifest names:
// the checkpoints', the runs' persist/ states and the chats' (current and
// inherited). A checkpoint stored as a delta names only the entries it
// changed, but every entry of a checkpoint entered its chain in some row,
// whole or delta, so the union over the rows is the union over the
// checkpoints. A blob outside the set is garbage.
func (s *Store) ReferencedBlobs(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	for _, q := range []string{
		`SELECT manifest FROM agent_checkpoints`,
		`SELECT persist FROM agent_runs WHERE persist IS NOT NULL`,
		`SELECT persist FROM agent_chat_state`,
		`SELECT inherited FROM agent_chat_state WHERE inherited IS NOT NULL`,
	} {
		if err := collectHashes(ctx, s.db, q, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// collectHashes adds the sha256 of every entry of the manifests q selects.
func collectHashes(ctx context.Context, db *store.Store, q string, into map[string]bool) error {
	rows, err := db.Reader().QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("read manifests: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return fmt.Errorf("read a manifest: %w", err)
		}
		var m map[string]struct {
			SHA256 string `json:"sha256"`
		}
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			// An unreadable manifest names blobs nobody can tell: keeping
			// every blob is the only safe answer.
			return fmt.Errorf("a stored manifest does not parse, so no blob can be called unused: %w", err)
		}
		for _, e := range m {
			if e.SHA256 != "" { // a delta's removed path
				into[e.SHA256] = true
			}
		}
	}
	return rows.Err()
}

type rowsQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// runIDs reads one text column of q's rows.
func runIDs(ctx context.Context, q rowsQueryer, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list agent runs: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list agent runs: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
