package chats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/internal/msgorder"
	"hearth/backend/jsonx"
)

// chatRow is one row of the chats table.
type chatRow struct {
	id           int64
	uuid         string
	ownerKind    string
	owner        string
	fileName     string
	kind         string
	parentUUID   sql.NullString
	branchPoint  sql.NullInt64
	metadata     jsonx.Object
	revision     int64
	messageCount int
	// gaps are the vacant message positions (see msgorder): a message's
	// index is gaps.Index(its idx).
	gaps      msgorder.Gaps
	bytes     int64
	createdAt int64
	updatedAt int64
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

const chatColumns = `id, uuid, owner_kind, owner, file_name, kind, parent_uuid, branch_point,
	metadata, revision, message_count, idx_gaps, bytes, created_at, updated_at`

func scanChat(scan func(...any) error) (*chatRow, error) {
	var c chatRow
	var meta string
	var gaps []byte
	if err := scan(&c.id, &c.uuid, &c.ownerKind, &c.owner, &c.fileName, &c.kind, &c.parentUUID, &c.branchPoint,
		&meta, &c.revision, &c.messageCount, &gaps, &c.bytes, &c.createdAt, &c.updatedAt); err != nil {
		return nil, err
	}
	g, err := msgorder.Decode(gaps)
	if err != nil {
		return nil, fmt.Errorf("chat %s: %w", c.uuid, err)
	}
	c.gaps = g
	o, err := jsonx.DecodeObject([]byte(meta), "metadata")
	if err != nil {
		return nil, fmt.Errorf("chat %s has corrupt metadata: %w", c.uuid, err)
	}
	c.metadata = o
	return &c, nil
}

func chatNotFound(chatID string) error {
	return apperr.New(apperr.CodeChatNotFound, "no chat with id %q", chatID).WithDetails(map[string]any{"chatId": chatID})
}

// loadChat reads the chat with the given public id.
func loadChat(ctx context.Context, q queryer, chatID string) (*chatRow, error) {
	row := q.QueryRowContext(ctx, `SELECT `+chatColumns+` FROM chats WHERE uuid = ?`, chatID)
	c, err := scanChat(row.Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, chatNotFound(chatID)
	}
	if err != nil {
		return nil, fmt.Errorf("load chat %s: %w", chatID, err)
	}
	return c, nil
}
