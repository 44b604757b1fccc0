package chats

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// TestUndoRandomHistory drives random writes, undos and redos against a
// model editor (a stack of chat documents and a redo stack) and checks the
// chat against the model after every step.
func TestUndoRandomHistory(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := newUndoRig(t)
			rnd := rand.New(rand.NewPCG(seed, 7))
			done := []string{r.doc()}
			var undone []string
			count := func() int { n, _ := r.s.Count(r.ctx, r.id); return n }
			for step := range 120 {
				n := count()
				var err error
				what := rnd.IntN(10)
				switch {
				case what < 3 && len(done) > 1:
					r.undo()
					undone = append(undone, done[len(done)-1])
					done = done[:len(done)-1]
				case what < 5 && len(undone) > 0:
					r.redo()
					done = append(done, undone[len(undone)-1])
					undone = undone[:len(undone)-1]
				default:
					i, kind := 0, 0 // an empty chat can only grow
					if n > 0 {
						i, kind = rnd.IntN(n), rnd.IntN(6)
					}
					switch kind {
					case 0:
						_, err = r.s.AddMessages(r.ctx, r.id, []json.RawMessage{raw(fmt.Sprintf(`{"mes":"m%d","swipes":["m%d","alt"]}`, step, step))}, WriteOptions{})
					case 1:
						err = r.s.UpdateMessages(r.ctx, r.id, []Update{{Index: i, Patch: jsonx.Object{"mes": raw(fmt.Sprintf(`"e%d"`, step))}}}, WriteOptions{})
					case 2:
						if n > 1 {
							_, err = r.s.DeleteMessages(r.ctx, r.id, []int{i, rnd.IntN(n)}[:1+rnd.IntN(2)], DeleteOptions{})
						} else {
							_, err = r.s.AddSwipe(r.ctx, r.id, i, "s", true, WriteOptions{})
						}
					case 3:
						_, err = r.s.AddSwipe(r.ctx, r.id, i, fmt.Sprintf("s%d", step), rnd.IntN(2) == 0, WriteOptions{})
					case 4:
						_, err = r.s.SaveMetadata(r.ctx, r.id, jsonx.Object{fmt.Sprintf("k%d", rnd.IntN(3)): raw(fmt.Sprint(step))}, WriteOptions{})
					default:
						msgs, _ := r.s.StMessages(r.ctx, r.id, nil)
						if len(msgs[i].Swipes) > 1 {
							_, _, err = r.s.DeleteSwipe(r.ctx, r.id, i, rnd.IntN(len(msgs[i].Swipes)), WriteOptions{})
						} else {
							err = r.s.UpdateMessages(r.ctx, r.id, []Update{{Index: i, Patch: jsonx.Object{"is_system": raw(`true`)}}}, WriteOptions{})
						}
					}
					if ae := apperr.As(err); ae != nil && ae.Code == apperr.CodeInvalidArgument {
						continue // a batch naming one index twice
					}
					if err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
					if doc := r.doc(); doc != done[len(done)-1] {
						done = append(done, doc)
						undone = nil
					}
				}
				if !r.is(done[len(done)-1]) {
					t.Fatalf("step %d: the chat is not the model's:\ngot  %s\nwant %s", step, r.doc(), done[len(done)-1])
				}
			}
		})
	}
}

// TestDeleteAfterRowsMovedBack: rows put back in the middle (an undo of a
// deletion, a patch that moves messages) no longer follow idx in row-id
// order; closing the gaps a delete before them left (as a delete past
// msgorder.MaxGaps does) must still renumber the rest.
func TestDeleteAfterRowsMovedBack(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	if _, err := r.s.DeleteMessages(r.ctx, r.id, []int{2}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.undo()
	if _, err := r.s.Patch(r.ctx, r.id, []json.RawMessage{raw(`{"op":"move","from":"/messages/5","path":"/messages/1"}`)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := r.s.StMessages(r.ctx, r.id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.s.DeleteMessages(r.ctx, r.id, []int{0, 3}, DeleteOptions{}); err != nil {
		t.Fatalf("delete after rows moved back: %v", err)
	}
	err = r.s.db.InTx(r.ctx, func(tx *store.Tx) error {
		c, err := loadChat(r.ctx, tx, r.id)
		if err != nil {
			return err
		}
		if len(c.gaps) != 2 {
			return fmt.Errorf("gaps %v, want the two the delete left", c.gaps)
		}
		return densify(r.ctx, tx, c)
	})
	if err != nil {
		t.Fatalf("close the gaps: %v", err)
	}
	after, err := r.s.StMessages(r.ctx, r.id, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for i, m := range before {
		if i != 0 && i != 3 {
			want = append(want, m.ID)
		}
	}
	for _, m := range after {
		got = append(got, m.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages after the delete %v, want %v", got, want)
	}
}
