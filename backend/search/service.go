// Package search finds messages by their text (HOST-ABI §3.6) and keeps
// what it reads current: the chunks derived from message rows, the
// trigram index over them, and the background Indexer that works through
// what chat writes queue.
//
// It reads the chat tables directly (the schema is the contract:
// migrations 0003, 0019, 0026 and 0027) and imports no domain package.
// backend/chats queues the work in those tables and hands each write's
// transaction to its chats.Indexer, which the Indexer here implements;
// backend/app wires the two and owns the Indexer's goroutine.
package search

import (
	"context"
	"database/sql"

	"hearth/backend/store"
)

// Service answers searches. It holds no state of its own: every search
// first brings the chunks and index of the chats it reads up to date, in
// write transactions of its own, then reads one snapshot.
type Service struct {
	db *store.Store
}

// New returns the search service over db.
func New(db *store.Store) *Service {
	return &Service{db: db}
}

// queryer is a read: the readers' pool or a snapshot transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}
