// Package state keeps the structured state that follows a chat or a
// character (HOST-ABI §4): namespaced chat state with a revision per
// namespace, floor states, and character state.
//
// A floor state owns one chat-state namespace. Its commits are attached to
// the message row (and swipe) they were made on, so deleting or moving
// messages needs no renumbering; the materialized value is the replay of
// the commits on active swipes, recomputed by Settle inside the
// transaction of every structural change of the chat, before its events.
// Chats call Settle and Fork; nothing here imports the chats package.
package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/store"
)

// MaxValueBytes bounds one stored namespace value.
const MaxValueBytes = 16 << 20

// Service reads and writes chat, floor and character state.
type Service struct {
	db     *store.Store
	bus    *events.Bus
	leases *leases
}

// New returns a state service.
func New(db *store.Store, bus *events.Bus) *Service {
	return &Service{db: db, bus: bus, leases: newLeases(leaseTTL)}
}

// Entry is a namespace's value with its revision.
type Entry struct {
	Value    json.RawMessage `json:"value"`
	Revision int64           `json:"revision"`
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// chatRow resolves a public chat id to its row id.
func chatRow(ctx context.Context, q queryer, chatID string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM chats WHERE uuid = ?`, chatID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, apperr.New(apperr.CodeChatNotFound, "no chat with id %q", chatID).WithDetails(map[string]any{"chatId": chatID})
	}
	if err != nil {
		return 0, fmt.Errorf("find chat %s: %w", chatID, err)
	}
	return id, nil
}

// changed is the CHAT_STATE_CHANGED event for a namespace at revision.
func changed(chatID, ns string, revision int64, deleted bool) events.Event {
	return events.Event{Type: events.ChatStateChanged, Payload: &events.ChatStateChangedPayload{
		ChatID: chatID, Namespace: ns, Revision: revision, Deleted: deleted}}
}

func (s *Service) publishAfter(tx *store.Tx, evs []events.Event) {
	if len(evs) == 0 {
		return
	}
	tx.AfterCommit(func() {
		for _, e := range evs {
			s.bus.Publish(e)
		}
	})
}

// leaseTTL is how long an updateChatState round (read, run the updater,
// write) may hold its namespace before others go ahead anyway.
const leaseTTL = 2 * time.Second

// read runs fn in one read-only snapshot.
func (s *Service) read(ctx context.Context, fn func(q queryer) error) error {
	tx, err := s.db.Reader().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}
