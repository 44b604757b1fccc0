package search

// Index upkeep: the search follows every way a message changes (edits,
// swipes, deletes, undo, plain SQL), in and out of the background
// indexer. Upgrades from older schemas: migration_test.go.

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"hearth/backend/chats"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

func TestSearchFollowsEditsSwipesAndDeletes(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("alpha one"), msgBot("bravo two 東京"), msgUser("charlie three"), msgBot("delta four"), msgUser("echo five"))
	ids := r.ids()

	// Index-based edit.
	if err := r.chats.UpdateMessages(ctx, r.chatID, []chats.Update{{Index: 0, Patch: jsonx.Object{"mes": jsonx.Raw("alpha dragons")}}}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("one", noOpts)
	r.expect("dragons", noOpts, 0)

	// A new selected swipe replaces the text; navigating back restores it.
	if _, err := r.chats.AddSwipe(ctx, r.chatID, 1, "a zebra swipe", true, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("zebra", noOpts, 1)
	r.expect("東京", noOpts)
	if _, err := r.chats.Swipe(ctx, r.chatID, 1, chats.SwipeTarget{To: optPtr(0)}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("zebra", noOpts)
	r.expect("東京", noOpts, 1)
	if _, err := r.chats.Swipe(ctx, r.chatID, 1, chats.SwipeTarget{To: optPtr(1)}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.chats.DeleteSwipe(ctx, r.chatID, 1, 1, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("zebra", noOpts)
	r.expect("東京", noOpts, 1)

	// Id-based edit.
	if err := r.chats.UpdateMessage(ctx, r.chatID, ids[3], jsonx.Object{"content": jsonx.Raw("delta walrus")}); err != nil {
		t.Fatal(err)
	}
	r.expect("walrus", noOpts, 3)

	// A middle delete renumbers: hits carry the current index, same id.
	if _, err := r.chats.DeleteMessages(ctx, r.chatID, []int{0}, chats.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("dragons", noOpts)
	hits := r.search("walrus", noOpts)
	if len(hits) != 1 || hits[0].Index != 2 || hits[0].ID != ids[3] {
		t.Errorf("after the middle delete: %+v, want index 2 id %s", hits, ids[3])
	}
	r.expect("five", noOpts, 3)
	if err := r.chats.DeleteMessage(ctx, r.chatID, ids[2]); err != nil {
		t.Fatal(err)
	}
	r.expect("charlie", noOpts)
	r.expect("five", noOpts, 2)

	// A whole-document patch that reorders messages.
	msgs, err := r.chats.StMessagesJSON(ctx, r.chatID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(msgs, &list); err != nil {
		t.Fatal(err)
	}
	reversed, _ := json.Marshal([]json.RawMessage{list[2], list[1], list[0]})
	op, _ := json.Marshal(map[string]any{"op": "replace", "path": "/messages", "value": json.RawMessage(reversed)})
	if _, err := r.chats.Patch(ctx, r.chatID, []json.RawMessage{op}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("five", noOpts, 0)
	r.expect("東京", noOpts, 2)
	r.checkIndexInSync()
}

// checkIndexInSync asserts that every message has exactly its chunk, with
// the role and hidden flag of the message, that nothing is queued, and that
// the full-text index holds exactly the chunks' keys.
func (r *searchRig) checkIndexInSync() {
	r.t.Helper()
	ctx := context.Background()
	if err := flushChunks(ctx, r.db, 0); err != nil {
		r.t.Fatal(err)
	}
	q := r.db.Reader()
	var pending, orphans, missing, wrong int
	if err := q.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM chunks_pending) + (SELECT count(*) FROM chunks_unindexed) + (SELECT count(*) FROM chunks_backlog),
		(SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = c.message_id)),
		(SELECT count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.message_id = m.id)),
		(SELECT count(*) FROM chunks c JOIN chunk_source s USING (message_id)
			WHERE c.chars IS NOT length(s.body) OR c.role IS NOT s.role OR c.hidden IS NOT s.hidden OR c.chat_id IS NOT s.chat_id
				OR c.swipe_row IS NOT s.swipe_row)`).
		Scan(&pending, &orphans, &missing, &wrong); err != nil {
		r.t.Fatal(err)
	}
	if pending+orphans+missing+wrong != 0 {
		r.t.Errorf("chunks out of sync: %d queued, %d orphans, %d missing, %d stale", pending, orphans, missing, wrong)
	}
	keys := func(query string) []int64 {
		rows, err := q.QueryContext(ctx, query)
		if err != nil {
			r.t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var k int64
			if err := rows.Scan(&k); err != nil {
				r.t.Fatal(err)
			}
			out = append(out, k)
		}
		return out
	}
	indexed := keys(`SELECT rowid FROM chunks_fts ORDER BY rowid`)
	want := keys(`SELECT (chat_id << 37) | message_id AS k FROM chunks ORDER BY k`)
	if !reflect.DeepEqual(indexed, want) {
		r.t.Errorf("index holds rows %v, chunks are %v", indexed, want)
	}
	r.checkIndexedText()
	// Role agrees with the Go rule the message views use.
	msgs, err := r.chats.Messages(ctx, r.chatID, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, m := range msgs {
		var role string
		if err := q.QueryRowContext(ctx, `SELECT c.role FROM chunks c JOIN messages m ON m.id = c.message_id WHERE m.uuid = ?`, m.ID).Scan(&role); err != nil {
			r.t.Fatal(err)
		}
		if role != m.Role {
			r.t.Errorf("message %s: chunk role %s, message role %s", m.ID, role, m.Role)
		}
	}
}

// checkIndexedText asserts that the index holds, for every chunk, exactly
// the trigrams of its message's current text (case-folded, padded), so no
// change of text went without re-indexing. A search would not tell: it
// checks each candidate's text, which hides trigrams left over.
func (r *searchRig) checkIndexedText() {
	r.t.Helper()
	ctx := context.Background()
	q := r.db.Reader()
	got := map[int64]map[string]bool{}
	rows, err := q.QueryContext(ctx, `SELECT doc, term FROM chunks_terms`)
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var term string
		if err := rows.Scan(&key, &term); err != nil {
			r.t.Fatal(err)
		}
		if got[key] == nil {
			got[key] = map[string]bool{}
		}
		got[key][term] = true
	}
	texts, err := q.QueryContext(ctx, `SELECT (c.chat_id << 37) | c.message_id, t.body FROM chunks c JOIN chunk_source t USING (message_id)`)
	if err != nil {
		r.t.Fatal(err)
	}
	defer texts.Close()
	for texts.Next() {
		var key int64
		var body string
		if err := texts.Scan(&key, &body); err != nil {
			r.t.Fatal(err)
		}
		runes := []rune(foldString(body) + padSuffix)
		want := map[string]bool{}
		for i := 0; i+3 <= len(runes); i++ {
			want[string(runes[i:i+3])] = true
		}
		if !reflect.DeepEqual(got[key], want) {
			r.t.Errorf("index key %d holds trigrams %v; its text %q has %v", key, got[key], body, want)
		}
	}
}

func TestSearchSkipChunkRebuild(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgBot("old words here"), msgUser("another message"))
	r.checkIndexInSync()
	holdIndexer(t, r)
	ids := r.ids()
	// A chunk holds no text (migration 0026): its length tells which
	// text it was built from.
	chunkOf := func(id string) (chars int, queued bool) {
		t.Helper()
		if err := r.db.Reader().QueryRowContext(ctx, `SELECT c.chars, EXISTS (SELECT 1 FROM chunks_pending p WHERE p.message_id = m.id)
			FROM messages m JOIN chunks c ON c.message_id = m.id WHERE m.uuid = ?`, id).Scan(&chars, &queued); err != nil {
			t.Fatal(err)
		}
		return chars, queued
	}
	chars := utf8.RuneCountInString
	skip := func(text string) {
		t.Helper()
		if err := r.chats.UpdateMessage(ctx, r.chatID, ids[0], jsonx.Object{"content": jsonx.Raw(text), "skipChunkRebuild": jsonx.Raw(true)}); err != nil {
			t.Fatal(err)
		}
	}

	// A skipping write leaves the chunk as it was and queues it…
	skip("streaming partial walrus")
	if body, queued := chunkOf(ids[0]); body != chars("old words here") || !queued {
		t.Fatalf("after a skipping write: chunk of %d characters, queued %v", body, queued)
	}
	// …and a search of the chat rebuilds it first.
	r.expect("walrus", noOpts, 0)
	r.expect("old words", noOpts)
	if body, queued := chunkOf(ids[0]); body != chars("streaming partial walrus") || queued {
		t.Fatalf("after the search: chunk of %d characters, queued %v", body, queued)
	}

	// The next write that does not skip starts the background indexer,
	// which rebuilds it too, even when the write touched another message.
	skip("streaming complete walrus tusk")
	releaseIndexer(t, r)
	if err := r.chats.UpdateMessage(ctx, r.chatID, ids[1], jsonx.Object{"content": jsonx.Raw("edited message")}); err != nil {
		t.Fatal(err)
	}
	waitIndexer(t, r)
	if body, queued := chunkOf(ids[0]); body != chars("streaming complete walrus tusk") || queued {
		t.Fatalf("after a later write: chunk of %d characters, queued %v", body, queued)
	}
	holdIndexer(t, r)

	// A search across all chats also catches up first.
	skip("final narwhal")
	hits, err := r.s.SearchAll(ctx, "narwhal", noOpts)
	if err != nil || len(hits) != 1 || hits[0].ID != ids[0] {
		t.Fatalf("search all: %+v, %v", hits, err)
	}
	r.checkIndexInSync()
}

// TestSearchRowIDReuse deletes the newest message and adds another, which
// SQLite gives the same row id, hence the same index key, before anything
// drains the index queue: the old text must not answer for the new message.
func TestSearchRowIDReuse(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("first words"), msgBot("old okapi text 東京"))
	rowID := func() int64 {
		var id int64
		if err := r.db.Reader().QueryRowContext(ctx, `SELECT max(id) FROM messages`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	r.expect("okapi", noOpts, 1)
	before := rowID()
	if _, err := r.chats.DeleteMessages(ctx, r.chatID, []int{1}, chats.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.add(r.chatID, msgBot("new zebra text"))
	if rowID() != before {
		t.Skipf("SQLite did not reuse row id %d", before)
	}
	r.expect("okapi", noOpts)
	r.expect("東京", noOpts)
	r.expect("zebra", noOpts, 1)
	r.checkIndexInSync()
}

// TestIndexCatchesUpInBackground checks that a write's chunk and index
// work is done without any search asking for it.
func TestIndexCatchesUpInBackground(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("indexed by the background worker"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		var queued bool
		if err := r.db.Reader().QueryRowContext(ctx, indexWorkQueued).Scan(&queued); err != nil {
			t.Fatal(err)
		}
		if !queued {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the chunk and index queues were not worked through within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var n int
	if err := r.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?`, ftsTrigrams("background")).Scan(&n); err != nil || n != 1 {
		t.Fatalf("index rows for the new message: %d, %v", n, err)
	}
}

// TestSearchFollowsUndo checks that undo and redo, writes of their own,
// bring the chunks along like any other write.
func TestSearchFollowsUndo(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("the first draft"))
	if err := r.chats.UpdateMessages(ctx, r.chatID, []chats.Update{{Index: 0, Patch: jsonx.Object{"mes": jsonx.Raw("the final 東京 text")}}}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("東京", noOpts, 0)
	if _, err := r.chats.Undo(ctx, r.chatID, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("東京", noOpts)
	r.expect("draft", noOpts, 0)
	if _, err := r.chats.Redo(ctx, r.chatID, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("draft", noOpts)
	r.expect("東京", noOpts, 0)
	r.checkIndexInSync()
}

// TestSearchSeesRowsChangedAnyWay changes message rows with plain SQL, the
// way code outside chats' Service.mutate might: triggers queue the chunks,
// and the next search rebuilds them.
func TestSearchSeesRowsChangedAnyWay(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("plain words"), msgBot("more words"))
	err := r.db.InTx(ctx, func(tx *store.Tx) error {
		for _, q := range []string{
			`UPDATE message_swipes SET mes = 'a sneaky okapi' WHERE body_id = (SELECT body_id FROM messages WHERE idx = 0)`,
			`UPDATE message_bodies SET hidden = 1 WHERE id = (SELECT body_id FROM messages WHERE idx = 1)`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.expect("okapi", noOpts, 0)
	r.expect("words", noOpts)
	r.expect("words", Options{IncludeHidden: true}, 1)
	r.checkIndexInSync()
}

// TestSearchReadsNoQueuedChunk has a write land between a search's
// catch-up and its read, which the search then reads as it is: the chunk
// of the changed message still names the swipe row that held its text
// before. The message is left out rather than shown with text it no
// longer holds, and the next search, which catches up, finds it again.
func TestSearchReadsNoQueuedChunk(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("hello there"), map[string]any{"name": "Bot", "is_user": false, "mes": "a zebra take",
		"swipe_id": 1, "swipes": []string{"a heron take", "a zebra take"}})
	r.expect("zebra", noOpts, 1)

	// Swipe back to the first take and remove the second, and give
	// another message a swipe (taking the removed row's rowid, the
	// largest), as a write that a search's catch-up has not seen yet.
	if err := r.db.InTx(ctx, func(tx *store.Tx) error {
		for _, q := range []string{
			`UPDATE message_bodies SET swipe_id = 0 WHERE id = (SELECT body_id FROM messages WHERE idx = 1)`,
			`DELETE FROM message_swipes WHERE ord = 1 AND body_id = (SELECT body_id FROM messages WHERE idx = 1)`,
			`INSERT INTO message_swipes (body_id, ord, mes, info) SELECT body_id, 1, 'another zebra, elsewhere', '{}' FROM messages WHERE idx = 0`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The second take's rowid now holds another message's (inactive) text.
	var reused int
	if err := r.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM chunks c JOIN message_swipes s ON s.id = c.swipe_row
		WHERE s.mes = 'another zebra, elsewhere'`).Scan(&reused); err != nil || reused != 1 {
		t.Fatalf("%d chunks name the reused row, %v", reused, err)
	}
	for _, query := range []string{"zebra", "heron"} {
		p, err := newSearchPlan(query, Options{})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := searchIndex(ctx, r.db.Reader(), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 0 {
			t.Errorf("search %q read queued chunks: %+v", query, hits)
		}
	}
	r.expect("zebra", noOpts)
	r.expect("heron", noOpts, 1)
	r.checkIndexInSync()
}
