package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// checkLineBytes fails unless every message body knows its line_bytes and
// it is the size of the JSONL line (and newline) of each message on it.
func (r *chatRig) checkLineBytes(step string) {
	r.t.Helper()
	ctx := context.Background()
	q := r.db.Reader()
	rows, err := q.QueryContext(ctx, `SELECT uuid FROM chats`)
	if err != nil {
		r.t.Fatal(err)
	}
	var chatIDs []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			r.t.Fatal(err)
		}
		chatIDs = append(chatIDs, id)
	}
	rows.Close()
	for _, chatID := range chatIDs {
		chat, err := loadChat(ctx, q, chatID)
		if err != nil {
			r.t.Fatal(err)
		}
		err = scanRange(ctx, q, chat, 0, chat.messageCount, func(m *rawMessage) error {
			var stored *int64
			if err := q.QueryRowContext(ctx, `SELECT b.line_bytes FROM messages m JOIN message_bodies b ON b.id = m.body_id WHERE m.id = ?`, m.rowID).Scan(&stored); err != nil {
				return err
			}
			line := appendMessageJSON(nil, m.id, m.name, m.isUser, m.isSystem, m.swipeID, m.swipes, m.infos, m.extra, m.fields)
			if stored == nil || *stored != int64(len(line)+1) {
				return fmt.Errorf("message %d of chat %s: line_bytes %v, its line is %d bytes with the newline", m.index, chatID, stored, len(line)+1)
			}
			return nil
		})
		if err != nil {
			r.t.Fatalf("after %s: %v", step, err)
		}
	}
}

// TestLineBytesFollowWrites runs every kind of message write, on a chat
// and on a branch sharing its bodies, and checks each body's line_bytes
// after each: the sizes a branch sums instead of serializing.
func TestLineBytesFollowWrites(t *testing.T) {
	t.Parallel()
	r := newChatRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("one \"quoted\"\n\ttabbed \u2028 and \x01"), msgBot("two — 二 — ふたつ"), msgNarrator("three"), msgBot("four"))
	r.checkLineBytes("add")
	br, err := r.s.CreateBranch(ctx, r.chatID, 3, BranchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.checkLineBytes("branch")
	side, err := r.s.CreateBranch(ctx, r.chatID, 2, BranchOptions{SwipeID: new(0)})
	if err != nil {
		t.Fatal(err)
	}
	r.checkLineBytes("branch at a swipe")
	commit := func(kind, target string) {
		t.Helper()
		if _, err := r.s.CommitReply(ctx, r.chatID, Reply{Kind: kind, Target: target, Name: "Ava", Text: "a reply, \"longer\" than before",
			Extra: jsonx.Object{"model": jsonx.Raw("m")}}); err != nil {
			t.Fatal(err)
		}
	}
	ids := r.ids()
	steps := []struct {
		name string
		do   func() error
	}{
		{"edit", func() error {
			return r.s.UpdateMessages(ctx, r.chatID, []Update{{Index: 1, Patch: jsonx.Object{"mes": jsonx.Raw("two, much longer now")}}}, WriteOptions{})
		}},
		{"extra edit", func() error {
			return r.s.UpdateMessages(ctx, br.ChatID, []Update{{Index: 2, Patch: jsonx.Object{"extra": jsonx.Raw(map[string]any{"note": "n"})}}}, WriteOptions{})
		}},
		{"add swipe", func() error {
			_, err := r.s.AddSwipe(ctx, r.chatID, 3, "four, again", false, WriteOptions{})
			return err
		}},
		{"swipe", func() error {
			_, err := r.s.Swipe(ctx, r.chatID, 3, SwipeTarget{To: new(1)}, WriteOptions{})
			return err
		}},
		{"reply swipe", func() error { commit(ReplySwipe, ids[3]); return nil }},
		{"delete swipe", func() error { _, _, err := r.s.DeleteSwipe(ctx, r.chatID, 3, 0, WriteOptions{}); return err }},
		{"hide", func() error { return r.s.SetMessagesHidden(ctx, r.chatID, ids[:2], true) }},
		{"patch", func() error {
			op, _ := json.Marshal(map[string]any{"op": "replace", "path": "/messages/0/swipes/0", "value": "one, patched"})
			_, err := r.s.Patch(ctx, r.chatID, []json.RawMessage{op}, WriteOptions{})
			return err
		}},
		{"undo", func() error { _, err := r.s.Undo(ctx, r.chatID, WriteOptions{}); return err }},
		{"redo", func() error { _, err := r.s.Redo(ctx, r.chatID, WriteOptions{}); return err }},
		{"reply", func() error { commit(ReplyNew, ""); return nil }},
		{"delete", func() error { _, err := r.s.DeleteMessages(ctx, r.chatID, []int{1}, DeleteOptions{}); return err }},
		{"undo delete", func() error { _, err := r.s.Undo(ctx, r.chatID, WriteOptions{}); return err }},
		{"import", func() error {
			text := "{\"user_name\":\"User\",\"character_name\":\"Ava\"}\n{\"name\":\"Ava\",\"is_user\":false,\"mes\":\"imported\",\"odd\":[1]}\n"
			chat, err := loadChat(ctx, r.db.Reader(), side.ChatID)
			if err != nil {
				return err
			}
			_, err = r.s.ImportJsonl(ctx, Owner{Avatar: chat.owner}, JsonlImport{FileName: "imported", Text: &text})
			return err
		}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		r.checkLineBytes(st.name)
	}
}

// TestRangeLineBytesWithoutLineBytes checks that a range measured
// through bodies written before schema v24 (line_bytes NULL, some or all)
// has the size the known line_bytes give.
func TestRangeLineBytesWithoutLineBytes(t *testing.T) {
	t.Parallel()
	r := newChatRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("one"), msgBot("two \"2\""), msgUser("three"), msgBot("four"), msgUser("five"))
	if _, err := r.s.AddSwipe(ctx, r.chatID, 3, "four, again", true, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	sizes := func() []int64 {
		t.Helper()
		chat, err := loadChat(ctx, r.db.Reader(), r.chatID)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, span := range [][2]int{{0, 5}, {0, 1}, {3, 5}, {4, 5}, {2, 2}} {
			n, err := rangeLineBytes(ctx, r.db.Reader(), chat, span[0], span[1])
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		return out
	}
	known := sizes()
	if known[0] == 0 || known[4] != 0 {
		t.Fatalf("sizes %v", known)
	}
	for _, unset := range []string{`WHERE id = (SELECT body_id FROM messages WHERE idx = 4)`, ``} {
		if err := r.db.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE message_bodies SET line_bytes = NULL `+unset)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if got := sizes(); !reflect.DeepEqual(got, known) {
			t.Errorf("with line_bytes unset %q: sizes %v, want %v", unset, got, known)
		}
	}
}
