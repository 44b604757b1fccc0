package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"hearth/backend/store"
)

// Search chunks (HOST-ABI §3.6) are derived from message rows: one per
// message in the chunks table, and the trigram index over them (migration
// 0003). Who keeps them current:
//
//   - the code that inserts a message queues it in chunks_pending
//     (backend/chats' insertMessage; an import, for its whole chat), and
//     triggers queue every change to a message's active text, role or
//     hidden flag, whatever code makes it;
//   - a checkpoint or branch, which copies thousands of rows at once, leaves
//     one chunks_backlog row instead (migration 0019), worked through in
//     batches by the background Indexer or a search's catch-up;
//   - a chat write hands its transaction to the Indexer
//     (chats.Indexer.AfterCommit, from chats' settle and its copies),
//     unless it skips the rebuild (updateMessage's skipChunkRebuild); the
//     Indexer starts a round once the write commits and rebuilds the
//     queued chunks first, in batches. A write does not rebuild them
//     itself: only a search reads chunks, and copying a message's text
//     once more was about a tenth of an edit's undo;
//   - a search first rebuilds what is queued for the chats it reads;
//   - removed messages lose their chunk by cascade.
//
// Chunk rows are cheap; indexing them is not (about a millisecond per
// 1 KB message of trigram tokenizing and segment merging). So chunk
// triggers queue the index work in chunks_unindexed; the Indexer's
// goroutine does the work after the write that queued it, and a search
// always finishes what is queued for the chats it reads first
// (chunks_index.go).
//
// The text, role and hidden flag come from the chunk_source view, the one
// definition of what a message contributes. A chunk keeps no copy of the
// text (migration 0026): the indexer reads it through chunk_source, a
// search by the rowid of the swipe row that holds it (swipe_row, migration
// 0027), and rebuilding a queued chunk queues its re-indexing.

// chunkUpsert rebuilds the chunks of the rows chosen by the WHERE clause
// appended to it. Unchanged chunks are not rewritten. A new chunk is
// queued for indexing (trigger chunk_added); rebuildQueued queues an
// existing one's re-indexing.
const chunkUpsert = `INSERT INTO chunks (message_id, chat_id, role, hidden, chars, swipe_row)
	SELECT message_id, chat_id, role, hidden, length(body), swipe_row FROM chunk_source WHERE `

const chunkUpsertConflict = `
	ON CONFLICT (message_id) DO UPDATE SET role = excluded.role, hidden = excluded.hidden, chars = excluded.chars, swipe_row = excluded.swipe_row
	WHERE chunks.role IS NOT excluded.role OR chunks.hidden IS NOT excluded.hidden OR chunks.chars IS NOT excluded.chars
		OR chunks.swipe_row IS NOT excluded.swipe_row`

// rebuildQueued rebuilds the queued chunks of chatRowID (0: of every chat),
// at most limit of them (0: all), and reports how many it took off the queue.
func rebuildQueued(ctx context.Context, tx *store.Tx, chatRowID int64, limit int) (int64, error) {
	pick := `SELECT message_id FROM chunks_pending`
	var args []any
	if chatRowID != 0 {
		pick += ` WHERE chat_id = ?`
		args = append(args, chatRowID)
	}
	if limit > 0 {
		pick += ` ORDER BY message_id LIMIT ?`
		args = append(args, limit)
	}
	// A queued message may show another text than its chunk was indexed
	// with, and the chunk keeps no copy to compare (migration 0026): an
	// indexed chunk is queued to be indexed again. One not indexed yet stays
	// queued as it is; a new chunk is queued by the upsert (chunk_added).
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_unindexed (key, stale)
		SELECT (chat_id << `+fmt.Sprint(chunkKeyBits)+`) | message_id, 1 FROM chunks WHERE message_id IN (`+pick+`)
		ON CONFLICT (key) DO NOTHING`, args...); err != nil {
		return 0, fmt.Errorf("rebuild chunks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, chunkUpsert+`message_id IN (`+pick+`)`+chunkUpsertConflict, args...); err != nil {
		return 0, fmt.Errorf("rebuild chunks: %w", err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM chunks_pending WHERE message_id IN (`+pick+`)`, args...)
	if err != nil {
		return 0, fmt.Errorf("rebuild chunks: %w", err)
	}
	return res.RowsAffected()
}

