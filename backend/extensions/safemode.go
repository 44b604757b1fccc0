package extensions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/store"
)

// SafeModeReason is the error list() shows on every enabled extension
// while safe mode is on.
const SafeModeReason = "Safe mode is on: every extension is off until you leave it."

// safeModeKey is the settings row holding whether safe mode is on at
// every start ("true" or "false"; no row: off).
const safeModeKey = "extensions.safe_mode_at_start"

// SafeMode is api.extensions.safeMode()'s answer (EXTENSIONS.md §4):
// Active while no extension may run, AtStart when every start begins in
// safe mode, Flag when this run was started with --safe-mode.
type SafeMode struct {
	Active  bool `json:"active"`
	AtStart bool `json:"atStart"`
	Flag    bool `json:"flag"`
}

// SafeModePatch is setSafeMode's argument: what to change, nil for as is.
type SafeModePatch struct {
	Active  *bool `json:"active"`
	AtStart *bool `json:"atStart"`
}

// SafeMode says whether safe mode is on. The first call of the process
// reads AtStart and starts active when it or the flag is set.
func (s *Service) SafeMode(ctx context.Context) (SafeMode, error) {
	s.safeMu.Lock()
	defer s.safeMu.Unlock()
	return s.safeModeLocked(ctx)
}

func (s *Service) safeModeLocked(ctx context.Context) (SafeMode, error) {
	if s.safe != nil {
		return *s.safe, nil
	}
	atStart, err := readAtStart(ctx, s.db.Reader())
	if err != nil {
		return SafeMode{}, err
	}
	s.safe = &SafeMode{Active: s.flag || atStart, AtStart: atStart, Flag: s.flag}
	return *s.safe, nil
}

func readAtStart(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (bool, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, safeModeKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read safe mode: %w", err)
	}
	return v == "true", nil
}

// SetSafeMode turns safe mode on or off for this run (Active) and for
// later starts (AtStart, kept in the database). EXTENSION_SAFE_MODE
// fires when either changed; a patch with neither is refused.
func (s *Service) SetSafeMode(ctx context.Context, p SafeModePatch) (SafeMode, error) {
	if p.Active == nil && p.AtStart == nil {
		return SafeMode{}, apperr.Invalid("setSafeMode needs active, atStart or both")
	}
	s.safeMu.Lock()
	defer s.safeMu.Unlock()
	cur, err := s.safeModeLocked(ctx)
	if err != nil {
		return SafeMode{}, err
	}
	next := cur
	if p.Active != nil {
		next.Active = *p.Active
	}
	if p.AtStart != nil && *p.AtStart != cur.AtStart {
		next.AtStart = *p.AtStart
		err := s.db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
				safeModeKey, fmt.Sprint(next.AtStart))
			return err
		})
		if err != nil {
			return SafeMode{}, fmt.Errorf("save safe mode: %w", err)
		}
	}
	*s.safe = next
	if next != cur {
		s.bus.Publish(events.Event{Type: events.ExtensionSafeMode, Payload: &events.ExtensionSafeModePayload{Active: next.Active, AtStart: next.AtStart}})
	}
	return next, nil
}

// applySafeMode shows every enabled extension off, with SafeModeReason,
// while safe mode is active; they stay enabled, to run again after it.
func (s *Service) applySafeMode(ctx context.Context, list []Entry) error {
	mode, err := s.SafeMode(ctx)
	if err != nil || !mode.Active {
		return err
	}
	for i := range list {
		if list[i].Enabled {
			list[i].Status, list[i].Error = StatusDisabled, SafeModeReason
		}
	}
	return nil
}
