package chats

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// preparedMessage is a decoded message with everything its rows need
// already encoded, so the transaction's goroutine only runs statements.
type preparedMessage struct {
	msg           *StMessage
	extra, fields string
	infos         []string
	size          int64 // its JSONL line with id, plus the newline: what chats.bytes counts
}

// prepareMessage checks msg against the depth limit, gives it a fresh id
// and encodes its rows: for an import's bulk insert, and for insertMessage.
func prepareMessage(msg *StMessage) (*preparedMessage, error) {
	if err := jsonx.LimitDepth(msg.depth(), 0, "the message"); err != nil {
		return nil, err
	}
	msg.ID = uuid.NewString()
	extra, fields := mustObjectJSON(msg.Extra), mustObjectJSON(msg.Fields)
	p := &preparedMessage{msg: msg, extra: string(extra), fields: string(fields), infos: make([]string, len(msg.SwipeInfo))}
	raw := make([][]byte, len(msg.SwipeInfo))
	for i, info := range msg.SwipeInfo {
		raw[i] = mustObjectJSON(info)
		p.infos[i] = string(raw[i])
	}
	scratch := lineScratch.Get().(*[]byte)
	line := appendMessageJSON((*scratch)[:0], msg.ID, msg.Name, msg.IsUser, msg.IsSystem, msg.SwipeID, msg.Swipes, raw, extra, fields)
	p.size = int64(len(line) + 1)
	*scratch = line
	lineScratch.Put(scratch)
	return p, nil
}

// lineScratch holds buffers prepareMessage lays a message's line out in
// to measure it: an import measures every message, and a fresh buffer
// each time was tens of megabytes of garbage per large file.
var lineScratch = sync.Pool{New: func() any { return new([]byte) }}

// bulkInserter appends many messages to one new chat inside a transaction:
// the rows insertMessage writes (messages, message_bodies,
// message_swipes), bulkRows rows to a statement. An import of a large chat
// is thousands of these, and a statement per row cost more in binding and
// stepping than the rows themselves; so bodies take their ids from the
// inserter (the next free ones: no one else writes inside the
// transaction), and messages wait for a full batch. finish stores what is
// still waiting.
type bulkInserter struct {
	chatID   int64
	nextBody int64
	pending  []pendingRow
	// one row, and bulkRows rows, of each table
	message, body, swipe     *sql.Stmt
	messages, bodies, swipes *sql.Stmt
	args                     []any
}

// pendingRow is a message waiting for its batch.
type pendingRow struct {
	index  int
	bodyID int64
	p      *preparedMessage
}

// bulkRows is how many rows one batched statement inserts.
const bulkRows = 64

const (
	bodyInsert    = `INSERT INTO message_bodies (id, name, is_user, is_system, hidden, swipe_id, extra, fields, line_bytes) VALUES `
	bodyValues    = `(?, ?, ?, ?, ?, ?, ?, ?, ?)`
	swipeInsert   = `INSERT INTO message_swipes (body_id, ord, mes, info) VALUES `
	messageInsert = `INSERT INTO messages (chat_id, idx, uuid, body_id) VALUES `
	fourValues    = `(?, ?, ?, ?)`
)

func newBulkInserter(ctx context.Context, tx *store.Tx, chatID int64) (*bulkInserter, error) {
	b := &bulkInserter{chatID: chatID}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM message_bodies`).Scan(&b.nextBody); err != nil {
		return nil, fmt.Errorf("prepare import: %w", err)
	}
	var err error
	prepare := func(insert, values string, rows int) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, insert+strings.Repeat(values+", ", rows-1)+values)
		return st
	}
	b.body, b.bodies = prepare(bodyInsert, bodyValues, 1), prepare(bodyInsert, bodyValues, bulkRows)
	b.swipe, b.swipes = prepare(swipeInsert, fourValues, 1), prepare(swipeInsert, fourValues, bulkRows)
	b.message, b.messages = prepare(messageInsert, fourValues, 1), prepare(messageInsert, fourValues, bulkRows)
	if err != nil {
		b.close()
		return nil, fmt.Errorf("prepare import: %w", err)
	}
	return b, nil
}

// insert stores a prepared message at index, or queues it for the batch.
func (b *bulkInserter) insert(ctx context.Context, index int, p *preparedMessage) error {
	b.pending = append(b.pending, pendingRow{index: index, bodyID: b.nextBody, p: p})
	b.nextBody++
	if len(b.pending) < bulkRows {
		return nil
	}
	return b.flush(ctx)
}

// finish stores the messages still queued.
func (b *bulkInserter) finish(ctx context.Context) error {
	return b.flush(ctx)
}

// flush stores the queued messages: bodies first, then their swipes, then
// the message rows pointing at them.
func (b *bulkInserter) flush(ctx context.Context) error {
	defer func() { b.pending = b.pending[:0] }()
	var bodies, swipes, messages [][]any
	for _, r := range b.pending {
		msg := r.p.msg
		bodies = append(bodies, []any{r.bodyID, msg.Name, msg.IsUser, msg.IsSystem, isHidden(msg.Extra), msg.SwipeID, r.p.extra, r.p.fields, r.p.size})
		for i, info := range r.p.infos {
			swipes = append(swipes, []any{r.bodyID, i, msg.Swipes[i], info})
		}
		messages = append(messages, []any{b.chatID, r.index, msg.ID, r.bodyID})
	}
	if err := b.exec(ctx, b.body, b.bodies, bodies); err != nil {
		return fmt.Errorf("import message body: %w", err)
	}
	if err := b.exec(ctx, b.swipe, b.swipes, swipes); err != nil {
		return fmt.Errorf("import swipe: %w", err)
	}
	if err := b.exec(ctx, b.message, b.messages, messages); err != nil {
		return fmt.Errorf("import message: %w", err)
	}
	return nil
}

// exec inserts rows: bulkRows at a time through many, the rest one by one.
func (b *bulkInserter) exec(ctx context.Context, one, many *sql.Stmt, rows [][]any) error {
	for len(rows) >= bulkRows {
		b.args = b.args[:0]
		for _, r := range rows[:bulkRows] {
			b.args = append(b.args, r...)
		}
		if _, err := many.ExecContext(ctx, b.args...); err != nil {
			return err
		}
		rows = rows[bulkRows:]
	}
	for _, r := range rows {
		if _, err := one.ExecContext(ctx, r...); err != nil {
			return err
		}
	}
	return nil
}

// close releases the statements (the transaction's end would too).
func (b *bulkInserter) close() {
	for _, st := range []*sql.Stmt{b.message, b.body, b.swipe, b.messages, b.bodies, b.swipes} {
		if st != nil {
			_ = st.Close()
		}
	}
}
