package runstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
	"hearth/backend/store"
)

// NewCheckpointID returns a fresh checkpoint id, "cp_" + 32 random hex.
func NewCheckpointID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "cp_" + hex.EncodeToString(b[:])
}

// SaveCheckpoint records a checkpoint of run runID: manifest is the whole
// workspace {path: {sha256, bytes}} (its blobs already written; it is
// stored as a delta against the run's previous checkpoint when that is
// cheaper, see checkpoint_delta.go, and always read back whole), files the
// JSON array of paths changed since the previous checkpoint (nil means
// []). The id and the per-run seq are assigned in the transaction. A run
// that has ended still takes checkpoints: a rollback of a completed run is
// recorded as one. Use SaveCheckpointTx to record it together with its
// checkpoint_created event.
func (s *Store) SaveCheckpoint(ctx context.Context, runID, reason string, manifest, files json.RawMessage) (Checkpoint, error) {
	var cp Checkpoint
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		cp, err = s.SaveCheckpointTx(ctx, tx, runID, reason, manifest, files)
		return err
	})
	if err != nil {
		return Checkpoint{}, err
	}
	return cp, nil
}

// SaveCheckpointTx is SaveCheckpoint inside the caller's transaction.
func (s *Store) SaveCheckpointTx(ctx context.Context, tx *store.Tx, runID, reason string, manifest, files json.RawMessage) (Checkpoint, error) {
	if err := checkRunID(runID); err != nil {
		return Checkpoint{}, err
	}
	if err := checkText("reason", reason, maxReasonBytes); err != nil {
		return Checkpoint{}, err
	}
	if err := checkJSON("manifest", manifest, '{'); err != nil {
		return Checkpoint{}, err
	}
	files = orEmpty(files, "[]")
	if err := checkJSON("files", files, '['); err != nil {
		return Checkpoint{}, err
	}
	if err := mustExistTx(ctx, tx, runID); err != nil {
		return Checkpoint{}, err
	}
	stored, base, next, err := s.storedForm(ctx, tx, runID, manifest)
	if err != nil {
		return Checkpoint{}, err
	}
	cp := Checkpoint{ID: NewCheckpointID(), RunID: runID, Reason: reason, Manifest: manifest, Files: files, CreatedMs: s.now().UnixMilli()}
	err = tx.QueryRowContext(ctx, `INSERT INTO agent_checkpoints (id, run_id, seq, reason, manifest, files, created_ms, base_seq)
		VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM agent_checkpoints WHERE run_id = ?2), ?3, ?4, ?5, ?6, ?7)
		RETURNING seq`, cp.ID, runID, reason, string(stored), string(files), cp.CreatedMs, base).Scan(&cp.Seq)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("save checkpoint of run %s: %w", runID, err)
	}
	if cp.Seq != next.seq {
		return Checkpoint{}, fmt.Errorf("save checkpoint of run %s: got seq %d, expected %d", runID, cp.Seq, next.seq)
	}
	next.id = cp.ID
	tx.AfterCommit(func() { s.tips.put(runID, next) })
	return cp, nil
}

const checkpointColumns = `id, run_id, seq, reason, files, created_ms, manifest, base_seq`

// Checkpoint reads checkpoint id of run runID. An id of another run's
// checkpoint is agent.checkpoint_not_found, as is an unknown id; an
// unknown run is agent.run_not_found.
func (s *Store) Checkpoint(ctx context.Context, runID, id string) (Checkpoint, error) {
	if err := checkRunID(runID); err != nil {
		return Checkpoint{}, err
	}
	if err := checkText("checkpointId", id, maxIDBytes); err != nil {
		return Checkpoint{}, err
	}
	return s.oneCheckpoint(ctx, runID, id, `SELECT `+checkpointColumns+` FROM agent_checkpoints WHERE id = ? AND run_id = ?`, id, runID)
}

// FirstCheckpoint reads run runID's first checkpoint (readDiff's default
// "from"); a run without one is agent.checkpoint_not_found.
func (s *Store) FirstCheckpoint(ctx context.Context, runID string) (Checkpoint, error) {
	return s.endCheckpoint(ctx, runID, "ASC")
}

