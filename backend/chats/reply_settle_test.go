package chats

import (
	"context"
	"errors"
	"testing"
	"time"

	"hearth/backend/store"
)

// TestCommitReplySettle: Reply.Settle runs in the reply's transaction
// with where the reply landed, for a new reply and for a swipe; its
// error rolls the reply back, so what it writes and the reply commit
// together or not at all (a generation's record, see generate).
func TestCommitReplySettle(t *testing.T) {
	t.Parallel()
	s, _ := newService(t)
	ctx := context.Background()
	id := newChat(t, s)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var seen []Committed
	settle := func(ctx context.Context, tx *store.Tx, at Committed) error {
		// The reply is in the transaction already.
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE uuid = ?`, at.ID).Scan(&n); err != nil {
			return err
		}
		if n != 1 {
			return errors.New("the reply is not in the transaction")
		}
		seen = append(seen, at)
		return nil
	}
	first, err := s.CommitReply(ctx, id, Reply{Kind: ReplyNew, Name: "Ava", Text: "One.", Started: now, Finished: now, Settle: settle})
	if err != nil {
		t.Fatal(err)
	}
	swiped, err := s.CommitReply(ctx, id, Reply{Kind: ReplySwipe, Target: first.ID, Name: "Ava", Text: "Two.", Started: now, Finished: now, Settle: settle})
	if err != nil {
		t.Fatal(err)
	}
	want := []Committed{{ID: first.ID, Index: first.Index}, {ID: first.ID, Index: first.Index, SwipeID: swiped.SwipeID}}
	if len(seen) != 2 || seen[0] != want[0] || seen[1] != want[1] {
		t.Fatalf("Settle saw %+v, want %+v", seen, want)
	}

	before, err := s.Count(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	_, err = s.CommitReply(ctx, id, Reply{Kind: ReplyNew, Name: "Ava", Text: "Three.", Started: now, Finished: now,
		Settle: func(context.Context, *store.Tx, Committed) error { return boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("a failing Settle: %v", err)
	}
	after, err := s.Count(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("a reply whose Settle failed landed: %d messages, %d before", after, before)
	}
}
