package profile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
	"hearth/backend/store"
)

// Store keeps user profiles in the agent_profiles table. The built-in
// DefaultWriter is never stored: it is always listed first, always loads
// and can be neither saved over nor deleted. Store publishes no events;
// the host layer does, after a call returns.
type Store struct {
	db  *store.Store
	now func() time.Time
}

// NewStore returns a Store over db; now stamps saves.
func NewStore(db *store.Store, now func() time.Time) *Store {
	return &Store{db: db, now: now}
}

// Summary is one row of profiles.list.
type Summary struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	Description string `json:"description,omitempty"`
	// BuiltIn marks DefaultWriter, which cannot be changed or deleted.
	BuiltIn bool `json:"builtIn"`
	// UpdatedMs is the unix ms of the last save; 0 for the built-in.
	UpdatedMs int64 `json:"updatedMs"`
}

// StoredIssue reports a stored profile that no longer parses (written by
// an older Hearth, or edited by hand), with everything wrong with it.
type StoredIssue struct {
	ID     string  `json:"id"`
	Issues []Issue `json:"issues"`
}

// Listing is the result of List: the usable profiles, and the broken ones
// apart so one bad row does not hide the rest.
type Listing struct {
	Profiles []Summary     `json:"profiles"`
	Issues   []StoredIssue `json:"issues"`
}

func notFound(id string) error {
	return apperr.New(CodeNotFound, "no agent profile %q", inputs.Short(id)).WithDetails(map[string]any{"id": id})
}

func reserved() error {
	return apperr.New(CodeInvalidProfile, "invalid agent profile: id: %q is the built-in profile's id, which is reserved; choose another id", DefaultID).
		WithDetails(map[string]any{"field": "id", "issue": IssueReserved})
}

// List returns the built-in profile first, then the stored ones by display
// name (case-insensitively) and id; rows whose body no longer parses are
// under Issues, by id.
func (s *Store) List(ctx context.Context) (Listing, error) {
	def := DefaultWriter()
	out := Listing{
		Profiles: []Summary{{ID: def.ID, DisplayName: def.DisplayName, Description: def.Description, BuiltIn: true}},
		Issues:   []StoredIssue{},
	}
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT id, body, updated_ms FROM agent_profiles ORDER BY id`)
	if err != nil {
		return Listing{}, fmt.Errorf("list agent profiles: %w", err)
	}
	defer rows.Close()
	var stored []Summary
	for rows.Next() {
		var id, body string
		var updated int64
		if err := rows.Scan(&id, &body, &updated); err != nil {
			return Listing{}, fmt.Errorf("list agent profiles: %w", err)
		}
		p, issues := decodeStored(id, body)
		if len(issues) > 0 {
			out.Issues = append(out.Issues, StoredIssue{ID: id, Issues: issues})
			continue
		}
		stored = append(stored, Summary{ID: id, DisplayName: p.DisplayName, Description: p.Description, UpdatedMs: updated})
	}
	if err := rows.Err(); err != nil {
		return Listing{}, fmt.Errorf("list agent profiles: %w", err)
	}
	sort.SliceStable(stored, func(i, j int) bool {
		a, b := strings.ToLower(stored[i].DisplayName), strings.ToLower(stored[j].DisplayName)
		if a != b {
			return a < b
		}
		return stored[i].ID < stored[j].ID
	})
	out.Profiles = append(out.Profiles, stored...)
	return out, nil
}

// decodeStored parses a stored body and checks that it is the profile of
// its row. It reads null as left out, as bodies stored before Parse
// refused null did, so they keep loading.
func decodeStored(id, body string) (Profile, []Issue) {
	p, issues := check([]byte(body), false)
	switch {
	case len(issues) > 0:
	case id == DefaultID:
		issues = append(issues, Issue{Field: "id", Code: IssueReserved,
			Message: fmt.Sprintf("%q is the built-in profile's id; a stored profile cannot use it", DefaultID)})
	case p.ID != id:
		issues = append(issues, Issue{Field: "id", Code: IssueValue,
			Message: fmt.Sprintf("is %q but the profile is stored as %q", short(p.ID), short(id))})
	}
	return p, issues
}

// body reads the stored body of id.
func (s *Store) body(ctx context.Context, id string) (string, error) {
	var body string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT body FROM agent_profiles WHERE id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound(id)
	}
	if err != nil {
		return "", fmt.Errorf("read agent profile: %w", err)
	}
	return body, nil
}

// Load returns profile id; DefaultID is the built-in one. An unknown id is
// agent.profile_not_found (the ABI's load answers {profile: null}); a
// stored body that no longer parses is agent.invalid_profile with
// details.id.
func (s *Store) Load(ctx context.Context, id string) (*Profile, error) {
	if id == DefaultID {
		p := DefaultWriter()
		return &p, nil
	}
	body, err := s.body(ctx, id)
	if err != nil {
		return nil, err
	}
	p, issues := decodeStored(id, body)
	if len(issues) > 0 {
		e := invalidError(issues)
		e.Details["id"] = id
		return nil, e
	}
	return &p, nil
}

// Resolve returns the profile a run uses: id, or the built-in one for "".
func (s *Store) Resolve(ctx context.Context, id string) (Profile, error) {
	if id == "" {
		return DefaultWriter(), nil
	}
	p, err := s.Load(ctx, id)
	if err != nil {
		return Profile{}, err
	}
	return *p, nil
}

// Save validates a profile document and stores it normalised under its id,
// creating or replacing it; nothing is written when it is invalid. The
// built-in id is reserved.
func (s *Store) Save(ctx context.Context, raw []byte) (Profile, error) {
	p, err := Parse(raw)
	if err != nil {
		return Profile{}, err
	}
	if p.ID == DefaultID {
		return Profile{}, reserved()
	}
	body := p.JSON()
	if body == nil || len(body) > MaxBytes {
		return Profile{}, apperr.New(CodeInvalidProfile, "invalid agent profile: with its defaults filled in the profile is larger than %d KiB", MaxBytes>>10).
			WithDetails(map[string]any{"field": "", "issue": IssueTooLarge})
	}
	now := s.now().UnixMilli()
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO agent_profiles (id, body, updated_ms) VALUES (?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET body = excluded.body, updated_ms = excluded.updated_ms`,
			p.ID, string(body), now)
		return err
	})
	if err != nil {
		return Profile{}, fmt.Errorf("save agent profile: %w", err)
	}
	return p, nil
}

// Delete removes profile id; the built-in one is agent.profile_builtin.
func (s *Store) Delete(ctx context.Context, id string) error {
	if id == DefaultID {
		return apperr.New(CodeBuiltin, "the built-in profile %q cannot be deleted", DefaultID).WithDetails(map[string]any{"id": DefaultID})
	}
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM agent_profiles WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("delete agent profile: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("delete agent profile: %w", err)
		} else if n == 0 {
			return notFound(id)
		}
		return nil
	})
}

// Diagnose reports every issue of stored profile id (none for the
// built-in); ok is true when there are none. issues is never nil.
func (s *Store) Diagnose(ctx context.Context, id string) (ok bool, issues []Issue, err error) {
	if id == DefaultID {
		return true, []Issue{}, nil
	}
	body, err := s.body(ctx, id)
	if err != nil {
		return false, nil, err
	}
	_, issues = decodeStored(id, body)
	if issues == nil {
		issues = []Issue{}
	}
	return len(issues) == 0, issues, nil
}
