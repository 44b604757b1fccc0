package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(dir, "hearth.db"), Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestPragmas(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	for _, db := range []*sql.DB{s.write, s.read} {
		var mode string
		var fk, busy int
		if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if mode != "wal" || fk != 1 || busy < 1000 {
			t.Errorf("journal_mode=%s foreign_keys=%d busy_timeout=%d", mode, fk, busy)
		}
	}
	var cache int
	if err := s.write.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil || cache != -32768 {
		t.Errorf("writer cache_size = %d, %v; want -32768 (32 MiB)", cache, err)
	}
	if _, err := s.read.ExecContext(ctx, "CREATE TABLE nope (x)"); err == nil {
		t.Error("reader pool accepted a write")
	}
}

func TestInTxRollsBackAndDropsHooks(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	ran := false
	boom := errors.New("boom")
	err := s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('a', '1')`); err != nil {
			return err
		}
		tx.AfterCommit(func() { ran = true })
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	var n int
	s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM settings`).Scan(&n)
	if n != 0 || ran {
		t.Errorf("rows=%d hookRan=%v after rollback", n, ran)
	}
	var order []int
	for i := range 3 {
		if err := s.InTx(ctx, func(tx *Tx) error {
			tx.AfterCommit(func() { order = append(order, i) })
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(order) != 3 || order[0] != 0 || order[2] != 2 {
		t.Errorf("hooks ran as %v", order)
	}
}

// TestInTxRollsBackOnPanic: a transaction whose function panics is rolled
// back, and the store takes the next write (the writer is not left held by
// the open transaction).
func TestInTxRollsBackOnPanic(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not reach the caller")
			}
		}()
		_ = s.InTx(ctx, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('a', '1')`); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	done := make(chan error, 1)
	go func() {
		done <- s.InTx(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('b', '2')`)
			return err
		})
	}()
	ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx2.Done():
		t.Fatal("the write after a panicked transaction never ran")
	}
	var keys string
	s.read.QueryRowContext(ctx, `SELECT group_concat(key) FROM settings`).Scan(&keys)
	if keys != "b" {
		t.Errorf("settings keys %q, want only b (the panicked insert rolled back)", keys)
	}
}

// schema dumps sqlite_master without the migration bookkeeping rows.
func schema(t *testing.T, s *Store) string {
	t.Helper()
	rows, err := s.read.Query(`SELECT type, name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, sqlText string
		rows.Scan(&typ, &name, &sqlText)
		b.WriteString(typ + " " + name + " " + strings.Join(strings.Fields(sqlText), " ") + "\n")
	}
	return b.String()
}

// TestUpgradeMatchesFresh applies the migrations one at a time (as
// successive releases would) and checks the result equals a fresh database,
// and that a pre-migration backup was taken.
func TestUpgradeMatchesFresh(t *testing.T) {
	t.Parallel()
	all, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	fresh := open(t, t.TempDir())

	dir := t.TempDir()
	path := filepath.Join(dir, "hearth.db")
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	step := &Store{path: path, write: db, read: db, cache: newStmtCache()}
	if _, err := currentVersion(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	first := all[0]
	if err := step.InTx(context.Background(), func(tx *Tx) error {
		if _, err := tx.Exec(first.sql); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)`, first.version, first.name)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	upgraded := open(t, dir)
	if got, want := schema(t, upgraded), schema(t, fresh); got != want {
		t.Errorf("upgraded schema differs from fresh:\n%s\nvs\n%s", got, want)
	}
	v, _ := upgraded.SchemaVersion(context.Background())
	if v != len(all) {
		t.Errorf("version = %d, want %d", v, len(all))
	}
	backups, _ := os.ReadDir(filepath.Join(dir, "backups"))
	if len(all) > 1 && len(backups) == 0 {
		t.Error("no backup was taken before migrating")
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	if _, err := s.write.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(context.Background(), filepath.Join(dir, "hearth.db"), Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("err = %v, want refusal", err)
	}
}

func TestBackup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	if _, err := s.write.Exec(`INSERT INTO settings (key, value) VALUES ('k', '"v"')`); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "b", "copy.db")
	if err := s.Backup(context.Background(), dst); err != nil {
		t.Fatal(err)
	}
	c, err := sql.Open("sqlite", "file:"+dst)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var v string
	if err := c.QueryRow(`SELECT value FROM settings WHERE key = 'k'`).Scan(&v); err != nil || v != `"v"` {
		t.Errorf("backup value = %q, %v", v, err)
	}
}
