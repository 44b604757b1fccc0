package extensions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/extensions/stcompat"
	"hearth/backend/store"
)

// Statuses of an installed extension (EXTENSIONS.md §3).
const (
	StatusActive   = "active"
	StatusDisabled = "disabled"
	StatusFailed   = "failed"
	StatusBlocked  = "blocked"
)

// Options configure a Service.
type Options struct {
	// Dir is where packages are installed: <data>/extensions.
	Dir string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Fetcher downloads URL installs (NewFetcher's defaults when nil).
	Fetcher *Fetcher
	// ReadPath checks that a { path } install may read the folder and
	// returns the path to read (nil: any, as given). `hearth serve`
	// confines it as it does library imports.
	ReadPath func(path string) (string, error)
	// SafeMode is the --safe-mode flag: the run starts in safe mode,
	// whatever is saved for later starts.
	SafeMode bool
}

// Service installs extensions and keeps their registry and storage.
type Service struct {
	db    *store.Store
	bus   *events.Bus
	dir   string
	now   func() time.Time
	fetch *Fetcher
	allow func(string) (string, error)
	flag  bool

	safeMu sync.Mutex
	safe   *SafeMode // nil until first read
}

// New returns the service over db, installing packages under opts.Dir.
// What a crash left in the staging folder is removed: only one process
// has a data dir open, so no install is under way.
func New(db *store.Store, bus *events.Bus, opts Options) *Service {
	_ = os.RemoveAll(filepath.Join(opts.Dir, ".staging"))
	s := &Service{db: db, bus: bus, dir: opts.Dir, now: opts.Now, fetch: opts.Fetcher, allow: opts.ReadPath, flag: opts.SafeMode}
	if s.now == nil {
		s.now = time.Now
	}
	if s.fetch == nil {
		s.fetch = NewFetcher(nil)
	}
	return s
}

// Dir returns the folder packages are installed in.
func (s *Service) Dir() string { return s.dir }

// SourceInfo says where an extension was installed from.
type SourceInfo struct {
	Kind  string `json:"kind" ts:"'path' | 'zip' | 'url'"`
	Value string `json:"value"`
}

// Entry is one installed extension as api.extensions.list() shows it.
type Entry struct {
	ID           string   `json:"id"`
	DisplayName  string   `json:"displayName"`
	Version      string   `json:"version"`
	Author       string   `json:"author"`
	Mode         string   `json:"mode"`
	Enabled      bool     `json:"enabled"`
	Permissions  []string `json:"permissions"`
	Granted      []string `json:"granted"`
	Status       string   `json:"status"`
	Error        string   `json:"error,omitempty"`
	LoadingOrder int      `json:"loadingOrder"`
	Dependencies []string `json:"dependencies"`
	// MinimumClientVersion is the manifest's minimum_client_version; an
	// extension needing a later SillyTavern than stcompat's is blocked.
	MinimumClientVersion string `json:"minimumClientVersion,omitempty"`
	JS                   string `json:"js,omitempty"`
	CSS                  string `json:"css,omitempty"`
	Entry                string `json:"entry,omitempty"`
	// I18n is the manifest's i18n, locale code → translation file: the
	// page loader reads the window's locale's before the extension's js.
	I18n        map[string]string `json:"i18n,omitempty"`
	Network     []string          `json:"network"`
	Panel       json.RawMessage   `json:"panel,omitempty"`
	Source      SourceInfo        `json:"source"`
	InstalledAt int64             `json:"installedAt"`
	UpdatedAt   int64             `json:"updatedAt"`
	// Compat is a page extension's compatibility in short: its verdict
	// and how many things it uses Hearth lacks (CompatReport has the
	// whole report). Absent for a sandboxed extension, and for one not
	// scanned yet (installed before reports existed).
	Compat *stcompat.Summary `json:"compat,omitempty"`

	lastError string
	usage     string // the stored stcompat.Usage, "" when none
	manifest  *Manifest
}

// declared is what the manifest asks for: none in the page tier, which
// runs with full access and is granted nothing one by one.
func declared(m *Manifest) []string {
	if m.Hearth.Mode != ModeSandboxed {
		return []string{}
	}
	return append([]string{}, m.Hearth.Permissions...)
}

const columns = `id, source_kind, source, manifest, mode, enabled, granted, installed_at, updated_at, last_error, compat`

type scanner interface{ Scan(dest ...any) error }

func scanEntry(r scanner) (*Entry, *Manifest, error) {
	var e Entry
	var manifest, granted string
	var lastErr, usage sql.NullString
	if err := r.Scan(&e.ID, &e.Source.Kind, &e.Source.Value, &manifest, &e.Mode, &e.Enabled, &granted, &e.InstalledAt, &e.UpdatedAt, &lastErr, &usage); err != nil {
		return nil, nil, err
	}
	m, err := readStoredManifest([]byte(manifest))
	if err != nil {
		return nil, nil, fmt.Errorf("stored manifest of %s: %w", e.ID, err)
	}
	if err := json.Unmarshal([]byte(granted), &e.Granted); err != nil {
		return nil, nil, fmt.Errorf("stored grant of %s: %w", e.ID, err)
	}
	e.DisplayName, e.Version, e.Author = m.DisplayName, m.Version, m.Author
	if e.DisplayName == "" {
		e.DisplayName = e.ID
	}
	e.Permissions = declared(m)
	e.LoadingOrder, e.JS, e.CSS, e.Entry = m.LoadingOrder, m.JS, m.CSS, m.Hearth.Entry
	e.Dependencies = append([]string{}, m.Dependencies...)
	e.MinimumClientVersion = m.MinimumClientVersion
	e.I18n = maps.Clone(m.I18n)
	e.Network = append([]string{}, m.Hearth.Network...)
	e.Panel = m.Hearth.Panel
	e.lastError, e.usage, e.manifest = lastErr.String, usage.String, m
	return &e, m, nil
}

// List returns every installed extension in load order: loading_order,
// then display name. In safe mode every enabled one shows as disabled.
func (s *Service) List(ctx context.Context) ([]Entry, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT `+columns+` FROM extensions`)
	if err != nil {
		return nil, fmt.Errorf("list extensions: %w", err)
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		e, _, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list extensions: %w", err)
	}
	settleStatus(out)
	if err := summarize(out); err != nil {
		return nil, err
	}
	if err := s.applySafeMode(ctx, out); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.LoadingOrder != b.LoadingOrder {
			return a.LoadingOrder < b.LoadingOrder
		}
		if x, y := strings.ToLower(a.DisplayName), strings.ToLower(b.DisplayName); x != y {
			return x < y
		}
		return a.ID < b.ID
	})
	return out, nil
}

// settleStatus sets each entry's status: disabled when off, failed with
// its last error, blocked when it needs a later SillyTavern than Hearth
// is compatible with, or while a dependency is missing, off or blocked
// itself (until nothing changes, so chains and cycles settle), else
// active.
func settleStatus(list []Entry) {
	byID := map[string]*Entry{}
	for i := range list {
		e := &list[i]
		byID[strings.ToLower(e.ID)] = e
		switch {
		case !e.Enabled:
			e.Status = StatusDisabled
		case e.lastError != "":
			e.Status, e.Error = StatusFailed, e.lastError
		case e.MinimumClientVersion != "" && stcompat.CompareVersions(e.MinimumClientVersion, stcompat.Level()) > 0:
			e.Status = StatusBlocked
			e.Error = fmt.Sprintf("needs SillyTavern %s or later; Hearth runs extensions written for SillyTavern %s",
				e.MinimumClientVersion, stcompat.Level())
		default:
			e.Status = StatusActive
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range list {
			e := &list[i]
			if e.Status != StatusActive {
				continue
			}
			for _, d := range e.Dependencies {
				dep := byID[strings.ToLower(d)]
				var why string
				switch {
				case dep == nil:
					why = fmt.Sprintf("needs the extension %q, which is not installed", d)
				case dep.Status == StatusDisabled:
					why = fmt.Sprintf("needs the extension %q, which is turned off", d)
				case dep.Status != StatusActive:
					why = fmt.Sprintf("needs the extension %q, which is %s", d, dep.Status)
				}
				if why != "" {
					e.Status, e.Error, changed = StatusBlocked, why, true
					break
				}
			}
		}
	}
}

// Get returns one installed extension as List shows it.
func (s *Service) Get(ctx context.Context, id string) (*Entry, error) {
	list, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if strings.EqualFold(list[i].ID, id) {
			return &list[i], nil
		}
	}
	return nil, notFound(id)
}

// load reads id's row inside tx.
func load(ctx context.Context, tx *store.Tx, id string) (*Entry, *Manifest, error) {
	e, m, err := scanEntry(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM extensions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, notFound(id)
	}
	return e, m, err
}

// InstallOptions adjust Install.
type InstallOptions struct {
	// Enable turns the extension on at once (else it is installed off).
	Enable bool `json:"enable"`
}

// Install reads, checks and installs a package, granting what its
// manifest declares. Nothing is installed unless all of it is valid.
func (s *Service) Install(ctx context.Context, src Source, opts InstallOptions) (*Entry, error) {
	st, err := s.stage(ctx, src)
	if err != nil {
		return nil, err
	}
	defer st.discard()
	id := st.manifest.Hearth.ID
	if id == "" {
		if id = sanitizeID(st.name); id == "" {
			return nil, badManifest("hearth.id", "the package's name %q gives no usable id; set hearth.id", st.name)
		}
	}
	usage, err := scanPackage(st.pkg, id, st.manifest)
	if err != nil {
		return nil, err
	}
	now := s.now().UnixMilli()
	target := filepath.Join(s.dir, id)
	moved := false
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		var have string
		err := tx.QueryRowContext(ctx, `SELECT id FROM extensions WHERE id = ?`, id).Scan(&have)
		if err == nil {
			return apperr.New(CodeExists, "an extension %q is already installed; remove or update it", have).
				WithDetails(map[string]any{"id": have})
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("install extension: %w", err)
		}
		granted, _ := json.Marshal(declared(st.manifest))
		if _, err := tx.ExecContext(ctx, `INSERT INTO extensions (`+columns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
			id, st.kind, st.value, string(st.manifest.Raw), st.manifest.Hearth.Mode, opts.Enable, string(granted), now, now, nullable(usage)); err != nil {
			return fmt.Errorf("install extension: %w", err)
		}
		// A folder with no row is what a crash between rename and
		// commit leaves; it is set aside for the new package.
		if err := s.setAside(target); err != nil {
			return err
		}
		if err := os.Rename(st.pkg, target); err != nil {
			return fmt.Errorf("install extension %s: %w", id, err)
		}
		moved = true
		payload := &events.ExtensionInstalledPayload{ID: id, Mode: st.manifest.Hearth.Mode, Enabled: opts.Enable}
		tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: events.ExtensionInstalled, Payload: payload}) })
		return nil
	})
	if err != nil {
		if moved {
			_ = os.RemoveAll(target)
		}
		return nil, err
	}
	return s.Get(ctx, id)
}

// setAside moves what is at target, if anything, into the staging area,
// to be removed.
func (s *Service) setAside(target string) error {
	if _, err := os.Lstat(target); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	tmp, err := s.stagingDir()
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Rename(target, filepath.Join(tmp, "old")); err != nil {
		return fmt.Errorf("set aside %s: %w", target, err)
	}
	return nil
}

// Update installs id again from the source it came from, keeping its
// storage, whether it is on, and the grants its new manifest still
// declares. An uploaded zip cannot be read again: CodeNotUpdatable.
func (s *Service) Update(ctx context.Context, id string) (*Entry, error) {
	cur, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	var src Source
	switch cur.Source.Kind {
	case "path":
		src.Path = cur.Source.Value
	case "url":
		src.URL = cur.Source.Value
	default:
		return nil, apperr.New(CodeNotUpdatable, "%s was installed from an uploaded zip; upload the new version after removing it", cur.ID).
			WithDetails(map[string]any{"id": cur.ID})
	}
	st, err := s.stage(ctx, src)
	if err != nil {
		return nil, err
	}
	defer st.discard()
	if h := st.manifest.Hearth.ID; h != "" && !strings.EqualFold(h, cur.ID) {
		return nil, badManifest("hearth.id", "is %q now; it was installed as %q", h, cur.ID)
	}
	usage, err := scanPackage(st.pkg, cur.ID, st.manifest)
	if err != nil {
		return nil, err
	}
	target := filepath.Join(s.dir, cur.ID)
	old := filepath.Join(st.dir, "old")
	swapped := false
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		e, _, err := load(ctx, tx, cur.ID)
		if err != nil {
			return err
		}
		keep := []string{}
		now := declared(st.manifest)
		for _, g := range e.Granted {
			if slices.Contains(now, g) {
				keep = append(keep, g)
			}
		}
		granted, _ := json.Marshal(keep)
		if _, err := tx.ExecContext(ctx, `UPDATE extensions SET manifest = ?, mode = ?, granted = ?, updated_at = ?, last_error = NULL, compat = ? WHERE id = ?`,
			string(st.manifest.Raw), st.manifest.Hearth.Mode, string(granted), s.now().UnixMilli(), nullable(usage), e.ID); err != nil {
			return fmt.Errorf("update extension: %w", err)
		}
		if err := os.Rename(target, old); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("update extension %s: %w", e.ID, err)
		}
		if err := os.Rename(st.pkg, target); err != nil {
			_ = os.Rename(old, target)
			return fmt.Errorf("update extension %s: %w", e.ID, err)
		}
		swapped = true
		payload := &events.ExtensionInstalledPayload{ID: e.ID, Mode: st.manifest.Hearth.Mode, Enabled: e.Enabled, Updated: true}
		tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: events.ExtensionInstalled, Payload: payload}) })
		return nil
	})
	if err != nil {
		if swapped { // the commit failed: put the old package back
			_ = os.RemoveAll(target)
			_ = os.Rename(old, target)
		}
		return nil, err
	}
	return s.Get(ctx, cur.ID)
}

// RemoveOptions adjust Remove.
type RemoveOptions struct {
	// Clean removes the extension's storage too.
	Clean bool `json:"clean"`
}

// Remove uninstalls id: its row and its files, and with Clean its storage.
func (s *Service) Remove(ctx context.Context, id string, opts RemoveOptions) error {
	var trash string
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		e, _, err := load(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM extensions WHERE id = ?`, e.ID); err != nil {
			return fmt.Errorf("remove extension: %w", err)
		}
		if opts.Clean {
			if _, err := tx.ExecContext(ctx, `DELETE FROM extension_storage WHERE extension_id = ?`, e.ID); err != nil {
				return fmt.Errorf("remove extension storage: %w", err)
			}
		}
		target := filepath.Join(s.dir, e.ID)
		if _, err := os.Lstat(target); err == nil {
			if trash, err = s.stagingDir(); err != nil {
				return err
			}
			if err := os.Rename(target, filepath.Join(trash, "old")); err != nil {
				_ = os.RemoveAll(trash)
				trash = ""
				return fmt.Errorf("remove extension %s: %w", e.ID, err)
			}
		}
		payload := &events.ExtensionRemovedPayload{ID: e.ID, Clean: opts.Clean}
		tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: events.ExtensionRemoved, Payload: payload}) })
		return nil
	})
	if err != nil && trash != "" { // the commit failed: put the files back
		_ = os.Rename(filepath.Join(trash, "old"), filepath.Join(s.dir, id))
	}
	if trash != "" {
		_ = os.RemoveAll(trash)
	}
	return err
}

