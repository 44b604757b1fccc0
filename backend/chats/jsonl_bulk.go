package chats

import (
	"context"
	"database/sql"
	"fmt"

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
	p.size = int64(messageJSONLen(msg.ID, msg.Name, msg.IsUser, msg.IsSystem, msg.SwipeID, msg.Swipes, raw, extra, fields) + 1)
	return p, nil
}

// bulkInserter appends many messages to one new chat inside a transaction:
// the rows insertMessage writes (messages, message_bodies,
// message_swipes), through statements prepared once. An import of a large
// chat is thousands of these; parsing the same three statements for every
// row would cost more than the rows.
type bulkInserter struct {
	chatID               int64
	message, body, swipe *sql.Stmt
}

func newBulkInserter(ctx context.Context, tx *store.Tx, chatID int64) (*bulkInserter, error) {
	b := &bulkInserter{chatID: chatID}
	var err error
	prepare := func(query string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = tx.PrepareContext(ctx, query)
		return st
	}
	b.message = prepare(`INSERT INTO messages (chat_id, idx, uuid, body_id) VALUES (?, ?, ?, ?)`)
	b.body = prepare(`INSERT INTO message_bodies (name, is_user, is_system, hidden, swipe_id, extra, fields, line_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	b.swipe = prepare(`INSERT INTO message_swipes (body_id, ord, mes, info) VALUES (?, ?, ?, ?)`)
	if err != nil {
		b.close()
		return nil, fmt.Errorf("prepare import: %w", err)
	}
	return b, nil
}

// insert stores a prepared message at index.
func (b *bulkInserter) insert(ctx context.Context, index int, p *preparedMessage) error {
	msg := p.msg
	res, err := b.body.ExecContext(ctx, msg.Name, msg.IsUser, msg.IsSystem, isHidden(msg.Extra), msg.SwipeID, p.extra, p.fields, p.size)
	if err != nil {
		return fmt.Errorf("import message body: %w", err)
	}
	bodyID, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("import message body: %w", err)
	}
	for i, info := range p.infos {
		if _, err := b.swipe.ExecContext(ctx, bodyID, i, msg.Swipes[i], info); err != nil {
			return fmt.Errorf("import swipe: %w", err)
		}
	}
	if _, err := b.message.ExecContext(ctx, b.chatID, index, msg.ID, bodyID); err != nil {
		return fmt.Errorf("import message: %w", err)
	}
	return nil
}

// close releases the statements (the transaction's end would too).
func (b *bulkInserter) close() {
	for _, st := range []*sql.Stmt{b.message, b.body, b.swipe} {
		if st != nil {
			_ = st.Close()
		}
	}
}
