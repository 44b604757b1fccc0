package search

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"hearth/backend/chats"
	"hearth/backend/store"
)

// holdIndexer waits for the rig's background indexer to finish, then
// closes it, so that it stays away until releaseIndexer: the test's counts
// of queued work then stay what the writes left.
func holdIndexer(t *testing.T, r *searchRig) {
	t.Helper()
	waitIndexer(t, r)
	if err := r.idx.Close(); err != nil {
		t.Fatal(err)
	}
}

// releaseIndexer gives the rig a new, started background indexer, which
// the chat service's next writes kick (the rig forwards them to r.idx).
func releaseIndexer(t *testing.T, r *searchRig) {
	t.Helper()
	x := NewIndexer(r.db)
	x.Start()
	t.Cleanup(func() { x.Close() })
	r.idx = x
}

// queuedTexts lists the active texts of the messages queued one by one
// for a chunk rebuild, sorted.
func (r *searchRig) queuedTexts() []string {
	r.t.Helper()
	rows, err := r.db.Reader().QueryContext(context.Background(), `SELECT s.body FROM chunks_pending p JOIN chunk_source s USING (message_id) ORDER BY s.body`)
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			r.t.Fatal(err)
		}
		out = append(out, text)
	}
	return out
}

// waitIndexer waits for the rig's background indexer to finish the
// rounds kicked so far.
func waitIndexer(t *testing.T, r *searchRig) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.idx.Wait(ctx); err != nil {
		t.Fatalf("the background indexer of a small rig ran for 30 s: %v", err)
	}
}

// backlogRows counts the chunk backlogs (queuedTexts lists the messages
// queued one by one).
func (r *searchRig) backlogRows() int {
	r.t.Helper()
	var n int
	if err := r.db.Reader().QueryRowContext(context.Background(), `SELECT count(*) FROM chunks_backlog`).Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

// TestBranchChunksFromBacklog: a branch's copied messages are not queued
// one by one; one backlog row stands for them, and the next writes to the
// branch rebuild only their own rows. Messages deleted, inserted and
// appended while the backlog is unworked still end up with exactly their
// chunks, found by a search of the branch and of every chat.
func TestBranchChunksFromBacklog(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	msgs := make([]map[string]any, 1200)
	for i := range msgs {
		msgs[i] = msgBot(fmt.Sprintf("line %d of the long watch", i))
	}
	msgs[7] = msgBot("a heron at the ford")
	msgs[1100] = msgUser("a second heron")
	r.add(r.chatID, msgs...)
	r.checkIndexInSync()
	holdIndexer(t, r)

	b, err := r.chats.CreateBranch(ctx, r.chatID, 1150, chats.BranchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The source message is queued on its own: its extra gained the branch.
	if backlog := r.backlogRows(); backlog != 1 || !reflect.DeepEqual(r.queuedTexts(), []string{"line 1150 of the long watch"}) {
		t.Fatalf("after branching 1,151 messages: %d backlog rows, queued %q; want 1, the source message", backlog, r.queuedTexts())
	}
	if _, err := r.chats.DeleteMessages(ctx, b.ChatID, []int{3}, chats.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.add(b.ChatID, msgUser("an appended heron"))
	inserted, _ := json.Marshal(msgBot("an inserted heron"))
	if _, err := r.chats.Patch(ctx, b.ChatID, []json.RawMessage{json.RawMessage(`{"op":"add","path":"/messages/500","value":` + string(inserted) + `}`)}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The new rows are the backlog's too (ids past its cursor).
	want := []string{"line 1150 of the long watch"}
	if backlog := r.backlogRows(); backlog != 1 || !reflect.DeepEqual(r.queuedTexts(), want) {
		t.Fatalf("after writes to the branch: %d backlog rows, queued %q; want 1, %q", backlog, r.queuedTexts(), want)
	}

	hits, err := r.s.Search(ctx, b.ChatID, "heron", noOpts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]bool{}
	for _, h := range hits {
		got[h.Index] = true
	}
	// 7 moved to 6 (3 deleted); 1100 went to 1099 and back to 1100 (the
	// insert at 500); the append is last: 1,151 - 1 + 2 = 1,152 messages.
	for _, want := range []int{6, 500, 1100, 1151} {
		if !got[want] {
			t.Errorf("branch search for heron: %+v, missing index %d", hits, want)
		}
	}
	if len(hits) != 4 {
		t.Errorf("branch search for heron: %d hits, want 4", len(hits))
	}
	if backlog := r.backlogRows(); backlog != 0 {
		t.Errorf("a search of the branch left %d backlog rows", backlog)
	}
	all, err := r.s.SearchAll(ctx, "heron", noOpts)
	if err != nil || len(all) != 6 {
		t.Errorf("search all for heron: %d hits, %v; want 6", len(all), err)
	}
	r.checkIndexInSync()
}

// TestBacklogQueuesReusedIDs: a message whose id is below its chat's
// backlog cursor (SQLite reuses ids above the largest left once the
// largest rows are gone) is queued on its own, since the backlog will not
// reach it.
func TestBacklogQueuesReusedIDs(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("one"), msgBot("two"), msgUser("three"))
	holdIndexer(t, r)
	b, err := r.chats.CreateBranch(ctx, r.chatID, 2, chats.BranchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Work the backlog's three messages; its cursor passes them.
	var rebuilt int64
	if err := r.db.InTx(ctx, func(tx *store.Tx) error {
		rebuilt, err = rebuildBacklog(ctx, tx, 0, 10)
		return err
	}); err != nil || rebuilt != 3 {
		t.Fatalf("rebuilt %d from the backlog, %v; want 3", rebuilt, err)
	}
	if _, err := r.chats.DeleteMessages(ctx, b.ChatID, []int{1, 2}, chats.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.add(b.ChatID, msgBot("a kestrel on a reused id"))
	var id, cursor int64
	if err := r.db.Reader().QueryRowContext(ctx, `SELECT max(m.id), max(k.next_message_id) FROM messages m, chunks_backlog k`).Scan(&id, &cursor); err != nil {
		t.Fatal(err)
	}
	if id >= cursor {
		t.Fatalf("the new message has id %d, the cursor is %d: the test did not reuse an id", id, cursor)
	}
	if backlog := r.backlogRows(); backlog != 1 || !slices.Contains(r.queuedTexts(), "a kestrel on a reused id") {
		t.Fatalf("%d backlog rows, queued %q after the write; want 1, the new message among them", backlog, r.queuedTexts())
	}
	hits, err := r.s.Search(ctx, b.ChatID, "kestrel", noOpts)
	if err != nil || len(hits) != 1 || hits[0].Index != 1 {
		t.Fatalf("branch search for the message on a reused id: %+v, %v", hits, err)
	}
	r.checkIndexInSync()
}
