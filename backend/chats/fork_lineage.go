package chats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"hearth/backend/internal/msgorder"
	"hearth/backend/store"
)

// Fork describes a checkpoint or branch being made, for AfterFork.
type Fork struct {
	// SourceChatID is the chat forked from; ChatID the new chat.
	SourceChatID string
	ChatID       string
	// Index is the branch point: the new chat holds the source's messages
	// 0…Index.
	Index int
	// Kind is "checkpoint" or "branch".
	Kind string
}

// Parent is where a chat was forked from: the source chat and the branch
// point (the last message index it copied).
type Parent struct {
	ChatID string
	Index  int
}

// ParentTx reads the chat a checkpoint or branch was forked from. ok is
// false for a chat that is no fork, or whose source has since been
// deleted. A chat that does not exist is chat.not_found.
func ParentTx(ctx context.Context, tx *store.Tx, chatID string) (p Parent, ok bool, err error) {
	c, err := loadChat(ctx, tx, chatID)
	if err != nil {
		return Parent{}, false, err
	}
	if !c.parentUUID.Valid || !c.branchPoint.Valid {
		return Parent{}, false, nil
	}
	var exists int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM chats WHERE uuid = ?`, c.parentUUID.String).Scan(&exists)
	if errors.Is(err, sql.ErrNoRows) {
		return Parent{}, false, nil
	}
	if err != nil {
		return Parent{}, false, fmt.Errorf("read the source of chat %s: %w", chatID, err)
	}
	return Parent{ChatID: c.parentUUID.String, Index: int(c.branchPoint.Int64)}, true, nil
}

// MessageIndexTx finds the index of message messageID in chat chatID; ok
// is false when the chat does not hold it (deleted, or another chat's).
func MessageIndexTx(ctx context.Context, tx *store.Tx, chatID, messageID string) (idx int, ok bool, err error) {
	var pos int
	var raw []byte
	err = tx.QueryRowContext(ctx, `SELECT m.idx, c.idx_gaps FROM messages m JOIN chats c ON c.id = m.chat_id
		WHERE c.uuid = ? AND m.uuid = ?`, chatID, messageID).Scan(&pos, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("find message %s in chat %s: %w", messageID, chatID, err)
	}
	gaps, err := msgorder.Decode(raw)
	if err != nil {
		return 0, false, fmt.Errorf("chat %s: %w", chatID, err)
	}
	return gaps.Index(pos), true, nil
}

// LastMessageID is the uuid of chat chatID's last message, "" for an
// empty chat: a point in the chat's history that later edits keep
// findable (an index shifts when earlier messages are deleted).
func (s *Service) LastMessageID(ctx context.Context, chatID string) (string, error) {
	c, err := loadChat(ctx, s.db.Reader(), chatID)
	if err != nil {
		return "", err
	}
	var id string
	err = s.db.Reader().QueryRowContext(ctx, `SELECT uuid FROM messages WHERE chat_id = ? ORDER BY idx DESC LIMIT 1`, c.id).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the last message of chat %s: %w", chatID, err)
	}
	return id, nil
}
