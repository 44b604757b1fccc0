package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered, append-only schema step.
type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %q: name must start with a number and '_'", name)
		}
		body, err := migrationFiles.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %q: expected version %d", m.name, i+1)
		}
	}
	return out, nil
}

// SchemaVersion reports the highest applied migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	return currentVersion(ctx, s.read)
}

func currentVersion(ctx context.Context, db *sql.DB) (int, error) {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		// The reader pool is query_only; the table exists once the writer ran.
		if !strings.Contains(err.Error(), "readonly") && !strings.Contains(err.Error(), "query_only") {
			return 0, fmt.Errorf("schema_migrations: %w", err)
		}
	}
	var v sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return int(v.Int64), nil
}

// migrate applies pending migrations, each in its own transaction together
// with its version row. A database that already holds data is copied to
// backupDir first, so a failed upgrade never costs the user their chats.
// upTo > 0 leaves the migrations after that version pending.
func (s *Store) migrate(ctx context.Context, backupDir string, upTo int) error {
	all, err := loadMigrations()
	if err != nil {
		return err
	}
	if upTo > 0 && upTo < len(all) {
		all = all[:upTo]
	}
	have, err := currentVersion(ctx, s.write)
	if err != nil {
		return err
	}
	if have > len(all) {
		return fmt.Errorf("database schema v%d is newer than this Hearth (v%d): refusing to open it", have, len(all))
	}
	if have == len(all) {
		return nil
	}
	if have > 0 {
		name := fmt.Sprintf("hearth-v%d-%s.db", have, time.Now().UTC().Format("20060102T150405Z"))
		if err := backupTo(ctx, s.write, filepath.Join(backupDir, name)); err != nil {
			return fmt.Errorf("backup before migrating: %w", err)
		}
	}
	for _, m := range all[have:] {
		err := s.InTx(ctx, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, time.Now().UnixMilli())
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}
