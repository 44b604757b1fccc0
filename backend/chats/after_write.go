package chats

import (
	"context"

	"hearth/backend/state"
)

// afterWrite records what a write did to message rows, so that the data
// derived from messages is settled inside the same transaction, before any
// event goes out.
type afterWrite struct {
	// structural is set when messages were removed or moved: floor states
	// that lost commits with them must be replayed.
	structural bool
	// swipesRemoved lists single swipes deleted (their floor commits go,
	// later swipe ids on that message shift down).
	swipesRemoved []state.SwipeRemoval
	// swipeMoved lists rows whose active swipe or swipe list changed.
	swipeMoved []int64
	// skipChunks defers the chunk rebuild (updateMessage's skipChunkRebuild).
	skipChunks bool
}

// insertRow stores msg at position pos (free) as a new row.
func (m *mutation) insertRow(ctx context.Context, pos int, msg *StMessage) (int64, error) {
	rowID, err := insertMessage(ctx, m.tx, m.chat.id, pos, msg)
	if err != nil {
		return 0, err
	}
	return rowID, nil
}

// appendRow stores msg after the chat's last message.
func (m *mutation) appendRow(ctx context.Context, msg *StMessage) (int64, error) {
	return m.insertRow(ctx, m.chat.gaps.Top(m.chat.messageCount), msg)
}

// rewriteRow stores next over prev and records what kind of change it was.
func (m *mutation) rewriteRow(ctx context.Context, rowID int64, prev, next *StMessage) error {
	if err := rewriteMessage(ctx, m.tx, rowID, prev, next); err != nil {
		return err
	}
	if prev.SwipeID != next.SwipeID || len(prev.Swipes) != len(next.Swipes) {
		m.after.swipeMoved = append(m.after.swipeMoved, rowID)
	}
	return nil
}

// settle brings derived data in line with the write, inside its
// transaction: floor states replayed (their CHAT_STATE_CHANGED events go
// out before the write's own, unless it is silent).
func (s *Service) settle(ctx context.Context, m *mutation, silent bool) error {
	a := &m.after
	if err := s.rebuildChunks(ctx, m); err != nil {
		return err
	}
	if a.structural || len(a.swipesRemoved) > 0 || len(a.swipeMoved) > 0 {
		evs, err := state.Settle(ctx, m.tx, m.chat.id, m.chat.uuid, state.Change{SwipesRemoved: a.swipesRemoved, SwipeMoved: a.swipeMoved})
		if err != nil {
			return err
		}
		if !silent && len(evs) > 0 {
			m.tx.AfterCommit(func() {
				for _, e := range evs {
					s.bus.Publish(e)
				}
			})
		}
	}
	return nil
}
