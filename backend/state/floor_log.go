package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"hearth/backend/internal/msgorder"
)

// Commit is one entry of a floor state's log as callers see it.
type Commit struct {
	Seq     int64           `json:"seq"`
	Floor   int             `json:"floor"`
	SwipeID int             `json:"swipeId"`
	Ops     json.RawMessage `json:"ops"`
}

// Log is the "<ns>__floor_log" document.
type Log struct {
	Version int      `json:"version"`
	Commits []Commit `json:"commits"`
}

// logRow is a commit with what replay needs.
type logRow struct {
	Commit
	messageID int64
	active    bool
}

// readCommits returns a floor state's commits in log order, each with its
// message's current index (the log as callers see it).
func readCommits(ctx context.Context, q queryer, chat int64, ns string) ([]logRow, error) {
	gaps, err := chatGaps(ctx, q, chat)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT fc.seq, m.idx, fc.swipe_id, fc.ops, fc.message_id
		FROM floor_commits fc JOIN messages m ON m.id = fc.message_id
		WHERE fc.chat_id = ? AND fc.ns = ? ORDER BY fc.seq`, chat, ns)
	if err != nil {
		return nil, fmt.Errorf("read floor log %s: %w", ns, err)
	}
	defer rows.Close()
	var out []logRow
	for rows.Next() {
		var r logRow
		var ops string
		var pos int
		if err := rows.Scan(&r.Seq, &pos, &r.SwipeID, &ops, &r.messageID); err != nil {
			return nil, fmt.Errorf("read floor log %s: %w", ns, err)
		}
		r.Floor = gaps.Index(pos)
		r.Ops = json.RawMessage(ops)
		out = append(out, r)
	}
	return out, rows.Err()
}

// chatGaps reads the vacant message positions of chat (see msgorder): a
// message's floor is its stored position less the gaps below it.
func chatGaps(ctx context.Context, q queryer, chat int64) (msgorder.Gaps, error) {
	var raw []byte
	if err := q.QueryRowContext(ctx, `SELECT idx_gaps FROM chats WHERE id = ?`, chat).Scan(&raw); err != nil {
		return nil, fmt.Errorf("read message gaps: %w", err)
	}
	gaps, err := msgorder.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("chat %d: %w", chat, err)
	}
	return gaps, nil
}

// replayRows returns a floor state's commits in log order for replay: no
// message index (found only for commits cut to the orphans), and active
// when made on its message's active swipe.
func replayRows(ctx context.Context, q queryer, chat int64, ns string) ([]logRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT fc.seq, fc.swipe_id, fc.ops, fc.message_id, fc.swipe_id = b.swipe_id
		FROM floor_commits fc JOIN messages m ON m.id = fc.message_id JOIN message_bodies b ON b.id = m.body_id
		WHERE fc.chat_id = ? AND fc.ns = ? ORDER BY fc.seq`, chat, ns)
	if err != nil {
		return nil, fmt.Errorf("read floor log %s: %w", ns, err)
	}
	defer rows.Close()
	var out []logRow
	for rows.Next() {
		var r logRow
		var ops string
		if err := rows.Scan(&r.Seq, &r.SwipeID, &ops, &r.messageID, &r.active); err != nil {
			return nil, fmt.Errorf("read floor log %s: %w", ns, err)
		}
		r.Ops = json.RawMessage(ops)
		out = append(out, r)
	}
	return out, rows.Err()
}

// floorMeta is a floor_states row.
type floorMeta struct {
	nextSeq int64
	logRev  int64
}

func readFloorMeta(ctx context.Context, q queryer, chat int64, ns string) (*floorMeta, error) {
	var m floorMeta
	err := q.QueryRowContext(ctx, `SELECT next_seq, log_rev FROM floor_states WHERE chat_id = ? AND ns = ?`, chat, ns).Scan(&m.nextSeq, &m.logRev)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read floor state %s: %w", ns, err)
	}
	return &m, nil
}

// readLog is getChatState("<ns>__floor_log"): nil when ns has no floor state.
func readLog(ctx context.Context, q queryer, chat int64, ns string) (*Entry, error) {
	meta, err := readFloorMeta(ctx, q, chat, ns)
	if err != nil || meta == nil {
		return nil, err
	}
	rows, err := readCommits(ctx, q, chat, ns)
	if err != nil {
		return nil, err
	}
	log := Log{Version: 1, Commits: make([]Commit, len(rows))}
	for i, r := range rows {
		log.Commits[i] = r.Commit
	}
	raw, err := json.Marshal(log)
	if err != nil {
		return nil, fmt.Errorf("encode floor log %s: %w", ns, err)
	}
	return &Entry{Value: raw, Revision: meta.logRev}, nil
}

func bumpLog(ctx context.Context, q queryer, chat int64, ns string) error {
	if _, err := q.ExecContext(ctx, `UPDATE floor_states SET log_rev = log_rev + 1 WHERE chat_id = ? AND ns = ?`, chat, ns); err != nil {
		return fmt.Errorf("bump floor log %s: %w", ns, err)
	}
	return nil
}
