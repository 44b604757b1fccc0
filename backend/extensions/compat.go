package extensions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/extensions/stcompat"
	"hearth/backend/store"
)

// CodeNotPage: a compatibility report was asked of a sandboxed
// extension, which runs on Hearth's own API and uses nothing of
// SillyTavern's.
const CodeNotPage = "extension.not_page"

// scanPackage scans the page extension id's files at dir (its staged or
// installed folder) and returns the stcompat.Usage to store; "" for a
// sandboxed extension, which has no report.
func scanPackage(dir, id string, m *Manifest) (string, error) {
	if m.Hearth.Mode != ModePage {
		return "", nil
	}
	u, err := stcompat.Scan(os.DirFS(dir), stcompat.ScanOptions{ID: id, Entry: m.JS})
	if err != nil {
		return "", fmt.Errorf("compatibility scan of %s: %w", id, err)
	}
	b, err := json.Marshal(u)
	if err != nil {
		return "", fmt.Errorf("compatibility scan of %s: %w", id, err)
	}
	return string(b), nil
}

// nullable stores "" as NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// manifestFacts reads what bears on loading from a manifest, as
// SillyTavern reads it: generate_interceptor a global function's name,
// minimum_client_version a version (a number written bare is taken as
// its text).
func manifestFacts(m *Manifest) stcompat.ManifestFacts {
	var top map[string]json.RawMessage
	_ = json.Unmarshal(m.Raw, &top) // ReadManifest took it as an object
	f := stcompat.ManifestFacts{Dependencies: m.Dependencies}
	f.GenerateInterceptor, _ = looseString(top, "generate_interceptor")
	f.MinimumClientVersion, _ = looseString(top, "minimum_client_version")
	return f
}

// judge weighs a stored usage for the extension e, whose manifest is m,
// with installed saying which ids are installed now (a dependency is
// judged as things are, not as they were at the scan).
func judge(usage string, m *Manifest, installed func(string) bool) (*stcompat.Report, error) {
	var u stcompat.Usage
	if err := json.Unmarshal([]byte(usage), &u); err != nil {
		return nil, fmt.Errorf("stored compatibility scan: %w", err)
	}
	return stcompat.Judge(&u, manifestFacts(m), stcompat.Env{EventTypes: events.TypeNames, Installed: installed}), nil
}

// installedIn says whether an id is among list's, without case.
func installedIn(list []Entry) func(string) bool {
	ids := make(map[string]bool, len(list))
	for _, e := range list {
		ids[strings.ToLower(e.ID)] = true
	}
	return func(id string) bool { return ids[strings.ToLower(id)] }
}

// summarize sets each page extension's Compat from its stored scan.
func summarize(list []Entry) error {
	installed := installedIn(list)
	for i := range list {
		e := &list[i]
		if e.usage == "" {
			continue
		}
		r, err := judge(e.usage, e.manifest, installed)
		if err != nil {
			return fmt.Errorf("extension %s: %w", e.ID, err)
		}
		e.Compat = r.Summary()
	}
	return nil
}

// CompatReport returns a page extension's compatibility report
// (EXTENSIONS.md §5). One installed before reports existed, or scanned
// by older rules, is scanned now and the scan stored. A sandboxed
// extension has none: CodeNotPage.
func (s *Service) CompatReport(ctx context.Context, id string) (*stcompat.Report, error) {
	list, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	var e *Entry
	for i := range list {
		if strings.EqualFold(list[i].ID, id) {
			e = &list[i]
		}
	}
	if e == nil {
		return nil, notFound(id)
	}
	if e.Mode != ModePage {
		return nil, apperr.New(CodeNotPage, "%s is a sandboxed extension: it runs on Hearth's own API in its frame and uses nothing of SillyTavern's, so it has no compatibility report", e.ID).
			WithDetails(map[string]any{"id": e.ID, "mode": e.Mode})
	}
	usage := e.usage
	if usage == "" || stale(usage) {
		if usage, err = s.rescan(ctx, e); err != nil {
			return nil, err
		}
	}
	return judge(usage, e.manifest, installedIn(list))
}

// stale says whether a stored scan was made by older rules.
func stale(usage string) bool {
	var v struct {
		Version int `json:"version"`
	}
	return json.Unmarshal([]byte(usage), &v) != nil || v.Version != stcompat.ScanVersion
}

// rescan scans e's installed files and stores the scan; when the
// extension was updated meanwhile, the update's own scan is returned.
func (s *Service) rescan(ctx context.Context, e *Entry) (string, error) {
	usage, err := scanPackage(filepath.Join(s.dir, e.ID), e.ID, e.manifest)
	if err != nil {
		return "", err
	}
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		var updated int64
		var stored sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT updated_at, compat FROM extensions WHERE id = ?`, e.ID).Scan(&updated, &stored)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(e.ID)
		}
		if err != nil {
			return fmt.Errorf("store compatibility scan: %w", err)
		}
		if updated != e.UpdatedAt && stored.Valid {
			usage = stored.String // the update's own scan, of its files
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE extensions SET compat = ? WHERE id = ?`, usage, e.ID); err != nil {
			return fmt.Errorf("store compatibility scan: %w", err)
		}
		return nil
	})
	return usage, err
}
