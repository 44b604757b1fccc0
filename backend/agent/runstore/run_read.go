package runstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"hearth/backend/store"
)

// Get reads run runID with its snapshot and profile; an unknown id is
// agent.run_not_found.
func (s *Store) Get(ctx context.Context, runID string) (Run, error) {
	if err := checkRunID(runID); err != nil {
		return Run{}, err
	}
	r, err := scanRun(s.db.Reader().QueryRowContext(ctx, `SELECT `+fullRunColumns+` FROM agent_runs WHERE id = ?`, runID), true)
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, runNotFound(runID)
	}
	if err != nil {
		return Run{}, fmt.Errorf("read run %s: %w", runID, err)
	}
	return r, nil
}

// Events reads a page of run runID's log in ascending seq: the events with
// afterSeq < seq < beforeSeq (a nil beforeSeq means no upper bound; a
// given 0 is a bound like any other, below every seq), at most
// limit of them (0 means DefaultEventsLimit). hasMore reports events past
// the page still inside the bounds. An unknown run is agent.run_not_found;
// a negative bound, or a limit below 0 or above MaxEventsLimit, is an
// input error.
func (s *Store) Events(ctx context.Context, runID string, afterSeq int64, beforeSeq *int64, limit int) ([]Event, bool, error) {
	if err := checkRunID(runID); err != nil {
		return nil, false, err
	}
	before := int64(math.MaxInt64)
	if beforeSeq != nil {
		before = *beforeSeq
	}
	if afterSeq < 0 || before < 0 {
		return nil, false, invalid("afterSeq", "afterSeq and beforeSeq must not be negative")
	}
	if limit == 0 {
		limit = DefaultEventsLimit
	} else if err := CheckEventsLimit(limit); err != nil {
		return nil, false, err
	}
	events := make([]Event, 0, min(limit, 64))
	if before-afterSeq <= 1 {
		if err := s.mustExist(ctx, runID); err != nil {
			return nil, false, err
		}
		return events, false, nil
	}
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT seq, ts_ms, level, type, payload FROM agent_events
		WHERE run_id = ? AND seq > ? AND seq < ? ORDER BY seq LIMIT ?`, runID, afterSeq, before, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("read events of run %s: %w", runID, err)
	}
	defer rows.Close()
	hasMore := false
	for rows.Next() {
		if len(events) == limit {
			hasMore = true
			break
		}
		var seq, ts int64
		var level, typ, payload string
		if err := rows.Scan(&seq, &ts, &level, &typ, &payload); err != nil {
			return nil, false, fmt.Errorf("read events of run %s: %w", runID, err)
		}
		events = append(events, newEvent(runID, seq, ts, level, typ, []byte(payload)))
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("read events of run %s: %w", runID, err)
	}
	if len(events) == 0 {
		// An empty page is either past the end of a run's log or the
		// log of no run at all; only the second is an error.
		if err := s.mustExist(ctx, runID); err != nil {
			return nil, false, err
		}
	}
	return events, hasMore, nil
}

// mustExist answers agent.run_not_found for an unknown run.
func (s *Store) mustExist(ctx context.Context, runID string) error {
	return runExists(s.db.Reader().QueryRowContext(ctx, `SELECT 1 FROM agent_runs WHERE id = ?`, runID), runID)
}

// mustExistTx is mustExist inside a write transaction.
func mustExistTx(ctx context.Context, tx *store.Tx, runID string) error {
	return runExists(tx.QueryRowContext(ctx, `SELECT 1 FROM agent_runs WHERE id = ?`, runID), runID)
}

func runExists(row *sql.Row, runID string) error {
	var one int
	err := row.Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return runNotFound(runID)
	}
	if err != nil {
		return fmt.Errorf("read run %s: %w", runID, err)
	}
	return nil
}

// ListFilter selects runs for List. Zero and nil fields do not filter.
type ListFilter struct {
	ChatID string
	// Status is one run status; an unknown one is an input error.
	Status string
	// Limit is 0 for DefaultListLimit, else 1..MaxListLimit.
	Limit int
	// BeforeCreatedMs pages back: only runs created before it. A given 0
	// is a bound (no run was created before it), not a missing one.
	BeforeCreatedMs *int64
}

// List returns runs newest first (ties by id, descending), without their
// snapshots and profiles.
func (s *Store) List(ctx context.Context, f ListFilter) ([]Run, error) {
	var where []string
	var args []any
	if f.ChatID != "" {
		if err := checkText("chatId", f.ChatID, maxChatIDBytes); err != nil {
			return nil, err
		}
		where = append(where, "chat_id = ?")
		args = append(args, f.ChatID)
	}
	if f.Status != "" {
		if err := checkStatus("status", f.Status); err != nil {
			return nil, err
		}
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	if f.BeforeCreatedMs != nil {
		if *f.BeforeCreatedMs < 0 {
			return nil, invalid("beforeCreatedMs", "beforeCreatedMs must not be negative")
		}
		where = append(where, "created_ms < ?")
		args = append(args, *f.BeforeCreatedMs)
	}
	limit := f.Limit
	if limit == 0 {
		limit = DefaultListLimit
	} else if err := CheckListLimit(limit); err != nil {
		return nil, err
	}
	q := `SELECT ` + runColumns + ` FROM agent_runs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY created_ms DESC, id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := s.db.Reader().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	runs := []Run{}
	for rows.Next() {
		r, err := scanRun(rows, false)
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return runs, nil
}
