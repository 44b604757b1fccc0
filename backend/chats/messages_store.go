package chats

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"hearth/backend/internal/msgorder"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// storedMessage is a message with its storage identity and position.
type storedMessage struct {
	rowID int64
	index int
	msg   *StMessage
	// encoded is msg's JSON when a reader has made it already (nil: not
	// yet), so a rewrite's journal diff does not encode it again.
	encoded []byte
}

// json returns the message's JSON.
func (sm storedMessage) json() []byte {
	if sm.encoded != nil {
		return sm.encoded
	}
	return sm.msg.mustJSON()
}

// rawMessage is one message as stored: JSON columns still encoded.
type rawMessage struct {
	rowID    int64
	index    int
	id, name string
	isUser   bool
	isSystem bool
	swipeID  int
	extra    []byte
	fields   []byte
	swipes   []string
	infos    [][]byte
}

// scanRange streams the messages with start <= index < end, in order,
// with their swipes, to fn. One query walks (chat_id, idx) and joins each
// message's swipes in ord order, so nothing is sorted or buffered whole.
// The chat row must come from q's snapshot (its gaps place the indexes).
// fn must not keep r past the call unless it copies the slices.
func scanRange(ctx context.Context, q queryer, chat *chatRow, start, end int, fn func(r *rawMessage) error) error {
	if start >= end {
		return nil
	}
	rows, err := q.QueryContext(ctx, `
		SELECT m.id, m.idx, m.uuid, b.name, b.is_user, b.is_system, b.swipe_id, b.extra, b.fields, s.ord, s.mes, s.info
		FROM messages m
		JOIN message_bodies b ON b.id = m.body_id
		JOIN message_swipes s ON s.body_id = m.body_id
		WHERE m.chat_id = ? AND m.idx >= ? AND m.idx < ?
		ORDER BY m.idx, s.ord`, chat.id, chat.gaps.Pos(start), chat.gaps.Pos(end))
	if err != nil {
		return fmt.Errorf("load messages: %w", err)
	}
	defer rows.Close()
	var cur *rawMessage
	flush := func() error {
		if cur == nil {
			return nil
		}
		if len(cur.swipes) == 0 || cur.swipeID < 0 || cur.swipeID >= len(cur.swipes) {
			return fmt.Errorf("message %s: stored without a valid active swipe", cur.id)
		}
		return fn(cur)
	}
	for rows.Next() {
		var r rawMessage
		var ord int
		var mes string
		var info []byte
		if err := rows.Scan(&r.rowID, &r.index, &r.id, &r.name, &r.isUser, &r.isSystem, &r.swipeID, &r.extra, &r.fields, &ord, &mes, &info); err != nil {
			return fmt.Errorf("load messages: %w", err)
		}
		if cur == nil || cur.rowID != r.rowID {
			if err := flush(); err != nil {
				return err
			}
			r.index = chat.gaps.Index(r.index)
			cur = &r
		}
		if ord != len(cur.swipes) {
			return fmt.Errorf("message %s: swipe %d out of order", cur.id, ord)
		}
		cur.swipes = append(cur.swipes, mes)
		cur.infos = append(cur.infos, info)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load messages: %w", err)
	}
	return flush()
}

// decode turns a raw row into an StMessage.
func (r *rawMessage) decode() (*StMessage, error) {
	m := &StMessage{ID: r.id, Name: r.name, IsUser: r.isUser, IsSystem: r.isSystem, SwipeID: r.swipeID, Swipes: r.swipes,
		SwipeInfo: make([]jsonx.Object, len(r.infos))}
	if err := json.Unmarshal(r.extra, &m.Extra); err != nil {
		return nil, fmt.Errorf("message %s: corrupt extra: %w", m.ID, err)
	}
	if err := json.Unmarshal(r.fields, &m.Fields); err != nil {
		return nil, fmt.Errorf("message %s: corrupt fields: %w", m.ID, err)
	}
	for i, info := range r.infos {
		if err := json.Unmarshal(info, &m.SwipeInfo[i]); err != nil {
			return nil, fmt.Errorf("message %s: corrupt swipe_info: %w", m.ID, err)
		}
	}
	return m, nil
}

// loadRange reads messages with start <= index < end, in order, swipes
// included.
func loadRange(ctx context.Context, q queryer, chat *chatRow, start, end int) ([]storedMessage, error) {
	out := make([]storedMessage, 0, max(0, end-start))
	err := scanRange(ctx, q, chat, start, end, func(r *rawMessage) error {
		m, err := r.decode()
		if err != nil {
			return err
		}
		out = append(out, storedMessage{rowID: r.rowID, index: r.index, msg: m})
		return nil
	})
	return out, err
}

