package chats

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"hearth/backend/jsonx"
)

// bodyCounts reads how many body and swipe rows exist in the database.
func (r *chatRig) bodyCounts() (bodies, swipes int) {
	r.t.Helper()
	err := r.db.Reader().QueryRowContext(context.Background(),
		`SELECT (SELECT count(*) FROM message_bodies), (SELECT count(*) FROM message_swipes)`).Scan(&bodies, &swipes)
	if err != nil {
		r.t.Fatal(err)
	}
	return bodies, swipes
}

// stMessages reads a chat's messages as SillyTavern objects, ids dropped
// (a branch's copies have their own).
func (r *chatRig) stMessages(chatID string) []map[string]any {
	r.t.Helper()
	raw, err := r.s.StMessagesJSON(context.Background(), chatID, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		r.t.Fatal(err)
	}
	for _, m := range out {
		delete(m, "id")
	}
	return out
}

// TestBranchSharesBodies checks copy-on-write: a branch adds message rows
// and copies one body, the source message that records the branch in
// extra.branches; each write to a shared body copies that one
// body first; neither chat sees the other's writes; deleting either chat
// frees exactly the bodies no other message points at.
func TestBranchSharesBodies(t *testing.T) {
	t.Parallel()
	r := newChatRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("one"), msgBot("two"), msgUser("three"), msgBot("four"))
	if _, err := r.s.AddSwipe(ctx, r.chatID, 2, "three, again", false, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	bodies0, swipes0 := r.bodyCounts()
	before := r.stMessages(r.chatID)

	br, err := r.s.CreateBranch(ctx, r.chatID, 3, BranchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, s := r.bodyCounts(); b != bodies0+1 || s != swipes0+1 {
		t.Fatalf("branch wrote bodies: %d bodies, %d swipes; want %d, %d", b, s, bodies0+1, swipes0+1)
	}
	before[3]["extra"].(map[string]any)["branches"] = []any{br.FileName}
	if got := r.stMessages(r.chatID); !reflect.DeepEqual(got, before) {
		t.Fatalf("source reads\n%v\nwant\n%v", got, before)
	}
	copied := r.stMessages(br.ChatID)
	delete(before[3]["extra"].(map[string]any), "branches")
	if !reflect.DeepEqual(copied, before[:4]) {
		t.Fatalf("branch reads\n%v\nwant\n%v", copied, before[:4])
	}
	before = r.stMessages(r.chatID)

	// Writes to the branch: an edit, a swipe chosen, a swipe added. Each
	// copies the one body it touches, once.
	if err := r.s.UpdateMessages(ctx, br.ChatID, []Update{{Index: 1, Patch: jsonx.Object{"mes": jsonx.Raw("two, edited")}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.s.Swipe(ctx, br.ChatID, 2, SwipeTarget{To: new(1)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.s.AddSwipe(ctx, br.ChatID, 2, "three, third take", false, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.s.UpdateMessages(ctx, br.ChatID, []Update{{Index: 1, Patch: jsonx.Object{"mes": jsonx.Raw("two, edited twice")}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, s := r.bodyCounts(); b != bodies0+3 || s != swipes0+1+1+3 {
		t.Fatalf("after writing two branch messages: %d bodies, %d swipes; want %d, %d", b, s, bodies0+3, swipes0+5)
	}
	if got := r.stMessages(r.chatID); !reflect.DeepEqual(got, before) {
		t.Fatalf("the source changed with its branch:\n%v\nwant\n%v", got, before)
	}
	branch := r.stMessages(br.ChatID)
	if branch[1]["mes"] != "two, edited twice" || branch[2]["mes"] != "three, again" || len(branch[2]["swipes"].([]any)) != 3 {
		t.Fatalf("branch after its writes: %v", branch)
	}

	// Writes to the source reach only the source.
	if err := r.s.UpdateMessages(ctx, r.chatID, []Update{{Index: 0, Patch: jsonx.Object{"mes": jsonx.Raw("one, in the source")}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := r.stMessages(br.ChatID)[0]["mes"]; got != "one" {
		t.Fatalf("branch message 0 = %v after the source's edit", got)
	}
	r.expect("source", noOpts, 0)

	// Deleting the source's shared message leaves the branch's copy alone.
	if _, err := r.s.DeleteMessages(ctx, r.chatID, []int{3}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := r.stMessages(br.ChatID)[3]["mes"]; got != "four" {
		t.Fatalf("branch message 3 = %v after the source deleted its own", got)
	}

	// Deleting the source frees its own bodies and the ones only it held;
	// deleting the branch then frees the rest.
	if err := r.s.Delete(ctx, r.chatID); err != nil {
		t.Fatal(err)
	}
	if got := r.stMessages(br.ChatID); !reflect.DeepEqual(got, branch) {
		t.Fatalf("branch after its source was deleted:\n%v\nwant\n%v", got, branch)
	}
	if b, _ := r.bodyCounts(); b != 4 {
		t.Fatalf("%d bodies left with only the 4-message branch", b)
	}
	if err := r.s.Delete(ctx, br.ChatID); err != nil {
		t.Fatal(err)
	}
	if b, s := r.bodyCounts(); b != 0 || s != 0 {
		t.Fatalf("%d bodies, %d swipes left with no messages", b, s)
	}
}

// TestBranchNavigatedCopiesOneBody branches at a swipe: the message moved
// to the other swipe gets its own body, the rest stay shared.
func TestBranchNavigatedCopiesOneBody(t *testing.T) {
	t.Parallel()
	r := newChatRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("one"), msgBot("two"))
	if _, err := r.s.AddSwipe(ctx, r.chatID, 1, "two, again", false, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	bodies0, _ := r.bodyCounts()
	br, err := r.s.CreateBranch(ctx, r.chatID, 1, BranchOptions{SwipeID: new(1)})
	if err != nil {
		t.Fatal(err)
	}
	// The branch's message moves to a copy; the source's link then writes
	// the body no one else holds any more.
	if b, _ := r.bodyCounts(); b != bodies0+1 {
		t.Fatalf("%d bodies after a branch at a swipe; want %d", b, bodies0+1)
	}
	if got := r.stMessages(br.ChatID)[1]["mes"]; got != "two, again" {
		t.Fatalf("branch at swipe 1 shows %v", got)
	}
	if got := r.stMessages(r.chatID)[1]["mes"]; got != "two" {
		t.Fatalf("source shows %v after the branch at swipe 1", got)
	}
}

// TestBranchMessageIDs checks a copy's message ids: UUIDv7, new, and in
// index order within the copy, for two copies made in the same instant.
func TestBranchMessageIDs(t *testing.T) {
	t.Parallel()
	r := newChatRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("one"), msgBot("two"), msgUser("three"))
	seen := map[string]bool{}
	for _, id := range r.ids() {
		seen[id] = true
	}
	for range 2 {
		br, err := r.s.CreateBranch(ctx, r.chatID, 2, BranchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := r.s.StMessages(ctx, br.ChatID, nil)
		if err != nil {
			t.Fatal(err)
		}
		prev := ""
		for i, m := range msgs {
			u, err := uuid.Parse(m.ID)
			if err != nil || u.Version() != 7 || u.String() != m.ID {
				t.Fatalf("copy %d has id %q (%v)", i, m.ID, err)
			}
			if seen[m.ID] || m.ID <= prev {
				t.Fatalf("copy %d id %q: reused, or not after %q", i, m.ID, prev)
			}
			seen[m.ID], prev = true, m.ID
		}
	}
}
