package chats

import (
	"context"
)

// afterWrite records what a write did to message rows, so that the data
// derived from messages is settled inside the same transaction, before any
// event goes out.
type afterWrite struct {
	// structural is set when a message was removed or moved, or changed its
	// active swipe or its swipe count: floor states must be replayed.
	structural bool
	// swipesRemoved lists single swipes deleted (their floor commits go,
	// later swipe ids on that message shift down).
	swipesRemoved []swipeRemoval
	// touched holds the rows inserted or rewritten (their search chunks are
	// rebuilt unless skipChunks).
	touched map[int64]bool
	// skipChunks defers the chunk rebuild (updateMessage's skipChunkRebuild).
	skipChunks bool
}

// swipeRemoval names one deleted swipe of one message row.
type swipeRemoval struct {
	rowID int64
	swipe int
}

func (a *afterWrite) touch(rowID int64) {
	if a.touched == nil {
		a.touched = map[int64]bool{}
	}
	a.touched[rowID] = true
}

// insertRow stores msg at index as a new row and records it.
func (m *mutation) insertRow(ctx context.Context, index int, msg *StMessage) (int64, error) {
	rowID, err := insertMessage(ctx, m.tx, m.chat.id, index, msg)
	if err != nil {
		return 0, err
	}
	m.after.touch(rowID)
	return rowID, nil
}

// rewriteRow stores next over prev and records what kind of change it was.
func (m *mutation) rewriteRow(ctx context.Context, rowID int64, prev, next *StMessage) error {
	if err := rewriteMessage(ctx, m.tx, rowID, prev, next); err != nil {
		return err
	}
	if prev.SwipeID != next.SwipeID || len(prev.Swipes) != len(next.Swipes) {
		m.after.structural = true
	}
	m.after.touch(rowID)
	return nil
}

// settle brings derived data in line with the write, inside its transaction.
func (s *Service) settle(ctx context.Context, m *mutation) error {
	return nil
}