// appendRangeJSON writes messages start <= index < end as a JSON array of
// SillyTavern objects straight from the stored columns. With spill set,
// whenever b reaches spillAt bytes it goes to spill, which returns the
// buffer to go on with (a stream's piece); without it, b holds everything.
func appendRangeJSON(ctx context.Context, q queryer, chat *chatRow, start, end int, b []byte, spill func([]byte) ([]byte, error)) ([]byte, error) {
	b = append(b, '[')
	first := true
	err := scanRange(ctx, q, chat, start, end, func(r *rawMessage) error {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendMessageJSON(b, r.id, r.name, r.isUser, r.isSystem, r.swipeID, r.swipes, r.infos, r.extra, r.fields)
		if spill != nil && len(b) >= spillAt {
			var err error
			b, err = spill(b)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return append(b, ']'), nil
}

// spillAt is the size of a streamed read's pieces.
const spillAt = 256 << 10

// loadAt reads the message at index, or message.index_out_of_range.
func loadAt(ctx context.Context, q queryer, chat *chatRow, index int) (storedMessage, error) {
	if err := checkIndex(index, chat.messageCount); err != nil {
		return storedMessage{}, err
	}
	got, err := loadRange(ctx, q, chat, index, index+1)
	if err != nil {
		return storedMessage{}, err
	}
	if len(got) != 1 {
		return storedMessage{}, fmt.Errorf("chat %s: no row at index %d of %d", chat.uuid, index, chat.messageCount)
	}
	return got[0], nil
}

// loadByID reads the message with public id messageID in chat.
func loadByID(ctx context.Context, q queryer, chat *chatRow, messageID string) (storedMessage, error) {
	var pos int
	err := q.QueryRowContext(ctx, `SELECT idx FROM messages WHERE chat_id = ? AND uuid = ?`, chat.id, messageID).Scan(&pos)
	if errors.Is(err, sql.ErrNoRows) {
		return storedMessage{}, messageNotFound(chat.uuid, messageID)
	}
	if err != nil {
		return storedMessage{}, fmt.Errorf("find message %s: %w", messageID, err)
	}
	return loadAt(ctx, q, chat, chat.gaps.Index(pos))
}

// insertMessage stores msg at position pos (which must be free), assigns
// it a fresh id and queues its chunk. The body and swipes go first, so the
// message row is born pointing at them.
func insertMessage(ctx context.Context, tx *store.Tx, chatID int64, pos int, msg *StMessage) (int64, error) {
	p, err := prepareMessage(msg)
	if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO message_bodies (name, is_user, is_system, hidden, swipe_id, extra, fields, line_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		msg.Name, msg.IsUser, msg.IsSystem, isHidden(msg.Extra), msg.SwipeID, p.extra, p.fields, p.size)
	if err != nil {
		return 0, fmt.Errorf("insert message body: %w", err)
	}
	bodyID, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("insert message body: %w", err)
	}
	for i, info := range p.infos {
		if err := insertSwipe(ctx, tx, bodyID, i, msg.Swipes[i], info); err != nil {
			return 0, err
		}
	}
	res, err = tx.ExecContext(ctx, `INSERT INTO messages (chat_id, idx, uuid, body_id) VALUES (?, ?, ?, ?)`, chatID, pos, msg.ID, bodyID)
	if err != nil {
		return 0, fmt.Errorf("insert message: %w", err)
	}
	rowID, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("insert message: %w", err)
	}
	// Its chunk is queued, unless a backlog of the chat reaches it
	// (migration 0022).
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO chunks_pending (message_id, chat_id) SELECT ?1, ?2
		WHERE NOT EXISTS (SELECT 1 FROM chunks_backlog WHERE chat_id = ?2 AND next_message_id <= ?1)`, rowID, chatID); err != nil {
		return 0, fmt.Errorf("queue message chunk: %w", err)
	}
	return rowID, nil
}

func insertSwipe(ctx context.Context, tx *store.Tx, bodyID int64, ord int, mes, info string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO message_swipes (body_id, ord, mes, info) VALUES (?, ?, ?, ?)`, bodyID, ord, mes, info); err != nil {
		return fmt.Errorf("insert swipe: %w", err)
	}
	return nil
}

