// Package store owns Hearth's SQLite database: opening it with the right
// pragmas, running migrations, and handing out transactions.
//
// Writes go through one connection (SQLite allows one writer at a time, and a
// single connection turns lock contention into a queue instead of
// SQLITE_BUSY retries); reads go to a pool that sees the last commit through
// WAL. After-commit hooks let callers publish events only once data is durable.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is an open Hearth database.
type Store struct {
	path   string
	write  *sql.DB
	read   *sql.DB
	mu     sync.Mutex // serializes write transactions and their after-commit hooks
	closed bool
	cache  *stmtCache // the writer's prepared statements; used under mu
	ckpt   *checkpointer
}

// Options tune Open. The zero value is what the app uses.
type Options struct {
	// BackupDir receives a VACUUM INTO copy before any pending migration runs.
	// Empty means next to the database, in "backups".
	BackupDir string
	// UpTo stops migrating at this schema version (0: the newest). Only
	// upgrade tests use it, to build a database as an older Hearth left it.
	UpTo int
}

// Open opens (creating if needed) the database at path and migrates it.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	write, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("open db: %w", err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)

	read, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open db: %w", err)
	}
	n := max(4, runtime.NumCPU())
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)

	s := &Store{path: path, write: write, read: read, cache: newStmtCache()}
	if err := write.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	backupDir := opts.BackupDir
	if backupDir == "" {
		backupDir = filepath.Join(filepath.Dir(path), "backups")
	}
	if err := s.migrate(ctx, backupDir, opts.UpTo); err != nil {
		s.Close()
		return nil, err
	}
	if s.ckpt, err = newCheckpointer(path); err != nil {
		s.Close()
		return nil, fmt.Errorf("open db: %w", err)
	}
	return s, nil
}

// busyTimeout is how long a connection waits for a lock another holds
// before it fails with SQLITE_BUSY.
const busyTimeout = 10 * time.Second

// dsn builds the connection string. busy_timeout comes first so that the
// pragmas after it already wait instead of failing on a locked database.
func dsn(path string, writer bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "mmap_size(0)")
	if writer {
		q.Add("_pragma", "wal_autocheckpoint(0)") // the checkpointer's job
		// 32 MiB of page cache (SQLite's default is 2 MiB): a branch of a long
		// chat dirties more pages than 2 MiB hold, and SQLite then wrote
		// them to the WAL in the middle of the transaction; the one writer
		// also keeps the pages of the chats being written hot.
		q.Add("_pragma", "cache_size(-32768)")
		q.Add("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(ON)")
	}
	return "file:" + path + "?" + q.Encode()
}

// Path is the database file path.
func (s *Store) Path() string { return s.path }

// Reader is the pool for read-only queries.
func (s *Store) Reader() *sql.DB { return s.read }

// Close closes both pools. Safe to call twice.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.cache.close()
	var ckpt error
	if s.ckpt != nil {
		ckpt = s.ckpt.close()
	}
	return errors.Join(ckpt, s.read.Close(), s.write.Close())
}

// Tx is a write transaction with after-commit hooks.
type Tx struct {
	*sql.Tx
	after []func()
	cache *stmtCache
}

// AfterCommit schedules fn to run once the transaction has committed, in
// registration order, still inside the store's write lock, so hooks of
// successive transactions run in commit order. Hooks must not block.
func (tx *Tx) AfterCommit(fn func()) { tx.after = append(tx.after, fn) }

// InTx runs fn in one IMMEDIATE write transaction. fn's error rolls back and
// drops the hooks; a nil error commits and then runs the hooks.
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("store is closed")
	}
	sqlTx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{Tx: sqlTx, cache: s.cache}
	// A panic in fn (the router recovers it and fails just that call) must
	// not leave the transaction open: the writer would be held by it, and
	// every later write would wait for it forever.
	finished := false
	defer func() {
		if !finished {
			_ = sqlTx.Rollback()
			s.cache.prepare(s.write)
		}
	}()
	err = fn(tx)
	finished = true
	if err != nil {
		_ = sqlTx.Rollback()
		s.cache.prepare(s.write)
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		s.cache.prepare(s.write)
		return fmt.Errorf("commit: %w", err)
	}
	for _, hook := range tx.after {
		hook()
	}
	if s.ckpt != nil {
		s.ckpt.noteCommit(ctx, s.write)
	}
	s.cache.prepare(s.write)
	return nil
}

// Backup writes a consistent copy of the database to dst with VACUUM INTO.
// It runs on the writer connection (readers are query_only) and so waits for
// any write transaction in progress.
func (s *Store) Backup(ctx context.Context, dst string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return backupTo(ctx, s.write, dst)
}

func backupTo(ctx context.Context, db *sql.DB, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("create backup dir: %w", err)
	}
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("backup to %s: %w", dst, err)
	}
	return nil
}
