package state

import (
	"context"
	"fmt"

	"hearth/backend/store"
)

// Fork gives dst, a checkpoint or branch whose messages up to the one at
// position upTo were just copied from src (same positions), its own copy
// of src's state: every chat-state namespace, and each floor state's
// commits on those messages, replayed for dst's active swipes. moved lists
// dst rows whose active swipe was switched after the copy. Nothing is
// shared afterwards.
//
// dst's rows have the ids firstRow+idx (copyChat gives them so): a commit's
// new message row is found by arithmetic, not by a look-up per commit.
func Fork(ctx context.Context, tx *store.Tx, src, dst, firstRow int64, dstID string, upTo int, moved []int64) error {
	steps := []struct {
		what, sql string
		args      []any
	}{
		{"chat state", `INSERT INTO chat_state (chat_id, ns, value, revision)
			SELECT ?2, ns, value, revision FROM chat_state WHERE chat_id = ?1`, []any{src, dst}},
		{"floor states", `INSERT INTO floor_states (chat_id, ns, next_seq, log_rev, entangled)
			SELECT ?2, ns, next_seq, log_rev, entangled FROM floor_states WHERE chat_id = ?1`, []any{src, dst}},
		{"floor commits", `INSERT INTO floor_commits (chat_id, ns, seq, message_id, swipe_id, ops, key)
			SELECT ?2, fc.ns, fc.seq, ?4 + om.idx, fc.swipe_id, fc.ops, fc.key FROM floor_commits fc
			JOIN messages om ON om.id = fc.message_id
			WHERE fc.chat_id = ?1 AND om.idx <= ?3`, []any{src, dst, upTo, firstRow}},
		// The later keys of the commits just copied (few commits touch more
		// than one key).
		{"floor commit keys", `INSERT INTO floor_commit_keys (chat_id, ns, key, seq)
			SELECT ?2, fk.ns, fk.key, fk.seq FROM floor_commit_keys fk
			WHERE fk.chat_id = ?1 AND EXISTS (SELECT 1 FROM floor_commits fc WHERE fc.chat_id = ?2 AND fc.ns = fk.ns AND fc.seq = fk.seq)`,
			[]any{src, dst}},
		// The commits left behind, found from the source's messages after
		// upTo (a branch near the end leaves few) rather than by reading
		// every commit of the chat.
		{"floor notes", `INSERT OR IGNORE INTO floor_dirty (chat_id, ns)
			SELECT DISTINCT ?2, fc.ns FROM messages om CROSS JOIN floor_commits fc ON fc.message_id = om.id
			WHERE om.chat_id = ?1 AND om.idx > ?3`, []any{src, dst, upTo}},
		{"floor key notes", `INSERT OR IGNORE INTO floor_dirty_keys (chat_id, ns, key)
			SELECT ?2, fc.ns, fc.key FROM messages om CROSS JOIN floor_commits fc ON fc.message_id = om.id
			WHERE om.chat_id = ?1 AND om.idx > ?3 AND fc.key IS NOT NULL
			UNION
			SELECT ?2, fk.ns, fk.key FROM messages om CROSS JOIN floor_commits fc ON fc.message_id = om.id
			CROSS JOIN floor_commit_keys fk ON fk.chat_id = fc.chat_id AND fk.ns = fc.ns AND fk.seq = fc.seq
			WHERE om.chat_id = ?1 AND om.idx > ?3`, []any{src, dst, upTo}},
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.sql, s.args...); err != nil {
			return fmt.Errorf("fork %s: %w", s.what, err)
		}
	}
	_, err := settleDirty(ctx, tx, dst, dstID, moved)
	return err
}