// ownBody returns the body of message rowID for writing. A body shared with
// another message (a checkpoint or branch and its source) is copied first,
// swipes included, and the message pointed at the copy, so a write never
// reaches another chat.
func ownBody(ctx context.Context, tx *store.Tx, rowID int64) (int64, error) {
	var bodyID int64
	var shared bool
	err := tx.QueryRowContext(ctx, `SELECT m.body_id, EXISTS (SELECT 1 FROM messages o WHERE o.body_id = m.body_id AND o.id <> m.id)
		FROM messages m WHERE m.id = ?`, rowID).Scan(&bodyID, &shared)
	if err != nil {
		return 0, fmt.Errorf("find message body: %w", err)
	}
	if !shared {
		return bodyID, nil
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO message_bodies (name, is_user, is_system, hidden, swipe_id, extra, fields, line_bytes)
		SELECT name, is_user, is_system, hidden, swipe_id, extra, fields, line_bytes FROM message_bodies WHERE id = ?`, bodyID)
	if err != nil {
		return 0, fmt.Errorf("copy message body: %w", err)
	}
	own, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("copy message body: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO message_swipes (body_id, ord, mes, info)
		SELECT ?, ord, mes, info FROM message_swipes WHERE body_id = ? ORDER BY ord`, own, bodyID); err != nil {
		return 0, fmt.Errorf("copy message swipes: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE messages SET body_id = ? WHERE id = ?`, own, rowID); err != nil {
		return 0, fmt.Errorf("copy message body: %w", err)
	}
	return own, nil
}

// rewriteMessage stores next over prev, touching only the rows that
// differ: editing one swipe rewrites one swipe row (of the message's own
// body: see ownBody). The body's line_bytes follows any change.
func rewriteMessage(ctx context.Context, tx *store.Tx, rowID int64, prev, next *StMessage) error {
	if err := jsonx.LimitDepth(next.depth(), prev.depth(), "the message"); err != nil {
		return err
	}
	var bodyID int64
	own := func() (int64, error) {
		if bodyID != 0 {
			return bodyID, nil
		}
		var err error
		bodyID, err = ownBody(ctx, tx, rowID)
		return bodyID, err
	}
	measured := false
	if prev.Name != next.Name || prev.IsUser != next.IsUser || prev.IsSystem != next.IsSystem || prev.SwipeID != next.SwipeID ||
		!objectsEqual(prev.Extra, next.Extra) || !objectsEqual(prev.Fields, next.Fields) {
		id, err := own()
		if err != nil {
			return err
		}
		extra, _ := next.Extra.MarshalJSON()
		fields, _ := next.Fields.MarshalJSON()
		if _, err := tx.ExecContext(ctx, `UPDATE message_bodies SET name = ?, is_user = ?, is_system = ?, hidden = ?, swipe_id = ?, extra = ?, fields = ?,
			line_bytes = ? WHERE id = ?`,
			next.Name, next.IsUser, next.IsSystem, isHidden(next.Extra), next.SwipeID, string(extra), string(fields), lineBytes(next, prev.ID), id); err != nil {
			return fmt.Errorf("write message body: %w", err)
		}
		measured = true
	}
	for i := range next.Swipes {
		if i < len(prev.Swipes) && prev.Swipes[i] == next.Swipes[i] && objectsEqual(prev.SwipeInfo[i], next.SwipeInfo[i]) {
			continue
		}
		id, err := own()
		if err != nil {
			return err
		}
		raw, _ := next.SwipeInfo[i].MarshalJSON()
		if i >= len(prev.Swipes) {
			if err := insertSwipe(ctx, tx, id, i, next.Swipes[i], string(raw)); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE message_swipes SET mes = ?, info = ? WHERE body_id = ? AND ord = ?`,
			next.Swipes[i], string(raw), id, i); err != nil {
			return fmt.Errorf("update swipe: %w", err)
		}
	}
	if len(next.Swipes) < len(prev.Swipes) {
		id, err := own()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM message_swipes WHERE body_id = ? AND ord >= ?`, id, len(next.Swipes)); err != nil {
			return fmt.Errorf("trim swipes: %w", err)
		}
	}
	if bodyID != 0 && !measured {
		if _, err := tx.ExecContext(ctx, `UPDATE message_bodies SET line_bytes = ? WHERE id = ?`, lineBytes(next, prev.ID), bodyID); err != nil {
			return fmt.Errorf("write message body: %w", err)
		}
	}
	return nil
}

// lineBytes is what message m, stored under the id id, adds to
// chats.bytes and to its body's line_bytes: its JSONL line and the newline.
func lineBytes(m *StMessage, id string) int64 {
	c := *m
	c.ID = id
	return int64(len(c.mustJSON()) + 1)
}

// deleteRows removes messages (by row id) from chat; indexes are theirs,
// ascending. Their positions become gaps (see msgorder), so the rows after
// them keep theirs. Past msgorder.MaxGaps gaps, the chat's rows are
// renumbered to close them all. The caller lowers chat.messageCount.
func deleteRows(ctx context.Context, tx *store.Tx, chat *chatRow, rowIDs []int64, indexes []int) error {
	if len(rowIDs) == 0 {
		return nil
	}
	positions := make([]int, len(indexes))
	for i, index := range indexes {
		positions[i] = chat.gaps.Pos(index)
	}
	// In batches: SQLite takes at most 32,766 parameters per statement.
	for rest := rowIDs; len(rest) > 0; {
		batch := rest[:min(len(rest), 500)]
		rest = rest[len(batch):]
		args := make([]any, len(batch))
		for i, id := range batch {
			args[i] = id
		}
		ph := strings.TrimSuffix(strings.Repeat("?,", len(batch)), ",")
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE id IN (`+ph+`)`, args...); err != nil {
			return fmt.Errorf("delete messages: %w", err)
		}
	}
	gaps := chat.gaps.Vacate(positions, chat.messageCount)
	if len(gaps) > msgorder.MaxGaps {
		if err := closeGaps(ctx, tx, chat.id, gaps); err != nil {
			return err
		}
		gaps = nil
	}
	return setGaps(ctx, tx, chat, gaps)
}

// closeGaps renumbers a chat's rows so that each position is its index
// again: every band of rows between two gaps moves down by the number of
// gaps below it, one band at a time, ascending, so (chat_id, idx) stays
// unique at each step.
func closeGaps(ctx context.Context, tx *store.Tx, chatID int64, gaps msgorder.Gaps) error {
	for i, from := range gaps {
		to := int64(1 << 62)
		if i+1 < len(gaps) {
			to = int64(gaps[i+1])
		}
		if to == int64(from)+1 {
			continue // no row between two neighbouring gaps
		}
		_, err := tx.ExecContext(ctx, `UPDATE messages SET idx = idx - ? WHERE chat_id = ? AND idx > ? AND idx < ?`,
			i+1, chatID, from, to)
		if isUniqueViolation(err) {
			// SQLite moves the rows in row-id order, which is idx order
			// until a row was put back in the middle (a patch that moves
			// messages, an undo). Then the statement meets a row not moved
			// yet and is undone alone; the band goes through negative
			// positions instead (parked, idx o sits at -o-1).
			if _, err = tx.ExecContext(ctx, `UPDATE messages SET idx = -idx - 1 WHERE chat_id = ? AND idx > ? AND idx < ?`, chatID, from, to); err == nil {
				_, err = tx.ExecContext(ctx, `UPDATE messages SET idx = -idx - 1 - ? WHERE chat_id = ? AND idx < ? AND idx > ?`,
					i+1, chatID, -int64(from)-1, -to-1)
			}
		}
		if err != nil {
			return fmt.Errorf("renumber messages: %w", err)
		}
	}
	return nil
}

// densify closes chat's gaps, for a write that places rows by index (see
// closeGaps).
func densify(ctx context.Context, tx *store.Tx, chat *chatRow) error {
	if len(chat.gaps) == 0 {
		return nil
	}
	if err := closeGaps(ctx, tx, chat.id, chat.gaps); err != nil {
		return err
	}
	return setGaps(ctx, tx, chat, nil)
}

// setGaps stores chat's vacant positions. They are written at once, not
// with the chat's counters at the end of the write: the floor states
// settled before that read them.
func setGaps(ctx context.Context, tx *store.Tx, chat *chatRow, gaps msgorder.Gaps) error {
	if slices.Equal(chat.gaps, gaps) {
		return nil
	}
	chat.gaps = gaps
	if _, err := tx.ExecContext(ctx, `UPDATE chats SET idx_gaps = ? WHERE id = ?`, gaps.Encode(), chat.id); err != nil {
		return fmt.Errorf("store message gaps: %w", err)
	}
	return nil
}

func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}

func objectsEqual(a, b jsonx.Object) bool {
	if len(a) != len(b) {
		return false
	}
	x, _ := a.MarshalJSON()
	y, _ := b.MarshalJSON()
	return string(x) == string(y)
}
