package search

import (
	"context"
	"fmt"
	"sync"
	"time"

	"hearth/backend/store"
)

// indexGather is how long the background indexer lets the writes of a
// burst (a script's loop, an agent's edits) gather before it indexes them
// together: one FTS5 transaction writes one segment for all of them, and
// FTS5 merges fewer, smaller ones; the writes no longer each wait behind
// the index transaction of the one before. A search catches up first, so
// it never reads stale text.
const indexGather = 30 * time.Millisecond

// Indexer is the background indexer of one database: after a chat write
// commits, its goroutine works through the chunk backlogs, then the whole
// index queue, then the index's merges (mergePaced), in small paced
// transactions, so that a search seldom has work to catch up on. One
// goroutine, so one round at a time: the queues are the database's, and
// two rounds would only contend for its write lock.
//
// The app owns it: NewIndexer, Start once the services are wired, Close
// before the database closes. Nothing needs it to be running: the queues
// live in the database, and a search does what is left for the chats it
// reads.
type Indexer struct {
	db *store.Store
	// wake holds a token while a round is due: Kick puts one in, the
	// goroutine takes it.
	wake chan struct{}
	// ctx ends with Close, cancelling a round under way.
	ctx    context.Context
	cancel context.CancelFunc
	// done closes when the goroutine has returned.
	done chan struct{}

	mu      sync.Mutex
	started bool
	closed  bool
	// due is set by Kick until the goroutine takes the token; busy while
	// a round runs. idle is closed while neither is set (see Wait).
	due, busy bool
	idle      chan struct{}
}

// NewIndexer returns a stopped indexer of db.
func NewIndexer(db *store.Store) *Indexer {
	ctx, cancel := context.WithCancel(context.Background())
	idle := make(chan struct{})
	close(idle)
	return &Indexer{db: db, wake: make(chan struct{}, 1), ctx: ctx, cancel: cancel, done: make(chan struct{}), idle: idle}
}

// Start starts the goroutine; a round kicked before it runs then. Calling
// it again, or after Close, does nothing.
func (x *Indexer) Start() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.started || x.closed {
		return
	}
	x.started = true
	go x.run()
}

// Close stops the indexer and waits for its goroutine to return. A round
// under way is cancelled between (or inside) its transactions: what it did
// not finish stays queued in the database, for the next search or the next
// start. Later kicks do nothing. Safe to call twice, and without Start.
func (x *Indexer) Close() error {
	x.mu.Lock()
	x.closed = true
	started := x.started
	x.mu.Unlock()
	x.cancel()
	if started {
		<-x.done
	}
	x.mu.Lock()
	x.due, x.busy = false, false
	x.markIdle()
	x.mu.Unlock()
	return nil
}

// Kick makes a round due: it runs once the round under way (if any) ends,
// so work queued while one runs is never left behind. Kicks that arrive
// before the round starts share it.
func (x *Indexer) Kick() {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return
	}
	if !x.due && !x.busy {
		x.idle = make(chan struct{})
	}
	x.due = true
	x.mu.Unlock()
	select {
	case x.wake <- struct{}{}:
	default: // a token is already waiting
	}
}

// AfterCommit kicks the indexer once tx commits, if tx left chunks to
// rebuild or index work queued. It implements chats.Indexer: chats calls
// it inside each write that does not skip the rebuild, and inside the
// transaction that copies a chat.
func (x *Indexer) AfterCommit(ctx context.Context, tx *store.Tx) error {
	x.mu.Lock()
	closed := x.closed
	x.mu.Unlock()
	if closed {
		return nil
	}
	var queued bool
	if err := tx.QueryRowContext(ctx, indexWorkQueued).Scan(&queued); err != nil {
		return fmt.Errorf("check index queue: %w", err)
	}
	if queued {
		tx.AfterCommit(x.Kick)
	}
	return nil
}

// Wait returns once no round is due or running (or the indexer is
// closed), or with ctx's error. What the writes before the last kick
// queued is then rebuilt, indexed and merged, unless the round failed. A
// benchmark waits so that the background work does not compete with what
// it times; a test, to see what the background did.
func (x *Indexer) Wait(ctx context.Context) error {
	x.mu.Lock()
	idle := x.idle
	x.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run takes one round at a time until Close.
func (x *Indexer) run() {
	defer close(x.done)
	for {
		select {
		case <-x.ctx.Done():
			return
		case <-x.wake:
		}
		x.mu.Lock()
		x.due, x.busy = false, true
		x.mu.Unlock()
		// Errors end the round quietly: the queue stays in the database,
		// and the next search does the work (and reports them).
		_ = x.round(x.ctx)
		x.mu.Lock()
		x.busy = false
		if !x.due {
			x.markIdle()
		}
		x.mu.Unlock()
	}
}

// markIdle closes idle unless it is closed already. x.mu is held.
func (x *Indexer) markIdle() {
	select {
	case <-x.idle:
	default:
		close(x.idle)
	}
}

// round lets a burst of writes gather, then rebuilds the chunks queued one
// by one, works through the backlogs, indexes the whole queue and merges
// the index, each paced to leave the write lock free most of the time.
func (x *Indexer) round(ctx context.Context) error {
	if err := sleep(ctx, indexGather); err != nil {
		return err
	}
	if err := pendingPaced(ctx, x.db, backgroundBacklogBatch, backgroundRest); err != nil {
		return err
	}
	if err := backlogPaced(ctx, x.db, backgroundBacklogBatch, backgroundRest); err != nil {
		return err
	}
	if err := indexPaced(ctx, x.db, 0, backgroundIndexBatch, backgroundRest); err != nil {
		return err
	}
	return mergePaced(ctx, x.db, indexMergePages, backgroundRest)
}
