package state

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/internal/msgorder"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// MaxFloorOps bounds one floor-state patch.
const MaxFloorOps = 10000

// FloorOptions pin a commit to a floor (message index) and swipe instead of
// the chat's tail and its active swipe, and guard it with the namespace's
// revision as read.
type FloorOptions struct {
	Floor      *int   `json:"floor"`
	SwipeID    *int   `json:"swipeId"`
	IfRevision *int64 `json:"ifRevision"`
}

// FloorWrite reports a floor-state write.
type FloorWrite struct {
	// Written is false when the change was empty (nothing committed).
	Written bool `json:"written"`
	// Revision is the namespace's revision afterwards.
	Revision int64 `json:"revision"`
	// Seq is the new commit's place in the log (0 when nothing was written).
	Seq int64 `json:"seq"`
}

// FloorUpdate commits the difference between the namespace's materialized
// value and next (a JSON object), computed as RFC 6902 operations.
func (s *Service) FloorUpdate(ctx context.Context, chatID, ns string, next json.RawMessage, opts FloorOptions) (*FloorWrite, error) {
	val, err := normalize(next, "the next state")
	if err != nil {
		return nil, err
	}
	if !isObject(val) {
		return nil, apperr.Invalid("the next state must be a plain object")
	}
	return s.floorWrite(ctx, chatID, ns, opts, func(cur []byte) ([]byte, []byte, error) {
		ops, err := jsonx.Diff(cur, val)
		if err != nil {
			return nil, nil, fmt.Errorf("floor diff: %w", err)
		}
		if len(ops) == 0 {
			return nil, nil, nil
		}
		raw, err := json.Marshal(ops)
		if err != nil {
			return nil, nil, fmt.Errorf("floor diff: %w", err)
		}
		// Store what replay would build, so a later replay to the same
		// state compares equal byte for byte.
		out, ok := applyOps(cur, raw)
		if !ok {
			return nil, nil, fmt.Errorf("floor diff of %s does not apply to its own base", ns)
		}
		out, err = canonical(out)
		return raw, out, err
	})
}

// strictPatch reads array indexes as RFC 6901 does (the library's default
// takes -1 for the last element) and bounds what copy ops may add. It holds
// for ops on their way in; stored commits replay with the default, so a
// log written before still replays.
var strictPatch = func() *jsonpatch.ApplyOptions {
	o := jsonpatch.NewApplyOptions()
	o.SupportNegativeIndices = false
	o.AccumulatedCopySizeLimit = jsonx.MaxCopyBytes
	return o
}()

// FloorPatch commits ops, which must apply to the materialized value as it
// is (patch.invalid otherwise) and leave an object.
func (s *Service) FloorPatch(ctx context.Context, chatID, ns string, ops json.RawMessage, opts FloorOptions) (*FloorWrite, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(ops, &list); err != nil {
		return nil, apperr.Invalid("ops must be an array of RFC 6902 operations")
	}
	if len(list) > MaxFloorOps {
		return nil, apperr.New(apperr.CodeTooMany, "at most %d operations per floor-state patch", MaxFloorOps)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, ops); err != nil {
		return nil, apperr.Invalid("ops must be JSON: %v", err)
	}
	patch, err := jsonpatch.DecodePatch(compact.Bytes())
	if err != nil {
		return nil, apperr.New(apperr.CodePatchInvalid, "ops are not RFC 6902 operations: %v", err)
	}
	return s.floorWrite(ctx, chatID, ns, opts, func(cur []byte) ([]byte, []byte, error) {
		if len(list) == 0 {
			return nil, nil, nil
		}
		out, err := jsonx.ApplyPatch(cur, patch, strictPatch)
		if err != nil {
			return nil, nil, apperr.New(apperr.CodePatchInvalid, "ops do not apply to the current state: %v", err)
		}
		if !isObject(out) {
			return nil, nil, apperr.New(apperr.CodePatchInvalid, "ops must leave the state a plain object")
		}
		out, err = canonical(out)
		return compact.Bytes(), out, err
	})
}

