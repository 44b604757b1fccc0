package library

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"hearth/backend/store"
)

// record is one row of the import ledger (library_imports).
type record struct {
	Library  string
	Kind     string
	Key      string // the item's path inside the user folder
	SHA      string
	HearthID string
	Extra    string // JSON Hearth has no field for, or ""
}

// previous is what the ledger knows of an item about to be imported:
// found in this folder (same path), or found with the same bytes at the
// same path of another folder (the library moved or was copied).
type previous struct {
	found    bool
	changed  bool   // found in this folder with other bytes
	library  string // the folder it came from
	hearthID string
	extra    string
}

// lookup reads what the ledger knows of (kind, key) with content sha.
func (s *Service) lookup(ctx context.Context, library, kind, key, sha string) (previous, error) {
	var p previous
	var extra sql.NullString
	var oldSHA string
	err := s.d.DB.Reader().QueryRowContext(ctx, `SELECT content_sha256, hearth_id, extra FROM library_imports
		WHERE library = ? AND kind = ? AND source_key = ?`, library, kind, key).Scan(&oldSHA, &p.hearthID, &extra)
	switch {
	case err == nil:
		p.found, p.changed, p.library, p.extra = true, oldSHA != sha, library, extra.String
		return p, nil
	case !errors.Is(err, sql.ErrNoRows):
		return p, fmt.Errorf("read the import ledger: %w", err)
	}
	err = s.d.DB.Reader().QueryRowContext(ctx, `SELECT library, hearth_id, extra FROM library_imports
		WHERE kind = ? AND source_key = ? AND content_sha256 = ? ORDER BY imported_ms DESC LIMIT 1`, kind, key, sha).
		Scan(&p.library, &p.hearthID, &extra)
	switch {
	case err == nil:
		p.found, p.extra = true, extra.String
	case !errors.Is(err, sql.ErrNoRows):
		return p, fmt.Errorf("read the import ledger: %w", err)
	}
	return p, nil
}

// reason is the skipped entry's reason for an item the ledger knows.
func (p previous) reason(library string) string {
	switch {
	case p.changed:
		return "changed since the last import; Hearth's copy kept"
	case p.library != library:
		return "already imported (from " + p.library + ")"
	}
	return "already imported"
}

// remember writes r into the ledger.
func (s *Service) remember(ctx context.Context, r record) error {
	return s.d.DB.InTx(ctx, func(tx *store.Tx) error { return s.rememberIn(ctx, tx, r) })
}

// rememberIn writes r into the ledger inside tx.
func (s *Service) rememberIn(ctx context.Context, tx *store.Tx, r record) error {
	extra := sql.NullString{String: r.Extra, Valid: r.Extra != ""}
	_, err := tx.ExecContext(ctx, `INSERT INTO library_imports (library, kind, source_key, content_sha256, hearth_id, extra, imported_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (library, kind, source_key) DO UPDATE SET content_sha256 = excluded.content_sha256,
			hearth_id = excluded.hearth_id, extra = excluded.extra, imported_ms = excluded.imported_ms`,
		r.Library, r.Kind, r.Key, r.SHA, r.HearthID, extra, s.d.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("write the import ledger: %w", err)
	}
	return nil
}

// origin is where a Hearth item came from, for an export that names it
// as SillyTavern did.
type origin struct {
	key   string
	sha   string
	extra string
}

// origins maps the Hearth ids of kind to their latest import.
func (s *Service) origins(ctx context.Context, kind string) (map[string]origin, error) {
	rows, err := s.d.DB.Reader().QueryContext(ctx, `SELECT hearth_id, source_key, content_sha256, extra FROM library_imports
		WHERE kind = ? ORDER BY imported_ms, rowid`, kind)
	if err != nil {
		return nil, fmt.Errorf("read the import ledger: %w", err)
	}
	defer rows.Close()
	out := map[string]origin{}
	for rows.Next() {
		var id string
		var o origin
		var extra sql.NullString
		if err := rows.Scan(&id, &o.key, &o.sha, &extra); err != nil {
			return nil, fmt.Errorf("read the import ledger: %w", err)
		}
		o.extra = extra.String
		out[id] = o // later imports win
	}
	return out, rows.Err()
}

// keptFile is a file of library_files.
type keptFile struct {
	Path string
	Kind string
	Body []byte
}

// keptSHA returns the hash of the kept file at path, "" when none is.
func (s *Service) keptSHA(ctx context.Context, path string) (string, error) {
	var sha string
	err := s.d.DB.Reader().QueryRowContext(ctx, `SELECT content_sha256 FROM library_files WHERE path = ?`, path).Scan(&sha)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the kept files: %w", err)
	}
	return sha, nil
}

// keepIn stores f in library_files inside tx, replacing a file at its path.
func (s *Service) keepIn(ctx context.Context, tx *store.Tx, f keptFile) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO library_files (path, kind, body, content_sha256, imported_ms) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (path) DO UPDATE SET kind = excluded.kind, body = excluded.body, content_sha256 = excluded.content_sha256, imported_ms = excluded.imported_ms`,
		f.Path, f.Kind, f.Body, hashOf(f.Body), s.d.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("keep %s: %w", f.Path, err)
	}
	return nil
}

// kept reads the kept files of the given kinds, by path.
func (s *Service) kept(ctx context.Context, kinds ...string) ([]keptFile, error) {
	var out []keptFile
	for _, kind := range kinds {
		rows, err := s.d.DB.Reader().QueryContext(ctx, `SELECT path, kind, body FROM library_files WHERE kind = ? ORDER BY path`, kind)
		if err != nil {
			return nil, fmt.Errorf("read the kept files: %w", err)
		}
		for rows.Next() {
			var f keptFile
			if err := rows.Scan(&f.Path, &f.Kind, &f.Body); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read the kept files: %w", err)
			}
			out = append(out, f)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read the kept files: %w", err)
		}
	}
	return out, nil
}

// keptBody reads the kept file at path, nil when none is.
func (s *Service) keptBody(ctx context.Context, path string) ([]byte, error) {
	var body []byte
	err := s.d.DB.Reader().QueryRowContext(ctx, `SELECT body FROM library_files WHERE path = ?`, path).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return body, nil
}