// Enable turns id on; Disable turns it off. Either clears a reported
// failure. A call that changes nothing sends no event; enabling a failed
// extension sends EXTENSION_ENABLED, since the window starts it again.
func (s *Service) Enable(ctx context.Context, id string) (*Entry, error) {
	return s.setEnabled(ctx, id, true)
}

// Disable turns id off (see Enable).
func (s *Service) Disable(ctx context.Context, id string) (*Entry, error) {
	return s.setEnabled(ctx, id, false)
}

func (s *Service) setEnabled(ctx context.Context, id string, on bool) (*Entry, error) {
	var canonical string
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		e, _, err := load(ctx, tx, id)
		if err != nil {
			return err
		}
		canonical = e.ID
		if e.Enabled == on && e.lastError == "" {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE extensions SET enabled = ?, last_error = NULL WHERE id = ?`, on, e.ID); err != nil {
			return fmt.Errorf("enable extension: %w", err)
		}
		// Turning a failed extension on again is a change to its
		// runtime too: the window starts it anew on this event.
		if e.Enabled != on || on {
			typ := events.ExtensionDisabled
			if on {
				typ = events.ExtensionEnabled
			}
			payload := &events.ExtensionPayload{ID: e.ID}
			tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: typ, Payload: payload}) })
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, canonical)
}

// Grant adds permissions to id's grant; each must be one its manifest
// declares (a page extension declares none: it has full access).
func (s *Service) Grant(ctx context.Context, id string, perms []string) (*Entry, error) {
	return s.regrant(ctx, id, perms, true)
}

// Revoke takes permissions out of id's grant; the next call feels it.
// Either sends EXTENSION_GRANTED when the grant changed.
func (s *Service) Revoke(ctx context.Context, id string, perms []string) (*Entry, error) {
	return s.regrant(ctx, id, perms, false)
}

func (s *Service) regrant(ctx context.Context, id string, perms []string, add bool) (*Entry, error) {
	var canonical string
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		e, m, err := load(ctx, tx, id)
		if err != nil {
			return err
		}
		canonical = e.ID
		may := declared(m)
		for _, p := range perms {
			if !slices.Contains(Permissions, p) {
				return apperr.Invalid("unknown permission %q", p).WithDetails(map[string]any{"permission": p, "known": Permissions})
			}
			if add && !slices.Contains(may, p) {
				why := "its manifest does not declare it"
				if m.Hearth.Mode != ModeSandboxed {
					why = "a page extension runs with full access and is granted nothing one by one"
				}
				return apperr.Invalid("%s cannot be granted %q: %s", e.ID, p, why).WithDetails(map[string]any{"permission": p})
			}
		}
		next := []string{}
		for _, p := range may { // keep the manifest's order
			has := slices.Contains(e.Granted, p)
			asked := slices.Contains(perms, p)
			if has && !(asked && !add) || asked && add {
				next = append(next, p)
			}
		}
		if slices.Equal(next, e.Granted) {
			return nil
		}
		granted, _ := json.Marshal(next)
		if _, err := tx.ExecContext(ctx, `UPDATE extensions SET granted = ? WHERE id = ?`, string(granted), e.ID); err != nil {
			return fmt.Errorf("grant extension: %w", err)
		}
		payload := &events.ExtensionGrantedPayload{ID: e.ID, Granted: next}
		tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: events.ExtensionGranted, Payload: payload}) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, canonical)
}

// MarkFailed records that id failed to load or run a hook (the runtime
// reports it), which shows it as failed until it is enabled again, and
// sends EXTENSION_FAILED.
func (s *Service) MarkFailed(ctx context.Context, id, reason string) error {
	if strings.TrimSpace(reason) == "" {
		return apperr.Invalid("error is required: say why the extension failed")
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		e, _, err := load(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE extensions SET last_error = ? WHERE id = ?`, reason, e.ID); err != nil {
			return fmt.Errorf("mark extension failed: %w", err)
		}
		payload := &events.ExtensionFailedPayload{ID: e.ID, Error: reason}
		tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: events.ExtensionFailed, Payload: payload}) })
		return nil
	})
}
