package chats

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/events/eventstest"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// undoRig is a chat with six messages (greeting, then user and assistant
// turns; message 2 has two swipes with their own reasoning) and metadata,
// and a recorder of the events published.
type undoRig struct {
	t   *testing.T
	ctx context.Context
	s   *Service
	db  *store.Store
	id  string

	rec *eventstest.Recorder
}

func newUndoRig(t *testing.T) *undoRig {
	t.Helper()
	s, db := newService(t)
	r := &undoRig{t: t, ctx: context.Background(), s: s, db: db, id: newChat(t, s)}
	r.rec = eventstest.Record(t, s.bus)
	_, err := s.AddMessages(r.ctx, r.id, []json.RawMessage{
		json.RawMessage(`{"is_user":true,"name":"User","mes":"u1 <b>&amp;</b>"}`),
		json.RawMessage(`{"mes":"a1","swipes":["a1","a1b"],"swipe_id":0,"swipe_info":[
			{"send_date":"2026-11-01T10:00:00.000Z","extra":{"reasoning":"r0"}},
			{"send_date":"2026-11-01T10:05:00.000Z","extra":{"reasoning":"r1"}}],
			"extra":{"reasoning":"r0","model":"m"},"custom":{"kept":[1,2]}}`),
		json.RawMessage(`{"is_user":true,"name":"User","mes":"u2"}`),
		json.RawMessage(`{"mes":"a2"}`),
		json.RawMessage(`{"is_user":true,"name":"User","mes":"u3"}`),
	}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveMetadata(r.ctx, r.id, jsonx.Object{"old": json.RawMessage(`1`), "note": json.RawMessage(`"keep"`)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.events()
	return r
}

func (r *undoRig) doc() string { r.t.Helper(); return string(document(r.t, r.s, r.id)) }

// is reports whether the chat is now doc, as JSON: ids, order, every
// value. (Raw values may come back re-encoded: nested keys in another
// order, <, > and & escaped.)
func (r *undoRig) is(doc string) bool {
	r.t.Helper()
	return sameJSON(r.t, []byte(r.doc()), []byte(doc))
}

func (r *undoRig) revision() int64 {
	r.t.Helper()
	d, err := r.s.Get(r.ctx, r.id)
	if err != nil {
		r.t.Fatal(err)
	}
	return d.Revision
}

// events waits for everything published so far and returns it.
func (r *undoRig) events() []events.Event {
	r.t.Helper()
	return r.rec.Take(r.t)
}

func (r *undoRig) undo() *StepResult {
	r.t.Helper()
	res, err := r.s.Undo(r.ctx, r.id, WriteOptions{})
	if err != nil {
		r.t.Fatalf("undo: %v", err)
	}
	return res
}

func (r *undoRig) redo() *StepResult {
	r.t.Helper()
	res, err := r.s.Redo(r.ctx, r.id, WriteOptions{})
	if err != nil {
		r.t.Fatalf("redo: %v", err)
	}
	return res
}

func (r *undoRig) messageID(index int) string {
	r.t.Helper()
	msgs, err := r.s.StMessages(r.ctx, r.id, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	return msgs[index].ID
}

// wantRefused checks err's code, and that the chat and its revision stayed
// as they were and no event went out.
func (r *undoRig) wantRefused(err error, code, before string, rev int64) *apperr.Error {
	r.t.Helper()
	ae := apperr.As(err)
	if ae == nil || ae.Code != code {
		r.t.Fatalf("error = %v, want %s", err, code)
	}
	if got := r.doc(); got != before {
		r.t.Errorf("a refused step changed the chat:\nbefore %s\nafter  %s", before, got)
	}
	if got := r.revision(); got != rev {
		r.t.Errorf("a refused step moved the revision %d → %d", rev, got)
	}
	if evs := r.events(); len(evs) != 0 {
		r.t.Errorf("a refused step sent %d events (%s)", len(evs), evs[0].Type)
	}
	return ae
}

// journalOf returns the ops and inverse journaled at revision rev.
func (r *undoRig) journalOf(rev int64) (string, string) {
	r.t.Helper()
	var ops, inverse string
	if err := r.db.Reader().QueryRowContext(r.ctx, `SELECT j.ops, j.inverse FROM chat_journal j JOIN chats c ON c.id = j.chat_id
		WHERE c.uuid = ? AND j.revision = ?`, r.id, rev).Scan(&ops, &inverse); err != nil {
		r.t.Fatalf("journal %d: %v", rev, err)
	}
	return ops, inverse
}

func applyOps(t *testing.T, doc, ops string) string {
	t.Helper()
	p, err := jsonpatch.DecodePatch([]byte(ops))
	if err != nil {
		t.Fatalf("decode %s: %v", ops, err)
	}
	out, err := p.Apply([]byte(doc))
	if err != nil {
		t.Fatalf("apply %s: %v", ops, err)
	}
	return string(out)
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// undoableWrites are one write of every kind, on the rig's chat.
func undoableWrites(r *undoRig) []struct {
	name, method string
	do           func() error
} {
	ctx, s, id := r.ctx, r.s, r.id
	return []struct {
		name, method string
		do           func() error
	}{
		{"add", "addMessages", func() error {
			_, err := s.AddMessages(ctx, id, []json.RawMessage{raw(`{"is_user":true,"mes":"x"}`), raw(`{"mes":"y","extra":{"k":"<v>"}}`)}, WriteOptions{})
			return err
		}},
		{"update", "updateMessages", func() error {
			return s.UpdateMessages(ctx, id, []Update{{Index: 2, Patch: jsonx.Object{"mes": raw(`"A1!"`), "extra": raw(`{"model":"x"}`)}}}, WriteOptions{})
		}},
		{"update batch touching one message twice", "updateMessages", func() error {
			return s.UpdateMessages(ctx, id, []Update{
				{Index: 2, Patch: jsonx.Object{"mes": raw(`"one"`)}},
				{Index: 4, Patch: jsonx.Object{"is_system": raw(`true`)}},
				{Index: 2, Patch: jsonx.Object{"swipe_id": raw(`1`)}},
			}, WriteOptions{})
		}},
		{"delete tail", "deleteMessages", func() error { _, err := s.DeleteMessages(ctx, id, []int{5}, DeleteOptions{}); return err }},
		{"delete middle", "deleteMessages", func() error { _, err := s.DeleteMessages(ctx, id, []int{2}, DeleteOptions{}); return err }},
		{"delete several", "deleteMessages", func() error { _, err := s.DeleteMessages(ctx, id, []int{4, 1, 2}, DeleteOptions{}); return err }},
		{"delete first", "deleteMessages", func() error { _, err := s.DeleteMessages(ctx, id, []int{0}, DeleteOptions{}); return err }},
		{"swipe", "swipe", func() error {
			_, err := s.Swipe(ctx, id, 2, SwipeTarget{Direction: "right"}, WriteOptions{})
			return err
		}},
		{"addSwipe", "addSwipe", func() error { _, err := s.AddSwipe(ctx, id, 2, "a1c", true, WriteOptions{}); return err }},
		{"deleteSwipe active", "deleteSwipe", func() error { _, _, err := s.DeleteSwipe(ctx, id, 2, 0, WriteOptions{}); return err }},
		{"deleteSwipe other", "deleteSwipe", func() error { _, _, err := s.DeleteSwipe(ctx, id, 2, 1, WriteOptions{}); return err }},
		{"metadata", "saveMetadata", func() error {
			_, err := s.SaveMetadata(ctx, id, jsonx.Object{"k": raw(`[1,{"a":"<b>"}]`), "old": raw(`null`)}, WriteOptions{})
			return err
		}},
		{"appendMessage", "appendMessage", func() error {
			c := "spindle"
			_, err := s.AppendMessage(ctx, id, AppendInput{Role: "system", Content: &c}, WriteOptions{})
			return err
		}},
		{"updateMessage", "updateMessage", func() error {
			return s.UpdateMessage(ctx, id, r.messageID(2), jsonx.Object{"content": raw(`"new"`), "reasoning": raw(`{"text":"why"}`)})
		}},
		{"deleteMessage", "deleteMessage", func() error { return s.DeleteMessage(ctx, id, r.messageID(3)) }},
		{"hide", "setMessagesHidden", func() error { return s.SetMessagesHidden(ctx, id, []string{r.messageID(1), r.messageID(3)}, true) }},
		{"patch inside messages and metadata", "patch", func() error {
			_, err := s.Patch(ctx, id, []json.RawMessage{raw(`{"op":"replace","path":"/messages/1/mes","value":"P"}`),
				raw(`{"op":"add","path":"/metadata/p","value":{"q":1}}`), raw(`{"op":"remove","path":"/metadata/note"}`)}, WriteOptions{})
			return err
		}},
		{"patch moving a message", "patch", func() error {
			_, err := s.Patch(ctx, id, []json.RawMessage{raw(`{"op":"move","from":"/messages/1","path":"/messages/4"}`)}, WriteOptions{})
			return err
		}},
		{"patch inserting a message", "patch", func() error {
			_, err := s.Patch(ctx, id, []json.RawMessage{raw(`{"op":"add","path":"/messages/2","value":{"mes":"inserted"}}`)}, WriteOptions{})
			return err
		}},
	}
}

// TestUndoRedoEveryWrite undoes and redoes one write of every kind and
// checks that each step lands exactly (byte for byte, message ids
// included) on the chat before or after the write, that the step's own
// journal entry replays and inverts, and what it returns and sends.
func TestUndoRedoEveryWrite(t *testing.T) {
	t.Parallel()
	for _, w := range undoableWrites(newUndoRig(t)) {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			r := newUndoRig(t)
			var write func() error
			for _, x := range undoableWrites(r) {
				if x.name == w.name {
					write = x.do
				}
			}
			before := r.doc()
			if err := write(); err != nil {
				t.Fatal(err)
			}
			after, written := r.doc(), r.revision()
			r.events()

			res := r.undo()
			if res.UndoneRevision == nil || *res.UndoneRevision != written || res.RedoneRevision != nil || res.Method != w.method || res.Revision != written+1 {
				t.Errorf("undo returned %+v, want undone %d, method %s, revision %d", res, written, w.method, written+1)
			}
			if !r.is(before) {
				t.Fatalf("undo did not restore the chat:\ngot  %s\nwant %s", r.doc(), before)
			}
			ops, inverse := r.journalOf(res.Revision)
			if !sameJSON(t, []byte(applyOps(t, after, ops)), []byte(before)) || !sameJSON(t, []byte(applyOps(t, before, inverse)), []byte(after)) {
				t.Errorf("the undo's journal entry does not replay: ops %s inverse %s", ops, inverse)
			}
			checkStepEvents(t, r.events(), after, before, res.Revision, w.method, "undoneRevision", written)

			res = r.redo()
			if res.RedoneRevision == nil || *res.RedoneRevision != written || res.UndoneRevision != nil || res.Method != w.method {
				t.Errorf("redo returned %+v, want redone %d, method %s", res, written, w.method)
			}
			if !r.is(after) {
				t.Fatalf("redo did not re-apply the write:\ngot  %s\nwant %s", r.doc(), after)
			}
			checkStepEvents(t, r.events(), before, after, res.Revision, w.method, "redoneRevision", written)
			if r.undo(); !r.is(before) {
				t.Fatalf("a second undo did not restore the chat")
			}
			if r.redo(); !r.is(after) {
				t.Fatalf("a second redo did not re-apply the write")
			}
		})
	}
}

// checkStepEvents checks what an undo or redo sent: CHAT_PATCHED first,
// whose ops turn the chat before the step into the chat after it, then
// CHAT_METADATA_UPDATED if (and only if) the metadata changed.
func checkStepEvents(t *testing.T, evs []events.Event, from, to string, rev int64, method, key string, target int64) {
	t.Helper()
	if len(evs) == 0 || evs[0].Type != events.ChatPatched {
		t.Fatalf("events = %v, want chat_patched first", evTypes(evs))
	}
	p := evs[0].Payload.(*events.ChatPatchedPayload)
	b, _ := json.Marshal(p.Ops)
	if got := applyOps(t, from, string(b)); !sameJSON(t, []byte(got), []byte(to)) {
		t.Errorf("CHAT_PATCHED ops %s do not turn the chat into the result", b)
	}
	var fromDoc, toDoc struct {
		Metadata json.RawMessage `json:"metadata"`
		Messages []any           `json:"messages"`
	}
	_ = json.Unmarshal([]byte(from), &fromDoc)
	_ = json.Unmarshal([]byte(to), &toDoc)
	wantTypes := []string{events.ChatPatched}
	if !sameJSON(t, fromDoc.Metadata, toDoc.Metadata) {
		wantTypes = append(wantTypes, events.ChatMetadataUpdated)
	}
	if !slices.Equal(evTypes(evs), wantTypes) {
		t.Errorf("events = %v, want %v", evTypes(evs), wantTypes)
	}
	for _, e := range evs {
		if got := wireRevision(t, e); got != rev {
			t.Errorf("%s: revision %v, want %d", e.Type, got, rev)
		}
	}
	var step *int64
	switch key {
	case "undoneRevision":
		step = p.UndoneRevision
	case "redoneRevision":
		step = p.RedoneRevision
	}
	if p.Method != method || step == nil || *step != target || p.Length != len(toDoc.Messages) {
		t.Errorf("CHAT_PATCHED payload: method %v %s %v length %v", p.Method, key, step, p.Length)
	}
}

// wireRevision is the revision e's payload carries on the wire.
func wireRevision(t *testing.T, e events.Event) int64 {
	t.Helper()
	var p struct {
		Revision *int64 `json:"revision"`
	}
	b, err := json.Marshal(e.Payload)
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil || p.Revision == nil {
		t.Fatalf("%s payload %s has no revision (%v)", e.Type, b, err)
	}
	return *p.Revision
}

func evTypes(evs []events.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// TestUndoWalksBackRedoWalksForward makes four writes, undoes them one by
// one to the start (a fifth undo has nothing left), then redoes them one
// by one, each step landing exactly on the state it should.
func TestUndoWalksBackRedoWalksForward(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	writes := undoableWrites(r)
	states := []string{r.doc()}
	revs := []int64{}
	for _, name := range []string{"update", "delete middle", "metadata", "addSwipe"} {
		for _, w := range writes {
			if w.name == name {
				if err := w.do(); err != nil {
					t.Fatal(err)
				}
			}
		}
		states = append(states, r.doc())
		revs = append(revs, r.revision())
	}
	for i := len(revs) - 1; i >= 0; i-- {
		if res := r.undo(); *res.UndoneRevision != revs[i] {
			t.Fatalf("undo %d reverted revision %d, want %d", len(revs)-i, *res.UndoneRevision, revs[i])
		}
		if !r.is(states[i]) {
			t.Fatalf("after undoing revision %d:\ngot  %s\nwant %s", revs[i], r.doc(), states[i])
		}
	}
	// The rig's own setup (messages, metadata) is history too.
	r.undo()
	r.undo()
	r.events()
	doc, rev := r.doc(), r.revision()
	_, err := r.s.Undo(r.ctx, r.id, WriteOptions{})
	r.wantRefused(err, CodeUndoNothing, doc, rev)
	r.redo()
	r.redo()
	for i := range revs {
		if res := r.redo(); *res.RedoneRevision != revs[i] {
			t.Fatalf("redo %d re-applied revision %d, want %d", i+1, *res.RedoneRevision, revs[i])
		}
		if !r.is(states[i+1]) {
			t.Fatalf("after redoing revision %d:\ngot  %s\nwant %s", revs[i], r.doc(), states[i+1])
		}
	}
	r.events()
	doc, rev = r.doc(), r.revision()
	_, err = r.s.Redo(r.ctx, r.id, WriteOptions{})
	r.wantRefused(err, CodeUndoNothing, doc, rev)
}

// TestWriteClearsRedo: an ordinary write after an undo empties the redo
// stack; the undone write stays undone and later undos skip it.
func TestWriteClearsRedo(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	base := r.doc()
	if err := r.s.UpdateMessages(r.ctx, r.id, []Update{{Index: 1, Patch: jsonx.Object{"mes": raw(`"first"`)}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	first := r.revision()
	afterFirst := r.doc()
	if err := r.s.UpdateMessages(r.ctx, r.id, []Update{{Index: 1, Patch: jsonx.Object{"mes": raw(`"second"`)}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.undo()
	if err := r.s.UpdateMessages(r.ctx, r.id, []Update{{Index: 3, Patch: jsonx.Object{"mes": raw(`"third"`)}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	third := r.revision()
	r.events()
	doc, rev := r.doc(), r.revision()
	_, err := r.s.Redo(r.ctx, r.id, WriteOptions{})
	r.wantRefused(err, CodeUndoNothing, doc, rev)
	if res := r.undo(); *res.UndoneRevision != third || !r.is(afterFirst) {
		t.Fatalf("undo reverted %d, want the third write %d", *res.UndoneRevision, third)
	}
	if res := r.undo(); *res.UndoneRevision != first || !r.is(base) {
		t.Fatalf("undo reverted %d, want the first write %d (the second stays undone)", *res.UndoneRevision, first)
	}
	// Redo walks back up: the first write, then the third; never the second.
	if res := r.redo(); *res.RedoneRevision != first {
		t.Fatalf("redo re-applied %d, want %d", *res.RedoneRevision, first)
	}
	if res := r.redo(); *res.RedoneRevision != third {
		t.Fatalf("redo re-applied %d, want %d", *res.RedoneRevision, third)
	}
	r.events()
	doc, rev = r.doc(), r.revision()
	_, err = r.s.Redo(r.ctx, r.id, WriteOptions{})
	r.wantRefused(err, CodeUndoNothing, doc, rev)
}

// TestUndoRestoresDeletedMessageID: a message brought back by undo keeps
// its id and its place, so id-based callers (Spindle, extensions) find it
// again.
func TestUndoRestoresDeletedMessageID(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	id2, id4 := r.messageID(2), r.messageID(4)
	if _, err := r.s.DeleteMessages(r.ctx, r.id, []int{2, 4}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.undo()
	if r.messageID(2) != id2 || r.messageID(4) != id4 {
		t.Fatalf("restored ids %s %s, want %s %s", r.messageID(2), r.messageID(4), id2, id4)
	}
	if err := r.s.UpdateMessage(r.ctx, r.id, id4, jsonx.Object{"content": raw(`"by id"`)}); err != nil {
		t.Fatalf("the restored message is not found by its id: %v", err)
	}
}

// TestUndoIfRevision: ifRevision guards a step like any write.
func TestUndoIfRevision(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	doc, rev := r.doc(), r.revision()
	stale := rev - 1
	_, err := r.s.Undo(r.ctx, r.id, WriteOptions{IfRevision: &stale})
	r.wantRefused(err, apperr.CodeChatConflict, doc, rev)
	if _, err := r.s.Undo(r.ctx, r.id, WriteOptions{IfRevision: &rev}); err != nil {
		t.Fatal(err)
	}
}

// TestUndoFollowsSwipeFloorCommits: undoing a swipe deletion puts the
// swipe back in the middle; floor-state commits of the later swipes move
// up with their swipes.
func TestUndoFollowsSwipeFloorCommits(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	if _, err := r.s.AddSwipe(r.ctx, r.id, 2, "a1c", false, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var row int64
	if err := r.db.Reader().QueryRowContext(r.ctx, `SELECT m.id FROM messages m JOIN chats c ON c.id = m.chat_id WHERE c.uuid = ? AND m.idx = 2`, r.id).Scan(&row); err != nil {
		t.Fatal(err)
	}
	commitOn := func(swipe int) {
		t.Helper()
		err := r.db.InTx(r.ctx, func(tx *store.Tx) error {
			if _, err := tx.ExecContext(r.ctx, `INSERT OR IGNORE INTO floor_states (chat_id, ns, next_seq, log_rev) SELECT chat_id, 'fs', 100, 1 FROM messages WHERE id = ?`, row); err != nil {
				return err
			}
			_, err := tx.ExecContext(r.ctx, `INSERT INTO floor_commits (chat_id, ns, seq, message_id, swipe_id, ops) SELECT chat_id, 'fs', ?, id, ?, '[]' FROM messages WHERE id = ?`, swipe, swipe, row)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	commitOn(1)
	commitOn(2)
	swipeOf := func(seq int) int {
		t.Helper()
		var s int
		if err := r.db.Reader().QueryRowContext(r.ctx, `SELECT swipe_id FROM floor_commits WHERE message_id = ? AND seq = ?`, row, seq).Scan(&s); err != nil {
			t.Fatalf("commit %d: %v", seq, err)
		}
		return s
	}
	if _, _, err := r.s.DeleteSwipe(r.ctx, r.id, 2, 1, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := swipeOf(2); got != 1 {
		t.Fatalf("after deleteSwipe the commit of swipe 2 is on swipe %d, want 1", got)
	}
	r.undo()
	if got := swipeOf(2); got != 2 {
		t.Errorf("after undo the commit is on swipe %d, want 2 again", got)
	}
	r.redo()
	if got := swipeOf(2); got != 1 {
		t.Errorf("after redo the commit is on swipe %d, want 1", got)
	}
}

// TestUndoKeepsBigNumbersExact: metadata holding integers past 2^53 goes
// through a change, its undo and its redo digit for digit (the journal's
// diffs carry numbers as written, not as float64).
func TestUndoKeepsBigNumbersExact(t *testing.T) {
	r := newUndoRig(t)
	if _, err := r.s.SaveMetadata(r.ctx, r.id, jsonx.Object{"seed": json.RawMessage(`9007199254740993`)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.s.SaveMetadata(r.ctx, r.id, jsonx.Object{"seed": json.RawMessage(`9007199254740995`)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	seed := func() string {
		t.Helper()
		d, err := r.s.Get(r.ctx, r.id)
		if err != nil {
			t.Fatal(err)
		}
		return string(d.Metadata["seed"])
	}
	if _, err := r.s.Undo(r.ctx, r.id, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := seed(); got != "9007199254740993" {
		t.Fatalf("after undo seed = %s, want 9007199254740993", got)
	}
	if _, err := r.s.Redo(r.ctx, r.id, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := seed(); got != "9007199254740995" {
		t.Fatalf("after redo seed = %s, want 9007199254740995", got)
	}
}
