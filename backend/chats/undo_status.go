package chats

import (
	"context"
	"database/sql"
	"fmt"
)

// UndoTarget is the ordinary write an undo or a redo would act on next:
// its revision and its method ("deleteMessages", "commitReply", …).
type UndoTarget struct {
	Revision int64  `json:"revision"`
	Method   string `json:"method"`
}

// UndoStatus says, without changing anything, what Undo and Redo would act
// on next (nil: nothing), so a window can enable its Undo and Redo and say
// what they would take back before anyone presses them. Revision is the
// chat's revision the answer holds for. A step can still be refused when
// it is taken (chat.conflict: the chat changed outside its journal), which
// only the step itself checks.
type UndoStatus struct {
	Revision int64       `json:"revision"`
	Undo     *UndoTarget `json:"undo"`
	Redo     *UndoTarget `json:"redo"`
}

// UndoStatus reads what the chat's next undo and redo would act on, from
// one snapshot of its journal.
func (s *Service) UndoStatus(ctx context.Context, chatID string) (*UndoStatus, error) {
	var st UndoStatus
	err := s.readSnapshot(ctx, chatID, func(q queryer, c *chatRow) error {
		st.Revision = c.revision
		var err error
		if st.Undo, err = nextTarget(ctx, q, c.id, planUndo); err != nil {
			return err
		}
		st.Redo, err = nextTarget(ctx, q, c.id, planRedo)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &st, nil
}

// nextTarget runs find over the chat's journal and names the write it
// found, or nil when there is none, or when that write's own entry is
// older than the journal keeps (the step would be undo.unavailable).
func nextTarget(ctx context.Context, q queryer, chatID int64, find func(func(func(journalHead) bool) error) (stepPlan, bool, error)) (*UndoTarget, error) {
	plan, found, err := find(walkJournal(ctx, q, chatID))
	if err != nil || !found {
		return nil, err
	}
	t := &UndoTarget{Revision: plan.target}
	err = q.QueryRowContext(ctx, `SELECT method FROM chat_journal WHERE chat_id = ? AND revision = ?`, chatID, plan.target).Scan(&t.Method)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal entry %d: %w", plan.target, err)
	}
	return t, nil
}