// LatestCheckpoint reads run runID's newest checkpoint (readDiff's default
// "to"); a run without one is agent.checkpoint_not_found.
func (s *Store) LatestCheckpoint(ctx context.Context, runID string) (Checkpoint, error) {
	return s.endCheckpoint(ctx, runID, "DESC")
}

func (s *Store) endCheckpoint(ctx context.Context, runID, order string) (Checkpoint, error) {
	if err := checkRunID(runID); err != nil {
		return Checkpoint{}, err
	}
	return s.oneCheckpoint(ctx, runID, "", `SELECT `+checkpointColumns+` FROM agent_checkpoints WHERE run_id = ? ORDER BY seq `+order+` LIMIT 1`, runID)
}

// oneCheckpoint reads the checkpoint row query selects and names what is
// missing when there is none: the run, or the checkpoint.
func (s *Store) oneCheckpoint(ctx context.Context, runID, id, query string, args ...any) (Checkpoint, error) {
	cp, err := s.readCheckpoint(ctx, runID, query, args...)
	if errors.Is(err, sql.ErrNoRows) {
		if err := s.mustExist(ctx, runID); err != nil {
			return Checkpoint{}, err
		}
		if id == "" {
			return Checkpoint{}, apperr.New(CodeCheckpointNotFound, "run %s has no checkpoint", inputs.Short(runID)).
				WithDetails(map[string]any{"runId": runID})
		}
		return Checkpoint{}, apperr.New(CodeCheckpointNotFound, "run %s has no checkpoint %q", inputs.Short(runID), inputs.Short(id)).
			WithDetails(map[string]any{"runId": runID, "checkpointId": id})
	}
	return cp, err
}

// readCheckpoint reads the row query selects (sql.ErrNoRows when there is
// none) and, when it is a delta, rebuilds its whole manifest from its
// chain, both in one read transaction so that a prune in between cannot
// tear them apart.
func (s *Store) readCheckpoint(ctx context.Context, runID, query string, args ...any) (Checkpoint, error) {
	tx, err := s.db.Reader().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Checkpoint{}, fmt.Errorf("read checkpoint of run %s: %w", runID, err)
	}
	defer func() { _ = tx.Rollback() }()
	var cp Checkpoint
	var files, manifest string
	var base sql.NullInt64
	err = tx.QueryRowContext(ctx, query, args...).Scan(&cp.ID, &cp.RunID, &cp.Seq, &cp.Reason, &files, &cp.CreatedMs, &manifest, &base)
	if errors.Is(err, sql.ErrNoRows) {
		return Checkpoint{}, err
	}
	if err != nil {
		return Checkpoint{}, fmt.Errorf("read checkpoint of run %s: %w", runID, err)
	}
	cp.Files, cp.Manifest = json.RawMessage(files), json.RawMessage(manifest)
	if base.Valid {
		c, err := loadChain(ctx, tx, runID, int(base.Int64), cp.Seq)
		if err != nil {
			return Checkpoint{}, err
		}
		if cp.Manifest, err = json.Marshal(c.m); err != nil {
			return Checkpoint{}, err
		}
	}
	return cp, nil
}

// Checkpoints lists run runID's checkpoints by seq, without their
// manifests (a manifest lists the whole workspace; a listing needs none).
// An unknown run is agent.run_not_found.
func (s *Store) Checkpoints(ctx context.Context, runID string) ([]Checkpoint, error) {
	if err := checkRunID(runID); err != nil {
		return nil, err
	}
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT id, run_id, seq, reason, files, created_ms FROM agent_checkpoints
		WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints of run %s: %w", runID, err)
	}
	defer rows.Close()
	out := []Checkpoint{}
	for rows.Next() {
		var cp Checkpoint
		var files string
		if err := rows.Scan(&cp.ID, &cp.RunID, &cp.Seq, &cp.Reason, &files, &cp.CreatedMs); err != nil {
			return nil, fmt.Errorf("list checkpoints of run %s: %w", runID, err)
		}
		cp.Files = json.RawMessage(files)
		out = append(out, cp)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list checkpoints of run %s: %w", runID, err)
	}
	if len(out) == 0 {
		if err := s.mustExist(ctx, runID); err != nil {
			return nil, err
		}
	}
	return out, nil
}
