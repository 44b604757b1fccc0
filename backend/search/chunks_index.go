package search

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"hearth/backend/store"
)

// Index work is done in batches of keys, one transaction each. A search
// waits for its own catch-up anyway and takes big bites; the background
// indexer takes small ones, so a chat write that arrives meanwhile waits
// only a few milliseconds for the write lock. A chat write indexes
// nothing itself: tokenizing a message costs about a millisecond, which
// an edit, an undo or a streamed reply should not wait for.
const (
	searchIndexBatch     = 512
	backgroundIndexBatch = 32
	// backgroundBacklogBatch is the chunks rebuilt per background
	// transaction (of a copied chat's backlog, or of messages queued one
	// by one): a few milliseconds of the write lock.
	backgroundBacklogBatch = 256
)

// chunkPad is indexed twice after every body (migration 0003): then every
// occurrence of a 1–2 character string starts a trigram. A noncharacter,
// dropped from queries, so it never matches itself.
const chunkPad = '\uFDD0'

// padSuffix follows every body in the index.
var padSuffix = strings.Repeat(string(chunkPad), 2)

// keyRange is the index keys of chatRowID (0: of every chat).
func keyRange(chatRowID int64) (lo, hi int64) {
	if chatRowID == 0 {
		return 0, math.MaxInt64
	}
	return chatRowID << chunkKeyBits, (chatRowID + 1) << chunkKeyBits
}

// indexQueued does the queued index work of chatRowID (0: of every
// chat), batch keys per transaction, until none is left.
func indexQueued(ctx context.Context, db *store.Store, chatRowID int64, batch int) error {
	return indexPaced(ctx, db, chatRowID, batch, 0)
}

// backgroundRest is how long the background indexer rests after each
// batch, as a multiple of the time the batch took: it then uses at most a
// third of a core, and a chat opened or written right after a large
// import or branch (thousands of messages to index) is not slowed down
// by it. A search does its own catch-up at full speed.
const backgroundRest = 2

// indexPaced is indexQueued resting rest times each batch's duration
// after it.
func indexPaced(ctx context.Context, db *store.Store, chatRowID int64, batch int, rest time.Duration) error {
	lo, hi := keyRange(chatRowID)
	for {
		var queued bool
		if err := db.Reader().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chunks_unindexed WHERE key >= ? AND key < ?)`, lo, hi).
			Scan(&queued); err != nil {
			return fmt.Errorf("check index queue: %w", err)
		}
		if !queued {
			return nil
		}
		var n int
		began := time.Now()
		err := db.InTx(ctx, func(tx *store.Tx) error {
			var err error
			n, err = indexBatch(ctx, tx, lo, hi, batch)
			return err
		})
		if err != nil {
			return err
		}
		if n < batch {
			return nil
		}
		if err := sleep(ctx, time.Since(began)*rest); err != nil {
			return err
		}
	}
}

// indexWorkQueued reports whether any chunk or index work is queued.
const indexWorkQueued = `SELECT EXISTS (SELECT 1 FROM chunks_pending) OR EXISTS (SELECT 1 FROM chunks_backlog) OR EXISTS (SELECT 1 FROM chunks_unindexed)`

// pendingPaced rebuilds the chunks queued one by one (chunks_pending),
// batch per transaction, resting rest times each batch's duration after
// it. The rebuilt chunks queue their index work.
func pendingPaced(ctx context.Context, db *store.Store, batch int, rest time.Duration) error {
	return paced(ctx, db, rest, func(tx *store.Tx) (bool, error) {
		n, err := rebuildQueued(ctx, tx, 0, batch)
		return n < int64(batch), err
	})
}

// backlogPaced works through every chunk backlog (a copied chat's chunks
// to rebuild), batch messages per transaction, resting rest times each
// batch's duration after it. The rebuilt chunks queue their index work.
func backlogPaced(ctx context.Context, db *store.Store, batch int, rest time.Duration) error {
	return paced(ctx, db, rest, func(tx *store.Tx) (bool, error) {
		n, err := rebuildBacklog(ctx, tx, 0, batch)
		return n == 0, err
	})
}

// paced runs step in one write transaction after another until it reports
// that it is done, resting rest times each transaction's duration after
// it, so background work leaves the write lock free most of the time.
func paced(ctx context.Context, db *store.Store, rest time.Duration, step func(tx *store.Tx) (done bool, err error)) error {
	for {
		var done bool
		began := time.Now()
		err := db.InTx(ctx, func(tx *store.Tx) error {
			var err error
			done, err = step(tx)
			return err
		})
		if err != nil || done {
			return err
		}
		if err := sleep(ctx, time.Since(began)*rest); err != nil {
			return err
		}
	}
}

// sleep waits for d, or less when ctx ends first (its error then): the
// background Indexer's rests end as soon as it is closed.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// indexMergePages is the FTS5 merge work of one background transaction,
// in pages written: about 5–15 ms of the write lock on a 100,000-message
// index. The step that finishes a merge also deletes the merged segments,
// which can take a few hundred milliseconds whatever the step's size.
const indexMergePages = 64

// mergePaced folds the index's segments together once the queue is
// done, merge pages per transaction, resting rest times each step's
// duration after it. Every index transaction writes a segment, and FTS5
// merges them only when a level holds 16 (automerge, migration 0003,
// keeps writes cheap); a query reads every segment, and with 19 of them
// a search of 100,000 messages took about a sixth longer than with two.
// FTS5's 'merge' command merges the levels holding 4 segments or more
// (usermerge) and reports through total_changes whether it found any:
// with this, the index a search reads keeps at most 3 segments per
// level. It stops early when index work is queued (its caller comes back
// to it), so a write waits for one step at most.
func mergePaced(ctx context.Context, db *store.Store, pages int, rest time.Duration) error {
	return paced(ctx, db, rest, func(tx *store.Tx) (bool, error) {
		var queued bool
		if err := tx.QueryRowContext(ctx, indexWorkQueued).Scan(&queued); err != nil {
			return false, fmt.Errorf("check index queue: %w", err)
		}
		if queued {
			return true, nil
		}
		merged, err := mergeStep(ctx, tx, pages)
		return !merged, err
	})
}

// mergeStep does up to pages of FTS5 merge work and reports whether there
// was any: the command itself counts as one change, and a merge writes
// at least one more.
func mergeStep(ctx context.Context, tx *store.Tx, pages int) (bool, error) {
	var before, after int64
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return false, fmt.Errorf("merge index: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('merge', ?)`, pages); err != nil {
		return false, fmt.Errorf("merge index: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
		return false, fmt.Errorf("merge index: %w", err)
	}
	return after-before >= 2, nil
}

