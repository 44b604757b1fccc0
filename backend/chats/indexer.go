package chats

import (
	"context"

	"hearth/backend/store"
)

// Indexer keeps search data current after chat writes: backend/search's
// Indexer, which chats must not import (backend/app wires it in). Chats
// queues the work itself, in the database: insertMessage and the import
// queue new messages in chunks_pending, triggers queue every change to a
// message's text, role or hidden flag, and a copied chat leaves one
// chunks_backlog row (see backend/search/chunks.go). The Indexer only
// hears that a write may have queued some.
type Indexer interface {
	// AfterCommit runs inside a write's transaction, after the write's
	// rows are written: it schedules the queued work for once tx commits
	// (tx.AfterCommit). An error aborts the write.
	AfterCommit(ctx context.Context, tx *store.Tx) error
}

// rebuildChunks is the chunk part of settling a write: unless the write
// skips the rebuild, the Indexer hears of it, to rebuild the chunks queued
// (the write's own rows among them) and index them once it commits.
func (s *Service) rebuildChunks(ctx context.Context, m *mutation) error {
	if m.after.skipChunks {
		return nil
	}
	return s.indexAfterCommit(ctx, m.tx)
}

// indexAfterCommit tells the Indexer, if there is one, of tx's queued
// work. Without one nothing is indexed in the background, and each search
// catches up on what it reads.
func (s *Service) indexAfterCommit(ctx context.Context, tx *store.Tx) error {
	if s.hooks.Index == nil {
		return nil
	}
	return s.hooks.Index.AfterCommit(ctx, tx)
}
