package runstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
	"hearth/backend/store"
)

// NewRunID returns a fresh run id, "run_" + UUID.
func NewRunID() string { return "run_" + uuid.NewString() }

// Create inserts run r and its first event (seq 1) in one transaction and
// returns them as stored. It takes from r the identity and start fields:
// ID ("" means NewRunID), ChatID, WorkspaceID, ProfileID, GenerationType,
// Presentation, Status ("" means created; a terminal status is refused, a
// run starts live), Snapshot and Profile (JSON objects; nil means {}).
// Counters, errors, pending calls and commits start empty whatever r holds.
func (s *Store) Create(ctx context.Context, r Run, first EventInput) (Run, Event, error) {
	if r.ID == "" {
		r.ID = NewRunID()
	}
	if r.Status == "" {
		r.Status = StatusCreated
	}
	if err := checkNewRun(r); err != nil {
		return Run{}, Event{}, err
	}
	if err := checkEventType(first.Type); err != nil {
		return Run{}, Event{}, err
	}
	level, err := checkLevel(first.Level)
	if err != nil {
		return Run{}, Event{}, err
	}
	payload, err := marshalPayload(first.Payload)
	if err != nil {
		return Run{}, Event{}, err
	}
	out := Run{
		ID: r.ID, ChatID: r.ChatID, WorkspaceID: r.WorkspaceID, ProfileID: r.ProfileID,
		GenerationType: r.GenerationType, Presentation: r.Presentation, Status: r.Status,
		LastSeq: 1, Snapshot: orEmpty(r.Snapshot, "{}"), Profile: orEmpty(r.Profile, "{}"), Commits: json.RawMessage("[]"),
	}
	var now int64
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		// The time is read once the write lock is held, as AppendTx does:
		// an event's timestamp is when it became the log's, not when its
		// writer began to wait for another transaction.
		now = s.now().UnixMilli()
		out.CreatedMs, out.UpdatedMs = now, now
		_, err := tx.ExecContext(ctx, `INSERT INTO agent_runs (id, chat_id, workspace_id, profile_id, generation_type, presentation,
			status, last_seq, created_ms, updated_ms, snapshot, profile, commits)
			VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, '[]')`,
			out.ID, out.ChatID, out.WorkspaceID, out.ProfileID, out.GenerationType, out.Presentation,
			out.Status, now, now, string(out.Snapshot), string(out.Profile))
		if err != nil {
			if isConstraint(err) {
				return invalid("runId", "a run with id %q already exists", inputs.Short(out.ID))
			}
			return fmt.Errorf("insert run %s: %w", out.ID, err)
		}
		return insertEvent(ctx, tx, out.ID, 1, now, level, first.Type, payload)
	})
	if err != nil {
		return Run{}, Event{}, err
	}
	return out, newEvent(out.ID, 1, now, level, first.Type, payload), nil
}

// checkNewRun validates what Create stores of r.
func checkNewRun(r Run) error {
	checks := []struct {
		field, v string
		max      int
	}{
		{"runId", r.ID, maxIDBytes}, {"chatId", r.ChatID, maxChatIDBytes}, {"workspaceId", r.WorkspaceID, maxIDBytes},
		{"generationType", r.GenerationType, maxNameBytes}, {"presentation", r.Presentation, maxNameBytes},
	}
	for _, c := range checks {
		if err := checkText(c.field, c.v, c.max); err != nil {
			return err
		}
	}
	if r.ProfileID != nil {
		if err := checkText("profileId", *r.ProfileID, maxIDBytes); err != nil {
			return err
		}
	}
	if err := checkStatus("status", r.Status); err != nil {
		return err
	}
	if Terminal(r.Status) {
		return invalid("status", "a run cannot be created %s: it starts live", r.Status)
	}
	for _, j := range []struct {
		field string
		raw   json.RawMessage
	}{{"snapshot", r.Snapshot}, {"profile", r.Profile}} {
		if j.raw != nil {
			if err := checkJSON(j.field, j.raw, '{'); err != nil {
				return err
			}
		}
	}
	return nil
}

// Append adds one event to run runID and applies ch to the run, in one
// transaction: the event's seq is the run's last_seq + 1, taken in that
// transaction, so concurrent appenders never share or skip a seq. It
// returns the event and the run after the change (without Snapshot and
// Profile). An unknown run is agent.run_not_found; a run that has ended is
// agent.run_not_active unless ch.AllowTerminal (and then its status cannot
// change).
func (s *Store) Append(ctx context.Context, runID string, ev EventInput, ch Change) (Event, Run, error) {
	var out Event
	var run Run
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		out, run, err = s.AppendTx(ctx, tx, runID, ev, ch)
		return err
	})
	if err != nil {
		return Event{}, Run{}, err
	}
	return out, run, nil
}

// appendSQL bumps last_seq and applies a Change in one statement; the
// WHERE refuses an ended run unless the append is allowed there and
// leaves its status as it is. ?1 is the time, ?2 the new status ("" = keep).
const appendSQL = `UPDATE agent_runs SET
		last_seq = last_seq + 1,
		updated_ms = ?1,
		status = CASE WHEN ?2 = '' THEN status ELSE ?2 END,
		error = COALESCE(?3, error),
		pending = CASE WHEN ?4 THEN NULL ELSE COALESCE(?5, pending) END,
		input_tokens = input_tokens + ?6,
		output_tokens = output_tokens + ?7,
		rounds = rounds + ?8,
		calls = calls + ?9,
		commits = COALESCE(?10, commits),
		commit_message_id = COALESCE(?11, commit_message_id),
		ended_ms = CASE WHEN ?12 AND ended_ms IS NULL THEN ?1 ELSE ended_ms END
	WHERE id = ?13 AND (status NOT IN ` + terminalSQL + ` OR (?14 AND ?2 IN ('', status)))
	RETURNING ` + runColumns