// indexBatch brings the index in line with the chunks for up to limit
// queued keys in [lo, hi).
func indexBatch(ctx context.Context, tx *store.Tx, lo, hi int64, limit int) (int, error) {
	return indexPicked(ctx, tx, `SELECT key, stale FROM chunks_unindexed WHERE key >= ? AND key < ? ORDER BY key LIMIT ?`, lo, hi, limit)
}

// indexPicked does the index work of the queued keys a query picks: old
// versions of keys leave the index, the current text of the chunks (of
// messages that still exist), read through chunk_source, comes in, and the
// keys leave the queue. One statement each, so FTS5 gathers the whole
// batch in memory and writes one segment (a statement per key would write
// a segment each, and merge them all).
func indexPicked(ctx context.Context, tx *store.Tx, pick string, args ...any) (int, error) {
	rows, err := tx.QueryContext(ctx, pick, args...)
	if err != nil {
		return 0, fmt.Errorf("index chunks: %w", err)
	}
	var keys, stale []int64
	for rows.Next() {
		var key int64
		var old bool
		if err := rows.Scan(&key, &old); err != nil {
			rows.Close()
			return 0, fmt.Errorf("index chunks: %w", err)
		}
		keys = append(keys, key)
		if old {
			stale = append(stale, key)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("index chunks: %w", err)
	}
	if len(keys) == 0 {
		return 0, nil
	}
	all, _ := json.Marshal(keys)
	if len(stale) > 0 {
		old, _ := json.Marshal(stale)
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks_fts WHERE rowid IN (SELECT value FROM json_each(?))`, string(old)); err != nil {
			return 0, fmt.Errorf("unindex chunks: %w", err)
		}
	}
	// CROSS JOIN: walk the batch, look each chunk and text up by key.
	if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts (rowid, body)
		SELECT j.value, t.body || ? FROM json_each(?) j
		CROSS JOIN chunks c ON c.message_id = (j.value & `+fmt.Sprint(chunkKeyMask)+`) AND c.chat_id = (j.value >> `+fmt.Sprint(chunkKeyBits)+`)
		CROSS JOIN chunk_source t ON t.message_id = c.message_id`,
		padSuffix, string(all)); err != nil {
		return 0, fmt.Errorf("index chunks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM chunks_unindexed WHERE key IN (SELECT value FROM json_each(?))`, string(all)); err != nil {
		return 0, fmt.Errorf("index chunks: %w", err)
	}
	return len(keys), nil
}
