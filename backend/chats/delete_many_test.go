package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// TestDeleteManyMessages: one call deletes a long run and scattered
// messages (read a run of nearby ones per query, removed in batches under
// SQLite's parameter limit, renumbered band by band). It returns the
// deleted messages in the order asked, keeps the rest in order, and undo
// brings them all back.
func TestDeleteManyMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newService(t)
	id := newChat(t, s)
	raws := make([]json.RawMessage, 1300)
	for i := range raws {
		raws[i] = json.RawMessage(fmt.Sprintf(`{"name":"User","is_user":true,"mes":"m%d"}`, i+1))
	}
	if _, err := s.AddMessages(ctx, id, raws, WriteOptions{Silent: true}); err != nil {
		t.Fatal(err)
	}
	before, err := s.StMessages(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := document(t, s, id)
	// A run of 1,100 (three delete batches), neighbours close enough to
	// be read with it, and ones far apart; asked for out of order.
	indexes := []int{1200, 1020, 3}
	for i := 100; i < 1200; i++ {
		if i != 1020 && i != 1200 {
			indexes = append(indexes, i)
		}
	}
	indexes = append(indexes, 1203, 1299, 1250)
	got, err := s.DeleteMessages(ctx, id, indexes, DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(indexes) {
		t.Fatalf("%d messages returned for %d indexes", len(got), len(indexes))
	}
	for i, idx := range indexes {
		if got[i].ID != before[idx].ID || got[i].Mes() != before[idx].Mes() {
			t.Fatalf("returned message %d is %s %q, want message %d (%s %q)", i, got[i].ID, got[i].Mes(), idx, before[idx].ID, before[idx].Mes())
		}
	}
	after, err := s.StMessages(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want, left []string
	for i, m := range before {
		if !slices.Contains(indexes, i) {
			want = append(want, m.ID)
		}
	}
	for _, m := range after {
		left = append(left, m.ID)
	}
	if !slices.Equal(left, want) {
		t.Fatalf("%d messages left, want %d in their order", len(left), len(want))
	}
	if _, err := s.Undo(ctx, id, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, document(t, s, id), doc) {
		t.Fatal("undo did not bring the deleted messages back as they were")
	}
}
