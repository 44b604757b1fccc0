package chats

import (
	"reflect"
	"testing"

	"hearth/backend/apperr"
)

// TestUndoStatusFollowsTheHistory: the status names what the next undo and
// redo act on, through writes, undos, redos and a write that empties the
// redo stack, and each step then acts on exactly what it named. Reading
// it writes nothing and sends nothing.
func TestUndoStatusFollowsTheHistory(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t) // its writes: addMessages (revision 1), saveMetadata (2)
	status := func() UndoStatus {
		t.Helper()
		st, err := r.s.UndoStatus(r.ctx, r.id)
		if err != nil {
			t.Fatal(err)
		}
		return *st
	}
	target := func(rev int64, method string) *UndoTarget { return &UndoTarget{Revision: rev, Method: method} }
	want := func(what string, got UndoStatus, undo, redo *UndoTarget) {
		t.Helper()
		if w := (UndoStatus{Revision: r.revision(), Undo: undo, Redo: redo}); !reflect.DeepEqual(got, w) {
			t.Fatalf("%s: status %+v (undo %+v, redo %+v), want undo %+v, redo %+v", what, got, got.Undo, got.Redo, undo, redo)
		}
	}
	base := r.revision()
	want("after the rig's writes", status(), target(base, "saveMetadata"), nil)

	if _, err := r.s.DeleteMessages(r.ctx, r.id, []int{2}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deleted := r.revision()
	want("after a delete", status(), target(deleted, "deleteMessages"), nil)
	if len(r.events()) == 0 {
		t.Fatal("the delete sent no event")
	}

	before := r.doc()
	st := status()
	if r.doc() != before || r.revision() != deleted || len(r.events()) != 0 {
		t.Fatal("reading the status changed the chat or sent an event")
	}
	step, err := r.s.Undo(r.ctx, r.id, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *step.UndoneRevision != st.Undo.Revision || step.Method != st.Undo.Method {
		t.Fatalf("undo acted on %d (%s), the status named %+v", *step.UndoneRevision, step.Method, st.Undo)
	}
	want("after undoing the delete", status(), target(base, "saveMetadata"), target(deleted, "deleteMessages"))

	if _, err := r.s.Undo(r.ctx, r.id, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	want("after undoing twice", status(), target(base-1, "addMessages"), target(base, "saveMetadata"))

	if _, err := r.s.Redo(r.ctx, r.id, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	want("after a redo", status(), target(base, "saveMetadata"), target(deleted, "deleteMessages"))

	if _, _, err := r.s.DeleteSwipe(r.ctx, r.id, 2, 1, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	want("after a new write", status(), target(r.revision(), "deleteSwipe"), nil)
	r.events()
}

// TestUndoStatusOfAFreshChat: a new chat has nothing to undo or redo, and
// an unknown chat is chat.not_found.
func TestUndoStatusOfAFreshChat(t *testing.T) {
	t.Parallel()
	s, _ := newService(t)
	id := newChat(t, s)
	st, err := s.UndoStatus(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if st.Undo != nil || st.Redo != nil {
		t.Fatalf("a fresh chat: undo %+v, redo %+v; want neither", st.Undo, st.Redo)
	}
	if _, err := s.UndoStatus(t.Context(), "nope"); apperr.As(err) == nil || apperr.As(err).Code != apperr.CodeChatNotFound {
		t.Fatalf("unknown chat: %v, want chat.not_found", err)
	}
}
