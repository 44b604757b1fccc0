package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckpointInBackground writes more than the checkpoint threshold in
// one transaction and checks that the commit left the pages in the WAL
// (the writer does not checkpoint) and that the checkpointer then copied
// them into the database file on its own.
func TestCheckpointInBackground(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	ctx := context.Background()
	var auto int
	if err := s.write.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Fatalf("writer wal_autocheckpoint = %d, want 0", auto)
	}

	pending := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.ckpt.pending
	}

	// A small write stays below the threshold: counted, no wake-up.
	if err := s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('small', 'x')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if small := pending(); small <= 0 || small >= checkpointPages {
		t.Fatalf("pending after a one-row write = %d", small)
	}

	// 8 MB in one transaction: about 2,000 pages.
	value := strings.Repeat("x", 8<<10)
	if err := s.InTx(ctx, func(tx *Tx) error {
		for i := range 1000 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)`, i, value); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if after := pending(); after != 0 {
		t.Fatalf("pending after 8 MB = %d: the checkpointer was not woken", after)
	}
	path := filepath.Join(dir, "hearth.db")
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() >= 8<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("database file still %d bytes: the WAL was never checkpointed", st.Size())
		}
		time.Sleep(10 * time.Millisecond)
	}
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil || n != 1001 {
		t.Fatalf("count = %d, %v; want 1001", n, err)
	}
}

// TestLongWALStartsOver: a checkpoint that finds a WAL longer than its
// reset length, all of it copied, truncates it — SQLite would keep it
// whole under writes that keep coming — and one that finds a reader still
// on the WAL leaves it for the next, without failing or holding up writes.
func TestLongWALStartsOver(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	ctx := context.Background()
	wal := filepath.Join(dir, "hearth.db-wal")
	walSize := func() int64 {
		st, err := os.Stat(wal)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	value := strings.Repeat("x", 8<<10)
	write := func(from int) {
		t.Helper()
		for i := from; i < from+100; i++ {
			if err := s.InTx(ctx, func(tx *Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)`, i, value)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Each write() stays well below checkpointPages: the background
	// checkpointer is not woken, and the checkpoints here are the test's.
	s.ckpt.resetFrames = 1 << 30
	write(0)
	if err := s.ckpt.checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if n := walSize(); n < 800<<10 {
		t.Fatalf("WAL %d bytes after a checkpoint below the reset length: want it kept (SQLite's own way)", n)
	}

	s.ckpt.resetFrames = 100
	reader, err := s.read.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := s.ckpt.checkpoint(ctx); err != nil {
		t.Fatalf("a reset with a reader on the WAL: %v, want it left for later", err)
	}
	write(100)
	_ = reader.Rollback()
	if err := s.ckpt.checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if n := walSize(); n != 0 {
		t.Fatalf("WAL %d bytes after a checkpoint past the reset length: want it truncated", n)
	}
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil || n != 200 {
		t.Fatalf("count = %d, %v; want 200", n, err)
	}
}
