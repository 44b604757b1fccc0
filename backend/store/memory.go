package store

import (
	"context"
	"database/sql"
	"time"
)

// connGrab bounds how long ReleaseMemory waits for a connection: one in
// use is busy working, and its cache is wanted.
const connGrab = 50 * time.Millisecond

// ReleaseMemory hands back the page cache of every connection not in use
// (PRAGMA shrink_memory): up to 32 MiB on the writer and 2 MiB per reader,
// filled by the last large write or read and otherwise held for the life
// of the process. The next statements read their pages again from the
// operating system's file cache, which costs little next to what an idle
// desktop app saves by not holding them.
func (s *Store) ReleaseMemory(ctx context.Context) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return
	}
	shrinkIdle(ctx, s.write, 1)
	shrinkIdle(ctx, s.read, s.read.Stats().MaxOpenConnections)
}

// shrinkIdle shrinks the caches of up to n connections of pool, taking
// each one that comes free within connGrab and holding it until all are
// done, so no connection is taken twice.
func shrinkIdle(ctx context.Context, pool *sql.DB, n int) {
	var held []*sql.Conn
	defer func() {
		for _, c := range held {
			_ = c.Close()
		}
	}()
	for range n {
		grab, cancel := context.WithTimeout(ctx, connGrab)
		c, err := pool.Conn(grab)
		if err == nil {
			_, err = c.ExecContext(grab, "PRAGMA shrink_memory")
			held = append(held, c)
		}
		cancel()
		if err != nil {
			return
		}
	}
}
