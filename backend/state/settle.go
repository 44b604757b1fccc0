package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"

	"hearth/backend/events"
	"hearth/backend/store"
)

// SwipeRemoval names one swipe deleted from one message row.
type SwipeRemoval struct {
	RowID int64
	Swipe int
}

// Change is what a chat write did that floor states follow. Removed or
// moved messages need no description: their commits went with them (the
// floor_dirty trigger notes which namespaces lost some).
type Change struct {
	// SwipesRemoved are single swipes deleted, in the order they went.
	SwipesRemoved []SwipeRemoval
	// SwipeMoved are rows whose active swipe or swipe list changed.
	SwipeMoved []int64
}

// Settle brings every floor state of a chat in line with a structural
// change made earlier in tx: commits of deleted swipes are dropped and later
// swipe ids shifted down, then every namespace whose active commits may have
// changed is replayed. It returns the CHAT_STATE_CHANGED events to publish
// after the commit.
func Settle(ctx context.Context, tx *store.Tx, chat int64, chatID string, ch Change) ([]events.Event, error) {
	var has bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM floor_states WHERE chat_id = ?)`, chat).Scan(&has); err != nil {
		return nil, fmt.Errorf("settle floor states: %w", err)
	}
	if !has {
		return nil, nil
	}
	for _, r := range ch.SwipesRemoved {
		if err := dropSwipe(ctx, tx, chat, r); err != nil {
			return nil, err
		}
	}
	return settleDirty(ctx, tx, chat, chatID, ch.SwipeMoved)
}

// dropSwipe removes the commits made on a deleted swipe and renumbers the
// commits on the swipes after it.
func dropSwipe(ctx context.Context, tx *store.Tx, chat int64, r SwipeRemoval) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM floor_commits WHERE message_id = ? AND swipe_id = ?`, r.RowID, r.Swipe); err != nil {
		return fmt.Errorf("drop swipe commits: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO floor_dirty (chat_id, ns)
		SELECT DISTINCT ?, ns FROM floor_commits WHERE message_id = ? AND swipe_id > ?`, chat, r.RowID, r.Swipe); err != nil {
		return fmt.Errorf("renumber swipe commits: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO floor_dirty_keys (chat_id, ns, key)
		SELECT fc.chat_id, fc.ns, fc.key FROM floor_commits fc
		WHERE fc.message_id = ?1 AND fc.swipe_id > ?2 AND fc.key IS NOT NULL
		UNION ALL
		SELECT fk.chat_id, fk.ns, fk.key FROM floor_commits fc
		JOIN floor_commit_keys fk ON fk.chat_id = fc.chat_id AND fk.ns = fc.ns AND fk.seq = fc.seq
		WHERE fc.message_id = ?1 AND fc.swipe_id > ?2`, r.RowID, r.Swipe); err != nil {
		return fmt.Errorf("renumber swipe commits: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE floor_commits SET swipe_id = swipe_id - 1 WHERE message_id = ? AND swipe_id > ?`, r.RowID, r.Swipe); err != nil {
		return fmt.Errorf("renumber swipe commits: %w", err)
	}
	return nil
}

// work is what settling must redo in one namespace: the keys whose
// commits changed, or the whole log.
type work struct {
	keys  map[string]bool
	whole bool
}

// settleDirty settles the namespaces noted in floor_dirty (their logs
// changed) and floor_dirty_keys (keys whose commits went), and those with
// commits on the moved rows (their active set may have changed), then
// clears the notes.
func settleDirty(ctx context.Context, tx *store.Tx, chat int64, chatID string, moved []int64) ([]events.Event, error) {
	logChanged, err := takeDirty(ctx, tx, chat)
	if err != nil {
		return nil, err
	}
	todo, err := takeDirtyKeys(ctx, tx, chat)
	if err != nil {
		return nil, err
	}
	for _, ns := range logChanged {
		todo.at(ns)
	}
	if err := movedKeys(ctx, tx, chat, moved, todo); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(todo))
	for ns := range todo {
		names = append(names, ns)
	}
	sort.Strings(names)
	evs, err := settleAll(ctx, tx, chat, chatID, names, todo)
	if err != nil {
		return nil, err
	}
	for _, ns := range logChanged {
		if err := bumpLog(ctx, tx, chat, ns); err != nil {
			return nil, err
		}
	}
	// A replay that cut a log noted its namespace and keys again.
	if _, err := takeDirty(ctx, tx, chat); err != nil {
		return nil, err
	}
	if _, err := takeDirtyKeys(ctx, tx, chat); err != nil {
		return nil, err
	}
	return evs, nil
}

