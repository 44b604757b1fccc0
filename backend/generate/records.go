package generate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
	"hearth/backend/store"
)

// Generation statuses.
const (
	StatusRunning = "running"
	StatusEnded   = "ended"
	StatusStopped = "stopped"
	StatusFailed  = "failed"
)

// CodeInterrupted is the error of a generation the app did not live to
// finish (a crash, a kill, a power cut).
const CodeInterrupted = "generate.interrupted"

// keepRecords bounds the generations table.
const keepRecords = 1000

// Record is what generate.status(generationId) reports of a generation.
type Record struct {
	GenerationID string        `json:"generationId"`
	ChatID       string        `json:"chatId"`
	Type         string        `json:"type"`
	Status       string        `json:"status"`
	Error        *apperr.Error `json:"error,omitempty"`
	MessageID    *string       `json:"messageId"`
	Index        *int          `json:"index"`
	SwipeID      *int          `json:"swipeId"`
	StartedAt    int64         `json:"startedAt"`
	EndedAt      *int64        `json:"endedAt"`
	// Hooks is what the window's prompt hooks did (nil for a generation
	// recorded before Hearth kept it).
	Hooks *HooksRecord `json:"hooks,omitempty"`
}

// insertRecord writes the running row of a generation.
func (s *Service) insertRecord(ctx context.Context, r *run) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		var hooks sql.NullString
		if r.built != nil {
			raw, err := json.Marshal(r.built.hooks)
			if err != nil {
				return err
			}
			hooks = sql.NullString{String: string(raw), Valid: true}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO generations (id, chat_id, type, status, started_at, hooks) VALUES (?, ?, ?, 'running', ?, ?)`,
			r.id, r.chatID, r.typ, r.started.UnixMilli(), hooks)
		if err != nil {
			return fmt.Errorf("record generation: %w", err)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM generations WHERE status != 'running' AND id IN
			(SELECT id FROM generations ORDER BY started_at DESC LIMIT -1 OFFSET ?)`, keepRecords)
		return err
	})
}

// recordFailed keeps the record of a group member's generation that
// could not start (its override names a connection that is gone, its
// prompt does not fit), so generate.status tells what happened to it;
// it returns the record's id ("" if it could not be written).
func (s *Service) recordFailed(ctx context.Context, chatID, typ string, failure error) string {
	id := uuid.NewString()
	raw, _ := json.Marshal(apperr.Shape(failure))
	now := s.now().UnixMilli()
	ctx = context.WithoutCancel(ctx)
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO generations (id, chat_id, type, status, error, started_at, ended_at)
			VALUES (?, ?, ?, 'failed', ?, ?, ?)`, id, chatID, typ, string(raw), now, now)
		return err
	})
	if err != nil {
		s.log.Error("record a failed generation", "chat", chatID, "err", err)
		return ""
	}
	return id
}

// settleRecord writes how a generation ended. It runs detached from the
// caller: the record must land even when the run's context is done.
func (s *Service) settleRecord(r *run, status string, failure *apperr.Error, where *where) {
	err := s.db.InTx(context.Background(), func(tx *store.Tx) error {
		return s.writeRecord(context.Background(), tx, r, status, failure, where)
	})
	if err != nil {
		s.log.Error("settle generation record", "generation", r.id, "err", err)
	}
}

// writeRecord writes how a generation ended in tx: the reply's own
// transaction when it landed (see execute), so the two commit together.
func (s *Service) writeRecord(ctx context.Context, tx *store.Tx, r *run, status string, failure *apperr.Error, where *where) error {
	var errJSON sql.NullString
	if failure != nil {
		b, _ := json.Marshal(failure)
		errJSON = sql.NullString{String: string(b), Valid: true}
	}
	var msgID sql.NullString
	var idx, swipe sql.NullInt64
	if where != nil {
		msgID = sql.NullString{String: where.ID, Valid: true}
		idx = sql.NullInt64{Int64: int64(where.Index), Valid: true}
		swipe = sql.NullInt64{Int64: int64(where.SwipeID), Valid: true}
	}
	_, err := tx.ExecContext(ctx, `UPDATE generations SET status = ?, error = ?, message_id = ?, idx = ?, swipe_id = ?, ended_at = ?
		WHERE id = ?`, status, errJSON, msgID, idx, swipe, s.now().UnixMilli(), r.id)
	if err != nil {
		return fmt.Errorf("settle generation record: %w", err)
	}
	return nil
}

// markInterrupted fails every generation left running by a previous
// process. Called once at startup, before any generation starts.
func (s *Service) markInterrupted(ctx context.Context) error {
	failure, _ := json.Marshal(apperr.New(CodeInterrupted, "the generation was cut short: Hearth stopped while it ran"))
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE generations SET status = 'failed', error = ?, ended_at = ? WHERE status = 'running'`,
			string(failure), s.now().UnixMilli())
		if err != nil {
			return fmt.Errorf("mark interrupted generations: %w", err)
		}
		return nil
	})
}

// record reads one generation's record.
func (s *Service) record(ctx context.Context, id string) (*Record, error) {
	var r Record
	var errJSON, msgID, hooks sql.NullString
	var idx, swipe, ended sql.NullInt64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT id, chat_id, type, status, error, message_id, idx, swipe_id, started_at, ended_at, hooks
		FROM generations WHERE id = ?`, id).Scan(&r.GenerationID, &r.ChatID, &r.Type, &r.Status, &errJSON, &msgID, &idx, &swipe, &r.StartedAt, &ended, &hooks)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.New(CodeNotFound, "no generation %q", inputs.Short(id)).WithDetails(map[string]any{"generationId": id})
	}
	if err != nil {
		return nil, fmt.Errorf("read generation %s: %w", id, err)
	}
	if errJSON.Valid {
		r.Error = &apperr.Error{}
		_ = json.Unmarshal([]byte(errJSON.String), r.Error)
	}
	if msgID.Valid {
		r.MessageID = &msgID.String
	}
	if idx.Valid {
		v := int(idx.Int64)
		r.Index = &v
	}
	if swipe.Valid {
		v := int(swipe.Int64)
		r.SwipeID = &v
	}
	if ended.Valid {
		r.EndedAt = &ended.Int64
	}
	if hooks.Valid {
		r.Hooks = &HooksRecord{}
		_ = json.Unmarshal([]byte(hooks.String), r.Hooks)
	}
	return &r, nil
}
