package chats

import (
	"context"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// TestCommitReplyKinds walks a reply through the kinds an agent run uses:
// a new reply, a rewrite of it, an append, a swipe, then a rewrite of the
// first swipe (which becomes active again); each commit reports the
// revision its journal entry has.
func TestCommitReplyKinds(t *testing.T) {
	t.Parallel()
	s, _ := newService(t)
	ctx := context.Background()
	id := newChat(t, s)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	commit := func(r Reply) *Committed {
		t.Helper()
		r.Started, r.Finished, r.Name = now, now, "Ava"
		c, err := s.CommitReply(ctx, id, r)
		if err != nil {
			t.Fatalf("%s: %v", r.Kind, err)
		}
		return c
	}
	first := commit(Reply{Kind: ReplyNew, Text: "Draft one."})
	if first.Index != 1 || first.SwipeID != 0 {
		t.Fatalf("new reply at %+v, want index 1 swipe 0", first)
	}
	rewritten := commit(Reply{Kind: ReplyRewrite, Target: first.ID, Text: "Draft two.", Extra: jsonx.Object{"hearth": jsonx.Raw(`{"agent":{"commitSeq":2}}`)}})
	if rewritten.Revision != first.Revision+1 {
		t.Fatalf("revisions %d then %d, want consecutive", first.Revision, rewritten.Revision)
	}
	commit(Reply{Kind: ReplyContinue, Target: first.ID, Text: " And more."})
	swiped := commit(Reply{Kind: ReplySwipe, Target: first.ID, Text: "Another take."})
	if swiped.SwipeID != 1 {
		t.Fatalf("swipe landed at %d, want 1", swiped.SwipeID)
	}
	zero := 0
	back := commit(Reply{Kind: ReplyRewrite, Target: first.ID, Swipe: &zero, Text: "Final."})
	if back.SwipeID != 0 {
		t.Fatalf("rewrite of swipe 0 left swipe %d active", back.SwipeID)
	}
	msgs, err := s.Messages(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := msgs[1]
	if got.Content != "Final." || len(got.Swipes) != 2 || got.Swipes[1] != "Another take." {
		t.Fatalf("message 1 is %q with swipes %q", got.Content, got.Swipes)
	}

	bad := 5
	_, err = s.CommitReply(ctx, id, Reply{Kind: ReplyRewrite, Target: first.ID, Swipe: &bad, Text: "x"})
	if apperr.CodeOf(err) != apperr.CodeMessageNotFound {
		t.Fatalf("rewrite of a missing swipe: %v, want %s", err, apperr.CodeMessageNotFound)
	}
	after, _ := s.Messages(ctx, id, nil)
	if after[1].Content != "Final." {
		t.Fatalf("a refused rewrite changed the message to %q", after[1].Content)
	}
}
