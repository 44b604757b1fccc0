package chats

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// TestUndoRefusesDrift: when a message changed outside the journal after
// the write being undone (here: rewritten in the database directly), undo
// refuses with chat.conflict naming the revision and the path, and
// changes nothing. A drift elsewhere does not matter.
func TestUndoRefusesDrift(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	if err := r.s.UpdateMessages(r.ctx, r.id, []Update{{Index: 2, Patch: jsonx.Object{"mes": raw(`"edited"`)}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	edited := r.revision()
	drift := func(index int, text string) {
		t.Helper()
		err := r.db.InTx(r.ctx, func(tx *store.Tx) error {
			_, err := tx.ExecContext(r.ctx, `UPDATE message_swipes SET mes = ? WHERE ord = 0 AND body_id =
				(SELECT m.body_id FROM messages m JOIN chats c ON c.id = m.chat_id WHERE c.uuid = ? AND m.idx = ?)`, text, r.id, index)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	drift(4, "drift elsewhere")
	r.undo()
	r.redo()
	drift(2, "drift here")
	r.events()
	doc, rev := r.doc(), r.revision()
	_, err := r.s.Undo(r.ctx, r.id, WriteOptions{})
	ae := r.wantRefused(err, apperr.CodeChatConflict, doc, rev)
	if ae.Details["revision"] != edited || !slices.Contains(ae.Details["paths"].([]string), "/messages/2") {
		t.Errorf("conflict details %v, want revision %d and path /messages/2", ae.Details, edited)
	}
}

// TestUndoRefusesStandingLaterWrite: a later journal entry whose change
// still stands and that touched the same message makes undo refuse with
// chat.conflict naming it. Editor rules never leave such an entry (every
// write after an undo target is undone), so the test forges one: an undo
// entry of a write the journal never had.
func TestUndoRefusesStandingLaterWrite(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	if err := r.s.UpdateMessages(r.ctx, r.id, []Update{{Index: 2, Patch: jsonx.Object{"mes": raw(`"edited"`)}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	edited := r.revision()
	forge := func(ops string) {
		t.Helper()
		err := r.db.InTx(r.ctx, func(tx *store.Tx) error {
			var chat, rev int64
			if err := tx.QueryRowContext(r.ctx, `UPDATE chats SET revision = revision + 1 WHERE uuid = ? RETURNING id, revision`, r.id).Scan(&chat, &rev); err != nil {
				return err
			}
			if _, err := tx.ExecContext(r.ctx, `INSERT INTO chat_undo (chat_id, revision, target) VALUES (?, ?, 999)`, chat, rev); err != nil {
				return err
			}
			_, err := tx.ExecContext(r.ctx, `INSERT INTO chat_journal (chat_id, revision, method, ops, inverse, size, created_at)
				VALUES (?, ?, 'undo', ?, '[]', 0, 0)`, chat, rev, ops)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	forge(`[{"op":"replace","path":"/messages/2/extra/x","value":1}]`)
	forged := r.revision()
	r.events()
	doc := r.doc()
	_, err := r.s.Undo(r.ctx, r.id, WriteOptions{})
	ae := r.wantRefused(err, apperr.CodeChatConflict, doc, forged)
	if ae.Details["revision"] != edited || ae.Details["conflictingRevision"] != forged {
		t.Errorf("conflict details %v, want revision %d, conflicting %d", ae.Details, edited, forged)
	}
	if paths, _ := ae.Details["paths"].([]string); len(paths) == 0 || !strings.HasPrefix(paths[0], "/messages/2") {
		t.Errorf("conflict paths %v, want /messages/2…", ae.Details["paths"])
	}
}

// TestUndoPrunedJournal: undo walks back only as far as the journal
// keeps; past that it says undo.unavailable naming the revision that is
// gone, and changes nothing. Redo of a write whose entry went is refused
// the same way. (Pruning deletes the oldest entries; the test prunes as
// pruneJournal does, at chosen revisions.)
func TestUndoPrunedJournal(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	var revs []int64
	for i := range 4 {
		if err := r.s.UpdateMessages(r.ctx, r.id, []Update{{Index: 1, Patch: jsonx.Object{"mes": raw(`"v` + string(rune('a'+i)) + `"`)}}}, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		revs = append(revs, r.revision())
	}
	prune := func(upTo int64) {
		t.Helper()
		err := r.db.InTx(r.ctx, func(tx *store.Tx) error {
			_, err := tx.ExecContext(r.ctx, `DELETE FROM chat_journal WHERE revision <= ? AND chat_id = (SELECT id FROM chats WHERE uuid = ?)`, upTo, r.id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	prune(revs[1])
	r.undo()
	r.undo()
	r.events()
	doc, rev := r.doc(), r.revision()
	_, err := r.s.Undo(r.ctx, r.id, WriteOptions{})
	if ae := r.wantRefused(err, CodeUndoUnavailable, doc, rev); ae.Details["revision"] != revs[1] {
		t.Errorf("details %v, want revision %d", ae.Details, revs[1])
	}
	// The redo stack holds revs[3] under revs[2]; pruning revs[2] leaves
	// the top of it without its entry.
	prune(revs[2])
	_, err = r.s.Redo(r.ctx, r.id, WriteOptions{})
	if ae := r.wantRefused(err, CodeUndoUnavailable, doc, rev); ae.Details["revision"] != revs[2] {
		t.Errorf("details %v, want revision %d", ae.Details, revs[2])
	}
	var undoLinks int
	if err := r.db.Reader().QueryRowContext(r.ctx, `SELECT COUNT(*) FROM chat_undo u LEFT JOIN chat_journal j USING (chat_id, revision) WHERE j.revision IS NULL`).Scan(&undoLinks); err != nil {
		t.Fatal(err)
	}
	if undoLinks != 0 {
		t.Errorf("%d undo links outlived their journal entries", undoLinks)
	}
}

// TestUndoAfterRealPruning fills the journal past its byte cap with big
// messages: undo goes back as far as the journal kept and then refuses
// with undo.unavailable, never undo.nothing.
func TestUndoAfterRealPruning(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	big := `{"mes":"` + strings.Repeat("x", 400_000) + `"}`
	for range 12 {
		if _, err := r.s.AddMessages(r.ctx, r.id, []json.RawMessage{raw(big)}, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	undone := 0
	for {
		r.events()
		doc, rev := r.doc(), r.revision()
		_, err := r.s.Undo(r.ctx, r.id, WriteOptions{})
		if err != nil {
			r.wantRefused(err, CodeUndoUnavailable, doc, rev)
			break
		}
		if undone++; undone > 12 {
			t.Fatal("undo went on past the pruned journal")
		}
	}
	if undone == 0 || undone == 12 {
		t.Fatalf("undid %d of 12 writes; the journal should have kept some, not all", undone)
	}
}

// TestUndoRefusesBrokenEntry: a journal entry whose stored operations no
// longer validate is refused like any conflict, changing nothing.
func TestUndoRefusesBrokenEntry(t *testing.T) {
	t.Parallel()
	for name, inverse := range map[string]string{
		"unknown op":      `[{"op":"merge","path":"/messages/1/mes","value":"x"}]`,
		"not JSON":        `[{"op":`,
		"a missing path":  `[{"op":"replace","path":"/messages/99/mes","value":"x"}]`,
		"a broken swipe":  `[{"op":"replace","path":"/messages/1/swipe_id","value":7}]`,
		"a path outside":  `[{"op":"add","path":"/other","value":1}]`,
		"metadata killed": `[{"op":"remove","path":"/metadata"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newUndoRig(t)
			if err := r.s.UpdateMessages(r.ctx, r.id, []Update{{Index: 1, Patch: jsonx.Object{"mes": raw(`"edited"`)}}}, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			rev := r.revision()
			err := r.db.InTx(r.ctx, func(tx *store.Tx) error {
				_, err := tx.ExecContext(r.ctx, `UPDATE chat_journal SET inverse = ? WHERE revision = ? AND chat_id = (SELECT id FROM chats WHERE uuid = ?)`, inverse, rev, r.id)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			r.events()
			_, err = r.s.Undo(r.ctx, r.id, WriteOptions{})
			if ae := r.wantRefused(err, apperr.CodeChatConflict, r.doc(), rev); ae.Details["revision"] != rev {
				t.Errorf("details %v, want revision %d", ae.Details, rev)
			}
		})
	}
}

// TestUndoHistoryGoesWithItsChat: deleting a chat takes its undo links
// with its journal.
func TestUndoHistoryGoesWithItsChat(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	r.undo()
	r.undo()
	r.redo()
	if err := r.s.Delete(r.ctx, r.id); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := r.db.Reader().QueryRowContext(r.ctx, `SELECT (SELECT COUNT(*) FROM chat_undo) + (SELECT COUNT(*) FROM chat_journal)`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d journal rows and undo links outlived their chat", left)
	}
}
