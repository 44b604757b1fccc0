package store

import (
	"context"
	"fmt"
	"testing"
)

// inTx runs fn in a write transaction and fails the test on its error.
func inTx(t *testing.T, s *Store, fn func(tx *Tx) error) {
	t.Helper()
	if err := s.InTx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func TestStmtCacheKeepsQueriesRunTwice(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	const ins = `INSERT INTO settings (key, value) VALUES (?, ?)`
	const get = `SELECT value FROM settings WHERE key = ?`
	for i := range 4 {
		inTx(t, s, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, ins, fmt.Sprintf("k%d", i), fmt.Sprintf(`"v%d"`, i)); err != nil {
				return err
			}
			var v string
			if err := tx.QueryRowContext(ctx, get, fmt.Sprintf("k%d", i)).Scan(&v); err != nil {
				return err
			}
			if v != fmt.Sprintf(`"v%d"`, i) {
				return fmt.Errorf("read %s back in round %d", v, i)
			}
			rows, err := tx.QueryContext(ctx, `SELECT key FROM settings ORDER BY key`)
			if err != nil {
				return err
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				n++
			}
			if n != i+1 {
				return fmt.Errorf("%d rows in round %d", n, i)
			}
			return rows.Err()
		})
		cached := 0
		for _, q := range []string{ins, get, `SELECT key FROM settings ORDER BY key`} {
			if _, ok := s.cache.stmts[q]; ok {
				cached++
			}
		}
		// Seen once after round 0, prepared after round 1.
		if want := map[bool]int{true: 0, false: 3}[i == 0]; cached != want {
			t.Fatalf("after round %d: %d of 3 queries cached, want %d", i, cached, want)
		}
	}
}

func TestStmtCacheSkipsWhatDoesNotPrepareAlone(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	const use = `INSERT INTO scratch (n) VALUES (?)`
	for range 3 {
		inTx(t, s, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE scratch (n INTEGER)`); err != nil {
				return err
			}
			for n := range 2 {
				if _, err := tx.ExecContext(ctx, use, n); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `DROP TABLE scratch`)
			return err
		})
	}
	if _, ok := s.cache.stmts[use]; ok {
		t.Fatal("a statement on a table dropped by its transaction was cached")
	}
	for range 2 {
		err := s.InTx(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO no_such_table VALUES (1)`)
			return err
		})
		if err == nil {
			t.Fatal("an insert into a missing table succeeded")
		}
	}
	if _, ok := s.cache.stmts[`INSERT INTO no_such_table VALUES (1)`]; ok {
		t.Fatal("a failing statement was cached")
	}
}

func TestStmtCacheFollowsSchemaChanges(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	const sel = `SELECT * FROM cached_t`
	cols := func() int {
		var n int
		inTx(t, s, func(tx *Tx) error {
			rows, err := tx.QueryContext(ctx, sel)
			if err != nil {
				return err
			}
			defer rows.Close()
			c, err := rows.Columns()
			n = len(c)
			return err
		})
		return n
	}
	inTx(t, s, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE cached_t (a INTEGER)`)
		return err
	})
	cols()
	cols()
	if _, ok := s.cache.stmts[sel]; !ok {
		t.Fatal("the select was not cached")
	}
	inTx(t, s, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `ALTER TABLE cached_t ADD COLUMN b TEXT`)
		return err
	})
	if n := cols(); n != 2 {
		t.Fatalf("the cached select sees %d column(s) after ALTER TABLE, want 2", n)
	}
}

func TestStmtCacheIsBounded(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	ctx := context.Background()
	for round := range 2 {
		inTx(t, s, func(tx *Tx) error {
			for i := range maxCachedStmts + 50 {
				var n int
				if err := tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d`, i)).Scan(&n); err != nil {
					return err
				}
				if n != i {
					return fmt.Errorf("SELECT %d gave %d in round %d", i, n, round)
				}
			}
			return nil
		})
	}
	if n := len(s.cache.stmts); n != maxCachedStmts {
		t.Fatalf("%d statements cached, want the bound %d", n, maxCachedStmts)
	}
}
