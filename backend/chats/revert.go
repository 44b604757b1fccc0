package chats

import (
	"context"
	"fmt"
	"slices"

	"hearth/backend/apperr"
	"hearth/backend/events"
)

// methodRevert journals a revert of chosen writes.
const methodRevert = "revert"

// maxRevert bounds how many writes one revert takes back.
const maxRevert = 1000

// RevertResult is RevertRevisions' answer.
type RevertResult struct {
	// Revision is the chat's revision after the revert.
	Revision int64 `json:"revision"`
	// Reverted lists the revisions taken back, newest first.
	Reverted []int64 `json:"reverted"`
}

// RevertRevisions takes back the writes that made the given revisions of
// a chat (an agent run's commits, for a rollback), newest first, in one
// transaction, by applying their inverses from the change journal. It
// refuses with chat.conflict, changing nothing, when a later write that is
// not among them touched the same messages, or when the chat drifted
// there outside the journal. The revert is itself an ordinary write:
// chat.undo takes it back.
func (s *Service) RevertRevisions(ctx context.Context, chatID string, revisions []int64, opts WriteOptions) (*RevertResult, error) {
	if len(revisions) == 0 || len(revisions) > maxRevert {
		return nil, apperr.Invalid("name 1 to %d revisions to revert", maxRevert)
	}
	targets := slices.Clone(revisions)
	slices.Sort(targets)
	targets = slices.Compact(targets)
	slices.Reverse(targets)
	mine := map[int64]bool{}
	for _, r := range targets {
		mine[r] = true
	}
	res := &RevertResult{Reverted: targets}
	rev, err := s.mutate(ctx, chatID, methodRevert, opts, func(m *mutation) error {
		var later []journalHead
		oldest := targets[len(targets)-1]
		err := walkJournal(ctx, m.tx, m.chat.id)(func(h journalHead) bool {
			if h.rev <= oldest {
				return false
			}
			if !mine[h.rev] {
				later = append(later, h)
			}
			return true
		})
		if err != nil {
			return err
		}
		for _, target := range targets {
			if err := s.revertOne(ctx, m, target, later); err != nil {
				return err
			}
		}
		if !m.changed {
			return apperr.New(apperr.CodeChatConflict, "reverting revisions %v of chat %s changes nothing", targets, m.chat.uuid)
		}
		m.emitFirst(events.ChatPatched, &events.ChatPatchedPayload{Ops: m.ops, Length: m.chat.messageCount, Method: methodRevert, RevertedRevisions: targets})
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Revision = rev
	return res, nil
}

// revertOne applies the inverse of revision target inside m, after
// checking that no later write outside the set touched the same part.
func (s *Service) revertOne(ctx context.Context, m *mutation, target int64, later []journalHead) error {
	entry, found, err := loadEntry(ctx, m.tx, m.chat.id, target)
	if err != nil {
		return err
	}
	if !found {
		return unavailable(m, methodRevert, target)
	}
	mineRegion := append(regionOf(entry.ops), regionOf(entry.inverse)...)
	for _, h := range standing(later) {
		if h.rev <= target {
			continue
		}
		other, found, err := loadEntry(ctx, m.tx, m.chat.id, h.rev)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		theirs := append(regionOf(other.ops), regionOf(other.inverse)...)
		if paths := mineRegion.overlap(theirs); len(paths) > 0 {
			return stepConflict(m, methodRevert, entry, paths, h.rev,
				fmt.Sprintf("revision %d (%s) changed the same part of the chat later", h.rev, describeMethod(h.method)))
		}
	}
	drifted, err := s.applyStep(ctx, m, entry.inverse, entry.ops)
	if err != nil {
		if ae := apperr.As(err); ae != nil {
			return stepConflict(m, methodRevert, entry, failedPath(ae, entry.inverse), 0, ae.Message)
		}
		return err
	}
	if len(drifted) > 0 {
		return stepConflict(m, methodRevert, entry, drifted, 0, "the chat changed there since, outside the journal")
	}
	return nil
}