// floorWrite runs one commit: diff(current) returns the operations and the
// value they lead to, or nil operations for "no change".
func (s *Service) floorWrite(ctx context.Context, chatID, ns string, opts FloorOptions, diff func(cur []byte) ([]byte, []byte, error)) (*FloorWrite, error) {
	if err := checkWritable(ns); err != nil {
		return nil, err
	}
	out := &FloorWrite{}
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		chat, err := chatRow(ctx, tx, chatID)
		if err != nil {
			return err
		}
		row, swipe, active, err := floorTarget(ctx, tx, chat, opts)
		if err != nil {
			return err
		}
		meta, err := readFloorMeta(ctx, tx, chat, ns)
		if err != nil {
			return err
		}
		st, err := readStored(ctx, tx, chat, ns)
		if err != nil {
			return err
		}
		if err := checkRevision(ns, opts.IfRevision, st); err != nil {
			return err
		}
		cur := emptyState
		if meta != nil && st.exists() {
			cur = st.value
		}
		ops, next, err := diff(cur)
		out.Revision = st.current()
		if err != nil || ops == nil {
			return err
		}
		if meta == nil {
			meta = &floorMeta{nextSeq: 1}
			if _, err := tx.ExecContext(ctx, `INSERT INTO floor_states (chat_id, ns, next_seq, log_rev) VALUES (?, ?, 1, 0)`, chat, ns); err != nil {
				return fmt.Errorf("create floor state %s: %w", ns, err)
			}
		}
		seq := meta.nextSeq
		if err := appendCommit(ctx, tx, chat, ns, seq, row, swipe, ops); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE floor_states SET next_seq = ?, log_rev = log_rev + 1 WHERE chat_id = ? AND ns = ?`, seq+1, chat, ns); err != nil {
			return fmt.Errorf("append floor commit %s: %w", ns, err)
		}
		value := cur // a commit on an inactive swipe waits in the log
		if swipe == active {
			value = next
		}
		out.Written, out.Seq = true, seq
		if st.exists() && meta.logRev > 0 && bytes.Equal(st.value, value) {
			return nil
		}
		if out.Revision, err = writeStored(ctx, tx, chat, ns, value, st); err != nil {
			return err
		}
		s.publishAfter(tx, []events.Event{changed(chatID, ns, out.Revision, false)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// floorTarget resolves a commit's message row and swipe: the chat's last
// message and its active swipe unless opts pin them. It also returns the
// active swipe of that message.
func floorTarget(ctx context.Context, q queryer, chat int64, opts FloorOptions) (row int64, swipe, active int, err error) {
	var count int
	var raw []byte
	if err := q.QueryRowContext(ctx, `SELECT message_count, idx_gaps FROM chats WHERE id = ?`, chat).Scan(&count, &raw); err != nil {
		return 0, 0, 0, fmt.Errorf("floor target: %w", err)
	}
	gaps, err := msgorder.Decode(raw)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("floor target: chat %d: %w", chat, err)
	}
	floor := count - 1
	if opts.Floor != nil {
		floor = *opts.Floor
	}
	if count == 0 || floor < 0 || floor >= count {
		return 0, 0, 0, apperr.New(apperr.CodeIndexOutOfRange, "floor %d is not a message of this chat (it has %d)", floor, count).
			WithDetails(map[string]any{"floor": floor, "length": count})
	}
	err = q.QueryRowContext(ctx, `SELECT m.id, b.swipe_id FROM messages m JOIN message_bodies b ON b.id = m.body_id
		WHERE m.chat_id = ? AND m.idx = ?`, chat, gaps.Pos(floor)).Scan(&row, &active)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, 0, fmt.Errorf("floor target: no row at index %d", floor)
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("floor target: %w", err)
	}
	swipe = active
	if opts.SwipeID != nil {
		if *opts.SwipeID < 0 {
			return 0, 0, 0, apperr.New(apperr.CodeSwipeOutOfRange, "swipeId must be 0 or more, not %d", *opts.SwipeID)
		}
		swipe = *opts.SwipeID
	}
	return row, swipe, active, nil
}

// FloorRead is what a floor-state instance reads before running a reducer.
type FloorRead struct {
	// Value is the materialized state: null when the log has no commits,
	// {} when none of them is on an active swipe.
	Value json.RawMessage `json:"value"`
	// Revision is the namespace's revision, for the write's ifRevision.
	Revision int64 `json:"revision"`
}

// FloorGet reads a floor state as its instance's get() returns it.
func (s *Service) FloorGet(ctx context.Context, chatID, ns string) (*FloorRead, error) {
	if err := checkNamespace(ns); err != nil {
		return nil, err
	}
	out := &FloorRead{Value: json.RawMessage("null")}
	err := s.read(ctx, func(q queryer) error {
		chat, err := chatRow(ctx, q, chatID)
		if err != nil {
			return err
		}
		st, err := readStored(ctx, q, chat, ns)
		if err != nil {
			return err
		}
		out.Revision = st.current()
		var commits int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM floor_commits WHERE chat_id = ? AND ns = ?`, chat, ns).Scan(&commits); err != nil {
			return fmt.Errorf("read floor state %s: %w", ns, err)
		}
		switch {
		case commits == 0:
		case st.exists():
			out.Value = st.value
		default:
			out.Value = emptyState
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
