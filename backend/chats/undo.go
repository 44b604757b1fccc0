package chats

import (
	"context"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/events"
)

// Error codes of undo and redo.
const (
	// CodeUndoNothing: the chat has nothing to undo (or redo).
	CodeUndoNothing = "undo.nothing"
	// CodeUndoUnavailable: the write to undo (or redo) is older than what
	// the change journal keeps.
	CodeUndoUnavailable = "undo.unavailable"
)

// StepResult is what Undo and Redo return: the chat revision after the
// step, the revision of the ordinary write it reverted or re-applied, and
// that write's method, so a caller can say "Undid edit".
type StepResult struct {
	Revision       int64  `json:"revision"`
	UndoneRevision *int64 `json:"undoneRevision,omitempty"`
	RedoneRevision *int64 `json:"redoneRevision,omitempty"`
	Method         string `json:"method"`
}

// Undo reverts the newest write of the chat that is not undone yet, by
// applying its journaled inverse as a new write (method "undo"), in one
// transaction with the usual events (CHAT_PATCHED, and
// CHAT_METADATA_UPDATED when metadata changed). Successive undos walk
// further back; undo and redo writes are never undone themselves.
func (s *Service) Undo(ctx context.Context, chatID string, opts WriteOptions) (*StepResult, error) {
	return s.step(ctx, chatID, methodUndo, opts)
}

// Redo re-applies the write undone last, if no ordinary write came since.
func (s *Service) Redo(ctx context.Context, chatID string, opts WriteOptions) (*StepResult, error) {
	return s.step(ctx, chatID, methodRedo, opts)
}

func (s *Service) step(ctx context.Context, chatID, action string, opts WriteOptions) (*StepResult, error) {
	var res StepResult
	rev, err := s.mutate(ctx, chatID, action, opts, func(m *mutation) error {
		plan, entry, err := s.stepTarget(ctx, m, action)
		if err != nil {
			return err
		}
		ops, check := entry.inverse, entry.ops
		if action == methodRedo {
			ops, check = entry.ops, entry.inverse
		}
		drifted, err := s.applyStep(ctx, m, ops, check)
		if err != nil {
			if ae := apperr.As(err); ae != nil {
				return stepConflict(m, action, entry, failedPath(ae, ops), 0, ae.Message)
			}
			return err
		}
		if len(drifted) > 0 {
			return stepConflict(m, action, entry, drifted, 0, "the chat changed there since, outside the journal")
		}
		if !m.changed {
			return stepConflict(m, action, entry, nil, 0, "it no longer changes anything")
		}
		// The journal entry goes in after this function returns, at the
		// next revision; the link to it is checked at commit.
		if _, err := m.tx.ExecContext(ctx, `INSERT INTO chat_undo (chat_id, revision, target) VALUES (?, ?, ?)`,
			m.chat.id, m.chat.revision+1, plan.target); err != nil {
			return fmt.Errorf("record %s: %w", action, err)
		}
		res.Method = entry.method
		target := plan.target
		payload := &events.ChatPatchedPayload{Ops: m.ops, Length: m.chat.messageCount, Method: entry.method}
		if action == methodUndo {
			res.UndoneRevision = &target
			payload.UndoneRevision = &target
		} else {
			res.RedoneRevision = &target
			payload.RedoneRevision = &target
		}
		// CHAT_PATCHED goes first: a window applies its operations, then
		// takes CHAT_METADATA_UPDATED's whole metadata as it is.
		m.emitFirst(events.ChatPatched, payload)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Revision = rev
	return &res, nil
}

// stepTarget finds what an undo or redo acts on, loads its journal entry,
// and refuses when a later write that still stands touched the same part
// of the chat.
func (s *Service) stepTarget(ctx context.Context, m *mutation, action string) (stepPlan, journalEntry, error) {
	find := planUndo
	if action == methodRedo {
		find = planRedo
	}
	plan, found, err := find(walkJournal(ctx, m.tx, m.chat.id))
	if err != nil {
		return plan, journalEntry{}, err
	}
	if !found {
		return plan, journalEntry{}, s.nothingToStep(ctx, m, action)
	}
	entry, found, err := loadEntry(ctx, m.tx, m.chat.id, plan.target)
	if ae := apperr.As(err); ae != nil {
		return plan, entry, stepConflict(m, action, journalEntry{rev: plan.target, method: entry.method}, nil, 0, "its journal entry does not validate: "+ae.Message)
	}
	if err != nil {
		return plan, entry, err
	}
	if !found {
		return plan, entry, unavailable(m, action, plan.target)
	}
	mine := regionOf(entry.ops)
	mine = append(mine, regionOf(entry.inverse)...)
	for _, h := range standing(plan.later) {
		other, found, err := loadEntry(ctx, m.tx, m.chat.id, h.rev)
		if ae := apperr.As(err); ae != nil {
			return plan, entry, stepConflict(m, action, entry, nil, h.rev, fmt.Sprintf("the journal entry of revision %d does not validate: %s", h.rev, ae.Message))
		}
		if err != nil {
			return plan, entry, err
		}
		if !found {
			continue // later entries outlive earlier ones; cannot happen
		}
		theirs := append(regionOf(other.ops), regionOf(other.inverse)...)
		if paths := mine.overlap(theirs); len(paths) > 0 {
			return plan, entry, stepConflict(m, action, entry, paths, h.rev,
				fmt.Sprintf("revision %d (%s) changed the same part of the chat later", h.rev, describeMethod(h.method)))
		}
	}
	return plan, entry, nil
}

// nothingToStep explains why no target was found: nothing was written (or
// undone), or what there was is older than the journal keeps.
func (s *Service) nothingToStep(ctx context.Context, m *mutation, action string) error {
	if action == methodUndo {
		oldest, err := oldestJournal(ctx, m.tx, m.chat.id)
		if err != nil {
			return err
		}
		if oldest > 1 {
			return unavailable(m, action, oldest-1)
		}
	}
	return apperr.New(CodeUndoNothing, "nothing to %s in chat %s", action, m.chat.uuid).
		WithDetails(map[string]any{"chatId": m.chat.uuid, "revision": m.chat.revision})
}

func unavailable(m *mutation, action string, target int64) error {
	return apperr.New(CodeUndoUnavailable, "cannot %s revision %d of chat %s: the change journal keeps only the newest %d writes and %d MiB per chat",
		action, target, m.chat.uuid, journalKeep, journalMaxBytes>>20).
		WithDetails(map[string]any{"chatId": m.chat.uuid, "revision": target})
}

// failedPath names the path of the op a patch error points at.
func failedPath(ae *apperr.Error, ops []patchOp) []string {
	if i, ok := ae.Details["op"].(int); ok && i >= 0 && i < len(ops) {
		return []string{joinPointer(ops[i].path)}
	}
	return nil
}

// stepConflict refuses an undo or redo: nothing is written.
func stepConflict(m *mutation, action string, entry journalEntry, paths []string, by int64, why string) error {
	details := map[string]any{"chatId": m.chat.uuid, "revision": entry.rev, "method": entry.method, "currentRevision": m.chat.revision}
	if paths != nil {
		details["paths"] = paths
	}
	if by != 0 {
		details["conflictingRevision"] = by
	}
	return apperr.New(apperr.CodeChatConflict, "cannot %s revision %d (%s): %s", action, entry.rev, describeMethod(entry.method), why).
		WithDetails(details)
}