// flushBatch bounds one transaction of a search's catch-up rebuild, so a
// large backlog (a fresh import) does not hold the write lock for long.
const flushBatch = 500

// rebuildBacklog rebuilds the chunks of up to limit messages of one chat
// with a backlog (chatRowID's; 0: any), the next in id order, and moves
// its cursor past them; a backlog with no message left goes. It reports
// the messages rebuilt plus the backlogs dropped: 0 when there was none.
func rebuildBacklog(ctx context.Context, tx *store.Tx, chatRowID int64, limit int) (int64, error) {
	pick, args := `SELECT chat_id, next_message_id FROM chunks_backlog LIMIT 1`, []any{}
	if chatRowID != 0 {
		pick, args = `SELECT chat_id, next_message_id FROM chunks_backlog WHERE chat_id = ?`, []any{chatRowID}
	}
	var chat, from int64
	if err := tx.QueryRowContext(ctx, pick, args...).Scan(&chat, &from); errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("rebuild chunk backlog: %w", err)
	}
	var last sql.NullInt64
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT max(id), count(*) FROM (SELECT id FROM messages WHERE chat_id = ? AND id >= ? ORDER BY id LIMIT ?)`,
		chat, from, limit).Scan(&last, &n); err != nil {
		return 0, fmt.Errorf("rebuild chunk backlog: %w", err)
	}
	if !last.Valid {
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks_backlog WHERE chat_id = ?`, chat); err != nil {
			return 0, fmt.Errorf("rebuild chunk backlog: %w", err)
		}
		return 1, nil
	}
	if _, err := tx.ExecContext(ctx, chunkUpsert+`chat_id = ? AND message_id BETWEEN ? AND ?`+chunkUpsertConflict, chat, from, last.Int64); err != nil {
		return 0, fmt.Errorf("rebuild chunk backlog: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chunks_backlog SET next_message_id = ? WHERE chat_id = ?`, last.Int64+1, chat); err != nil {
		return 0, fmt.Errorf("rebuild chunk backlog: %w", err)
	}
	return n, nil
}

// flushChunks makes the chunks and the index of chatRowID (0: of every
// chat) current before a search reads them, in write transactions of
// their own.
func flushChunks(ctx context.Context, db *store.Store, chatRowID int64) error {
	for {
		pending, err := chunksPending(ctx, db, chatRowID)
		if err != nil {
			return err
		}
		if !pending {
			break
		}
		var n int64
		err = db.InTx(ctx, func(tx *store.Tx) error {
			queued, err := rebuildQueued(ctx, tx, chatRowID, flushBatch)
			if err != nil {
				return err
			}
			backlog, err := rebuildBacklog(ctx, tx, chatRowID, flushBatch)
			n = queued + backlog
			return err
		})
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	return indexQueued(ctx, db, chatRowID, searchIndexBatch)
}

// chunksPending reports, from the readers, whether chunks of chatRowID
// (0: of any chat) are queued or in a backlog.
func chunksPending(ctx context.Context, db *store.Store, chatRowID int64) (bool, error) {
	q, args := `SELECT EXISTS (SELECT 1 FROM chunks_pending) OR EXISTS (SELECT 1 FROM chunks_backlog)`, []any{}
	if chatRowID != 0 {
		q, args = `SELECT EXISTS (SELECT 1 FROM chunks_pending WHERE chat_id = ?1) OR EXISTS (SELECT 1 FROM chunks_backlog WHERE chat_id = ?1)`, []any{chatRowID}
	}
	var pending bool
	if err := db.Reader().QueryRowContext(ctx, q, args...).Scan(&pending); err != nil {
		return false, fmt.Errorf("check queued chunks: %w", err)
	}
	return pending, nil
}