// AppendTx is Append inside the caller's transaction, so an event can land
// together with other writes (a checkpoint, a chat commit). The caller
// publishes the event from tx.AfterCommit.
func (s *Store) AppendTx(ctx context.Context, tx *store.Tx, runID string, ev EventInput, ch Change) (Event, Run, error) {
	if err := checkRunID(runID); err != nil {
		return Event{}, Run{}, err
	}
	if err := checkEventType(ev.Type); err != nil {
		return Event{}, Run{}, err
	}
	level, err := checkLevel(ev.Level)
	if err != nil {
		return Event{}, Run{}, err
	}
	if err := checkChange(ch); err != nil {
		return Event{}, Run{}, err
	}
	payload, err := marshalPayload(ev.Payload)
	if err != nil {
		return Event{}, Run{}, err
	}
	var errJSON, pending, commits sql.NullString
	if ch.Error != nil {
		b, err := json.Marshal(ch.Error)
		if err != nil {
			return Event{}, Run{}, fmt.Errorf("marshal run error: %w", err)
		}
		errJSON = sql.NullString{String: string(b), Valid: true}
	}
	if ch.Pending != nil {
		pending = sql.NullString{String: string(ch.Pending), Valid: true}
	}
	if ch.Commits != nil {
		commits = sql.NullString{String: string(ch.Commits), Valid: true}
	}
	var usage Usage
	if ch.AddUsage != nil {
		usage = *ch.AddUsage
	}
	now := s.now().UnixMilli()
	run, err := scanRun(tx.QueryRowContext(ctx, appendSQL, now, ch.Status, errJSON, ch.ClearPending, pending,
		usage.InputTokens, usage.OutputTokens, ch.AddRounds, ch.AddCalls, commits, ch.CommitMessageID,
		Terminal(ch.Status), runID, ch.AllowTerminal), false)
	if errors.Is(err, sql.ErrNoRows) {
		return Event{}, Run{}, whyNotAppended(ctx, tx, runID, ch)
	}
	if err != nil {
		return Event{}, Run{}, fmt.Errorf("append to run %s: %w", runID, err)
	}
	if err := insertEvent(ctx, tx, runID, run.LastSeq, now, level, ev.Type, payload); err != nil {
		return Event{}, Run{}, err
	}
	return newEvent(runID, run.LastSeq, now, level, ev.Type, payload), run, nil
}

// whyNotAppended explains an append the UPDATE refused: the run is unknown
// or has ended.
func whyNotAppended(ctx context.Context, tx *store.Tx, runID string, ch Change) error {
	var status string
	err := tx.QueryRowContext(ctx, `SELECT status FROM agent_runs WHERE id = ?`, runID).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return runNotFound(runID)
	}
	if err != nil {
		return fmt.Errorf("read run %s: %w", runID, err)
	}
	msg := fmt.Sprintf("run %s has ended (%s)", inputs.Short(runID), status)
	if ch.AllowTerminal {
		msg += fmt.Sprintf(": its status cannot change to %s", ch.Status)
	}
	return apperr.New(CodeRunNotActive, "%s", msg).WithDetails(map[string]any{"runId": runID, "status": status})
}

// insertEvent writes one event row.
func insertEvent(ctx context.Context, tx *store.Tx, runID string, seq, now int64, level, typ string, payload []byte) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_events (run_id, seq, ts_ms, level, type, payload) VALUES (?, ?, ?, ?, ?, ?)`,
		runID, seq, now, level, typ, string(payload))
	if err != nil {
		return fmt.Errorf("insert event %s:%d: %w", runID, seq, err)
	}
	return nil
}

// Interrupt ends every run a previous process left unfinished: each
// becomes interrupted, with EndedMs and the error agent.interrupted, and
// gets a run_interrupted event {previousStatus}. A run that was awaiting
// approval keeps its Pending call, so the UI can still show what was
// asked. Called once at startup, before any run starts; it returns the
// events (in run creation order) for the caller to publish.
func (s *Store) Interrupt(ctx context.Context) ([]Event, error) {
	failure := apperr.New(CodeInterrupted, "the run was cut short: Hearth stopped while it ran")
	var events []Event
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		events = events[:0]
		rows, err := tx.QueryContext(ctx, `SELECT id, status FROM agent_runs WHERE status NOT IN `+terminalSQL+` ORDER BY created_ms, id`)
		if err != nil {
			return fmt.Errorf("find unfinished runs: %w", err)
		}
		type live struct{ id, status string }
		var runs []live
		for rows.Next() {
			var r live
			if err := rows.Scan(&r.id, &r.status); err != nil {
				rows.Close()
				return fmt.Errorf("find unfinished runs: %w", err)
			}
			runs = append(runs, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("find unfinished runs: %w", err)
		}
		for _, r := range runs {
			ev, _, err := s.AppendTx(ctx, tx, r.id,
				EventInput{Level: LevelWarn, Type: "run_interrupted", Payload: map[string]any{"previousStatus": r.status}},
				Change{Status: StatusInterrupted, Error: failure})
			if err != nil {
				return err
			}
			events = append(events, ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return events, nil
}

// runNotFound is the agent.run_not_found error for id.
func runNotFound(id string) error {
	return apperr.New(CodeRunNotFound, "no agent run %q", inputs.Short(id)).WithDetails(map[string]any{"runId": id})
}

// orEmpty returns raw, or def when raw is nil.
func orEmpty(raw json.RawMessage, def string) json.RawMessage {
	if raw == nil {
		return json.RawMessage(def)
	}
	return raw
}

// isConstraint reports a UNIQUE or PRIMARY KEY violation.
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY || se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE)
}