// todoList is the work of each namespace to settle.
type todoList map[string]*work

func (t todoList) at(ns string) *work {
	w := t[ns]
	if w == nil {
		w = &work{keys: map[string]bool{}}
		t[ns] = w
	}
	return w
}

// movedKeys adds the keys of every commit on the moved rows; a commit
// with no keys (it touched the whole value) calls for a whole replay.
func movedKeys(ctx context.Context, tx *store.Tx, chat int64, moved []int64, todo todoList) error {
	if len(moved) == 0 {
		return nil
	}
	ids, _ := json.Marshal(moved)
	// A commit's first key is in its row (NULL: it touched no key, so the
	// whole value), any others in floor_commit_keys.
	rows, err := tx.QueryContext(ctx, `SELECT fc.ns, fc.key FROM floor_commits fc
		WHERE fc.chat_id = ?1 AND fc.message_id IN (SELECT value FROM json_each(?2))
		UNION
		SELECT fk.ns, fk.key FROM floor_commits fc
		JOIN floor_commit_keys fk ON fk.chat_id = fc.chat_id AND fk.ns = fc.ns AND fk.seq = fc.seq
		WHERE fc.chat_id = ?1 AND fc.message_id IN (SELECT value FROM json_each(?2))`, chat, string(ids))
	if err != nil {
		return fmt.Errorf("settle floor states: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ns string
		var key sql.NullString
		if err := rows.Scan(&ns, &key); err != nil {
			return fmt.Errorf("settle floor states: %w", err)
		}
		w := todo.at(ns)
		if key.Valid {
			w.keys[key.String] = true
		} else {
			w.whole = true
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("settle floor states: %w", err)
	}
	return nil
}

// takeDirtyKeys returns and clears the keys noted for chat, by namespace.
func takeDirtyKeys(ctx context.Context, tx *store.Tx, chat int64) (todoList, error) {
	rows, err := tx.QueryContext(ctx, `SELECT ns, key FROM floor_dirty_keys WHERE chat_id = ?`, chat)
	if err != nil {
		return nil, fmt.Errorf("settle floor states: %w", err)
	}
	todo := todoList{}
	for rows.Next() {
		var ns, key string
		if err := rows.Scan(&ns, &key); err != nil {
			rows.Close()
			return nil, fmt.Errorf("settle floor states: %w", err)
		}
		todo.at(ns).keys[key] = true
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("settle floor states: %w", err)
	}
	if len(todo) > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM floor_dirty_keys WHERE chat_id = ?`, chat); err != nil {
			return nil, fmt.Errorf("settle floor states: %w", err)
		}
	}
	return todo, nil
}

// takeDirty returns and clears the namespaces noted for chat.
func takeDirty(ctx context.Context, tx *store.Tx, chat int64) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT ns FROM floor_dirty WHERE chat_id = ?`, chat)
	if err != nil {
		return nil, fmt.Errorf("settle floor states: %w", err)
	}
	var out []string
	for rows.Next() {
		var ns string
		if err := rows.Scan(&ns); err != nil {
			rows.Close()
			return nil, fmt.Errorf("settle floor states: %w", err)
		}
		out = append(out, ns)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("settle floor states: %w", err)
	}
	if len(out) > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM floor_dirty WHERE chat_id = ?`, chat); err != nil {
			return nil, fmt.Errorf("settle floor states: %w", err)
		}
	}
	return out, nil
}

// Forget drops the notes of a chat being deleted (its commits went with it).
func Forget(ctx context.Context, tx *store.Tx, chat int64) error {
	for _, table := range []string{"floor_dirty", "floor_dirty_keys"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE chat_id = ?`, chat); err != nil {
			return fmt.Errorf("forget floor notes: %w", err)
		}
	}
	return nil
}
