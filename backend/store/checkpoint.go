package store

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"sync"
	"time"

	"modernc.org/sqlite"
)

// checkpointPages is how many pages a write may leave in the WAL before
// they are copied back into the database file: SQLite's own default.
const checkpointPages = 1000

// walResetFrames is the WAL length (about 64 MiB of 4 KiB pages) past
// which a checkpoint that copied all of it also starts it over (truncate).
//
// SQLite starts the WAL over from its first frame only when a write
// begins with the whole WAL copied back. Under writes that keep coming (a
// library import, the benchmarks' fixtures) the background checkpoint is
// always a little behind, so that moment never comes: the WAL grew to
// 685 MB while the state benchmark's fixture was written, and would have
// kept every frame until the app closed.
const walResetFrames = 16384

// walResetWait bounds how long a reset waits for readers to leave the
// WAL. It holds the write lock meanwhile, so writes wait too; a reset that
// cannot happen in time is tried again at the next checkpoint.
const walResetWait = 50 * time.Millisecond

// checkpointer copies the WAL back into the database file on its own
// connection, in the background. SQLite's automatic checkpoint runs inside
// the commit that crosses the threshold, so that write, whichever it was,
// waited for 4 MB of pages to be copied and the file synced: 40 ms of a
// 50 ms commit after a branch. The writer has wal_autocheckpoint off; each
// commit counts its pages (noteCommit), and past the threshold the
// checkpointer is woken. A PASSIVE checkpoint never blocks the writer or
// readers; what it cannot copy yet (a reader still needs it) waits for the
// next one. Durability is unchanged: a commit is in the WAL when it returns.
type checkpointer struct {
	db      *sql.DB
	pending int // pages written since the last wake-up; under Store.mu
	// resetFrames is walResetFrames (tests set a smaller one).
	resetFrames int
	wake        chan struct{}
	stop        context.CancelFunc
	done        sync.WaitGroup
}

func newCheckpointer(path string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	ctx, stop := context.WithCancel(context.Background())
	c := &checkpointer{db: db, wake: make(chan struct{}, 1), stop: stop, resetFrames: walResetFrames}
	c.done.Add(1)
	go c.run(ctx)
	return c, nil
}

func (c *checkpointer) run(ctx context.Context) {
	defer c.done.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		if err := c.checkpoint(ctx); err != nil && ctx.Err() == nil {
			log.Printf("store: checkpoint: %v", err)
		}
	}
}

// checkpoint copies the WAL into the database file without waiting on
// anyone, and starts a long WAL over once all of it is copied.
func (c *checkpointer) checkpoint(ctx context.Context) error {
	var busy, frames, done int
	if err := c.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
		return err
	}
	if frames < c.resetFrames || done < frames {
		return nil
	}
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, walResetWait.Milliseconds())); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout.Milliseconds()))
	// Busy (a reader still on the WAL) is no failure: the next one resets.
	return conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done)
}

// noteCommit adds the pages the writer wrote since it was last asked and
// wakes the checkpointer once they pass the threshold. Called under
// Store.mu, right after a commit, with the writer's connection idle.
func (c *checkpointer) noteCommit(ctx context.Context, write *sql.DB) {
	conn, err := write.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.Raw(func(dc any) error {
		if st, ok := dc.(sqlite.DBStatus); ok {
			if n, _, err := st.Status(sqlite.DBStatusCacheWrite, true); err == nil {
				c.pending += n
			}
		}
		return nil
	})
	if c.pending < checkpointPages {
		return
	}
	c.pending = 0
	select {
	case c.wake <- struct{}{}:
	default: // one is already due
	}
}

// close stops the checkpointer and closes its connection; the writer's
// close, after it, checkpoints whatever is left.
func (c *checkpointer) close() error {
	c.stop()
	c.done.Wait()
	return c.db.Close()
}

// Checkpoint copies the whole WAL into the database file and truncates it,
// waiting for readers (busy_timeout) and for a background checkpoint in
// progress (they share one connection). For measuring the file's size.
func (s *Store) Checkpoint(ctx context.Context) error {
	var busy, frames, done int
	if err := s.ckpt.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("checkpoint: database busy (%d of %d frames copied)", done, frames)
	}
	return nil
}
