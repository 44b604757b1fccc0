package store

import (
	"context"
	"database/sql"
)

// The writer keeps its prepared statements between transactions. The
// driver parses and plans every Exec and Query anew, and a small write (an
// edit, an undo: a few dozen short statements) spends about a fifth of its
// time doing so. A statement is cached once a transaction has run it twice
// in all (so queries built with a varying number of placeholders do not
// crowd out the fixed ones); it is prepared after that transaction, while
// the writer's one connection is idle, and later transactions run it
// through Tx.StmtContext, which reuses the connection's prepared copy.
const (
	// maxCachedStmts bounds the cache; once full, new queries run uncached.
	maxCachedStmts = 512
	// maxSeenQueries bounds the count of queries seen once; the count
	// starts over when it is reached.
	maxSeenQueries = 4096
)

type stmtCache struct {
	stmts   map[string]*sql.Stmt
	seen    map[string]bool
	pending []string
}

func newStmtCache() *stmtCache {
	return &stmtCache{stmts: map[string]*sql.Stmt{}, seen: map[string]bool{}}
}

// ran notes a query that ran uncached and succeeded.
func (c *stmtCache) ran(query string) {
	if len(c.stmts)+len(c.pending) >= maxCachedStmts {
		return
	}
	if !c.seen[query] {
		if len(c.seen) >= maxSeenQueries {
			clear(c.seen)
		}
		c.seen[query] = true
		return
	}
	delete(c.seen, query)
	c.pending = append(c.pending, query)
}

// prepare prepares the queries noted for caching. It runs between
// transactions, with the store's write lock held; a query that does not
// prepare on its own (one naming a table its transaction created and
// dropped) is left uncached.
func (c *stmtCache) prepare(db *sql.DB) {
	for _, q := range c.pending {
		if _, ok := c.stmts[q]; ok {
			continue
		}
		st, err := db.PrepareContext(context.Background(), q)
		if err != nil {
			continue
		}
		c.stmts[q] = st
	}
	c.pending = c.pending[:0]
}

func (c *stmtCache) close() {
	for q, st := range c.stmts {
		_ = st.Close()
		delete(c.stmts, q)
	}
}

// ExecContext runs query in the transaction, from the statement cache
// when it is there.
func (tx *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st, ok := tx.cache.stmts[query]; ok {
		return tx.Tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	res, err := tx.Tx.ExecContext(ctx, query, args...)
	if err == nil {
		tx.cache.ran(query)
	}
	return res, err
}

// QueryContext runs query in the transaction, from the statement cache
// when it is there.
func (tx *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, ok := tx.cache.stmts[query]; ok {
		return tx.Tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	rows, err := tx.Tx.QueryContext(ctx, query, args...)
	if err == nil {
		tx.cache.ran(query)
	}
	return rows, err
}

// QueryRowContext runs query in the transaction, from the statement cache
// when it is there.
func (tx *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := tx.cache.stmts[query]; ok {
		return tx.Tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	tx.cache.ran(query) // a failed query fails to prepare later and stays uncached
	return tx.Tx.QueryRowContext(ctx, query, args...)
}
