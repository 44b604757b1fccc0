package chats

// Upgrades: databases as older Hearths left them, with messages in them,
// opened by this one.

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// oldMessage is a message as schema v1–v16 stored it.
type oldMessage struct {
	name    string
	isUser  bool
	hidden  bool
	swipeID int
	extra   string
	swipes  []string
}

// seedOldChat makes a database at schema version upTo (1–16) holding one
// character with a chat of msgs, written as those versions laid rows out:
// body and swipe rows keyed by their message's id. It returns the chat id.
func seedOldChat(t *testing.T, path string, upTo int, msgs []oldMessage) string {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{UpTo: upTo})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const chatID = "0b6f3c1e-5d2a-4c8e-9f10-2a3b4c5d6e7f"
	err = db.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO characters (avatar, name, card, created_at, updated_at)
			VALUES ('Ava.png', 'Ava', '{"name":"Ava"}', 0, 0)`); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO chats (uuid, owner_kind, owner, file_name, message_count, created_at, updated_at, change_seq)
			VALUES (?, 'character', 'Ava.png', 'Ava - old', ?, 0, 0, 1)`, chatID, len(msgs))
		if err != nil {
			return err
		}
		chat, _ := res.LastInsertId()
		for i, m := range msgs {
			res, err := tx.ExecContext(ctx, `INSERT INTO messages (chat_id, idx, uuid) VALUES (?, ?, ?)`, chat, i, fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			if _, err := tx.ExecContext(ctx, `INSERT INTO message_bodies (message_id, name, is_user, is_system, hidden, swipe_id, extra, fields)
				VALUES (?, ?, ?, 0, ?, ?, ?, '{}')`, id, m.name, m.isUser, m.hidden, m.swipeID, m.extra); err != nil {
				return err
			}
			for ord, mes := range m.swipes {
				if _, err := tx.ExecContext(ctx, `INSERT INTO message_swipes (message_id, ord, mes, info) VALUES (?, ?, ?, '{}')`, id, ord, mes); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return chatID
}

// openUpgraded opens the database at path with every migration applied.
func openUpgraded(t *testing.T, path, chatID string) *searchRig {
	t.Helper()
	r := searchRigAt(t, path)
	r.chatID = chatID
	return r
}

// TestMigrationBackfills opens a database made before search existed
// (schema v2) and checks that the upgrade built every message's chunk
// itself, and queued the index (rebuilt without positions by schema v26)
// for the background indexer and a search's catch-up.
func TestMigrationBackfills(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.db")
	chatID := seedOldChat(t, path, 2, []oldMessage{
		{name: "Ava", extra: `{}`, swipes: []string{"Hi"}},
		{name: "User", isUser: true, extra: `{}`, swipes: []string{"an upgraded lantern"}},
		{name: "System", hidden: true, extra: `{"type":"narrator","hidden":true}`, swipes: []string{"東京"}},
	})
	r := openUpgraded(t, path, chatID)
	var chunks, pending, unindexed int
	if err := r.db.Reader().QueryRowContext(context.Background(), `SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM chunks_pending),
		(SELECT count(*) FROM chunks_unindexed u JOIN chunks c ON u.key = (c.chat_id << 37) | c.message_id WHERE u.stale = 0)`).Scan(&chunks, &pending, &unindexed); err != nil {
		t.Fatal(err)
	}
	if chunks != 3 || pending != 0 || unindexed != 3 {
		t.Fatalf("after the upgrade: %d chunks, %d to rebuild, %d to index; want 3, 0, 3", chunks, pending, unindexed)
	}
	r.expect("lantern", noOpts, 1)
	r.expect("東京", noOpts)
	hits := r.search("東京", SearchOptions{IncludeHidden: true})
	if len(hits) != 1 || hits[0].Role != "system" {
		t.Errorf("hidden narrator after the upgrade: %+v", hits)
	}
	r.checkIndexInSync()
}

// TestMigrationSharesBodies opens a database from before shared bodies
// (schema v16): every message reads back as it was, each owns the body its
// rows were keyed by, and writes, branches and deletes work on them.
func TestMigrationSharesBodies(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.db")
	chatID := seedOldChat(t, path, 16, []oldMessage{
		{name: "Ava", extra: `{}`, swipes: []string{"Hi"}},
		{name: "User", isUser: true, extra: `{"note":"kept"}`, swipes: []string{"a lantern"}},
		{name: "Ava", swipeID: 1, extra: `{}`, swipes: []string{"first take", "second take", "third take"}},
	})
	r := openUpgraded(t, path, chatID)
	ctx := context.Background()
	got := r.stMessages(chatID)
	want := []struct {
		mes    string
		swipes int
	}{{"Hi", 1}, {"a lantern", 1}, {"second take", 3}}
	for i, w := range want {
		if got[i]["mes"] != w.mes || len(got[i]["swipes"].([]any)) != w.swipes {
			t.Fatalf("message %d after the upgrade: %v", i, got[i])
		}
	}
	if got[1]["extra"].(map[string]any)["note"] != "kept" {
		t.Fatalf("extra after the upgrade: %v", got[1]["extra"])
	}
	var strays int
	if err := r.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE body_id <> id`).Scan(&strays); err != nil {
		t.Fatal(err)
	}
	if b, s := r.bodyCounts(); strays != 0 || b != 3 || s != 5 {
		t.Fatalf("after the upgrade: %d messages off their body, %d bodies, %d swipes; want 0, 3, 5", strays, b, s)
	}
	r.expect("lantern", noOpts, 1)

	br, err := r.s.CreateBranch(ctx, chatID, 2, BranchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.s.Swipe(ctx, chatID, 2, SwipeTarget{To: new(2)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := r.stMessages(br.ChatID)[2]["mes"]; got != "second take" {
		t.Fatalf("branch message 2 = %v after the source swiped", got)
	}
	if err := r.s.Delete(ctx, chatID); err != nil {
		t.Fatal(err)
	}
	if got, want := r.stMessages(br.ChatID), got; !reflect.DeepEqual(got, want) {
		t.Fatalf("branch after its upgraded source went:\n%v\nwant\n%v", got, want)
	}
	if b, s := r.bodyCounts(); b != 3 || s != 5 {
		t.Fatalf("%d bodies, %d swipes left with the branch alone; want 3, 5", b, s)
	}
}

// TestMigrationMovesFloorKeys opens a database from before a floor commit
// held its first key (schema v17): each commit's smallest key moves into
// its row and leaves floor_commit_keys, no settle work is left noted, and a
// delete afterwards settles key by key from both places.
func TestMigrationMovesFloorKeys(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.db")
	chatID := seedOldChat(t, path, 16, []oldMessage{
		{name: "Ava", extra: `{}`, swipes: []string{"Hi"}},
		{name: "User", isUser: true, extra: `{}`, swipes: []string{"two keys"}},
		{name: "Ava", extra: `{}`, swipes: []string{"one key"}},
	})
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{UpTo: 17})
	if err != nil {
		t.Fatal(err)
	}
	err = db.InTx(ctx, func(tx *store.Tx) error {
		for _, q := range []string{
			`INSERT INTO floor_states (chat_id, ns, next_seq, log_rev, entangled) VALUES (1, 'keys', 3, 2, 0), (1, 'whole', 2, 1, 1)`,
			`INSERT INTO floor_commits (chat_id, ns, seq, message_id, swipe_id, ops) VALUES
				(1, 'keys', 1, 2, 0, '[{"op":"add","path":"/b","value":2},{"op":"add","path":"/a","value":1}]'),
				(1, 'keys', 2, 3, 0, '[{"op":"add","path":"/c","value":3}]'),
				(1, 'whole', 1, 3, 0, '[{"op":"replace","path":"","value":{"x":1}}]')`,
			`INSERT INTO floor_commit_keys (chat_id, ns, key, seq) VALUES (1, 'keys', 'b', 1), (1, 'keys', 'a', 1), (1, 'keys', 'c', 2)`,
			`INSERT INTO chat_state (chat_id, ns, value, revision) VALUES (1, 'keys', '{"a":1,"b":2,"c":3}', 2), (1, 'whole', '{"x":1}', 1)`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	r := openUpgraded(t, path, chatID)
	rows, err := r.db.Reader().QueryContext(ctx, `SELECT ns || ':' || seq || '=' || coalesce(key, '-') FROM floor_commits
		UNION ALL SELECT 'extra ' || ns || ':' || seq || '=' || key FROM floor_commit_keys
		UNION ALL SELECT 'dirty ' || ns FROM floor_dirty UNION ALL SELECT 'dirty key ' || key FROM floor_dirty_keys ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	rows.Close()
	if want := []string{"extra keys:1=b", "keys:1=a", "keys:2=c", "whole:1=-"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("floor keys after the upgrade: %q, want %q", got, want)
	}

	if _, err := r.s.DeleteMessages(ctx, chatID, []int{1}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var keys, whole string
	if err := r.db.Reader().QueryRowContext(ctx, `SELECT (SELECT value FROM chat_state WHERE ns = 'keys'), (SELECT value FROM chat_state WHERE ns = 'whole')`).Scan(&keys, &whole); err != nil {
		t.Fatal(err)
	}
	if keys != `{"c":3}` || whole != `{"x":1}` {
		t.Fatalf("after deleting the two-key commit's message: keys %s, whole %s; want {\"c\":3}, {\"x\":1}", keys, whole)
	}

	// A namespace that goes takes its commits along (a trigger since
	// schema v23, a foreign key before).
	var left int
	err = r.db.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM floor_states WHERE ns = 'whole'`); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT count(*) FROM floor_commits WHERE ns = 'whole'`).Scan(&left)
	})
	if err != nil || left != 0 {
		t.Fatalf("commits of a deleted namespace: %d left, %v", left, err)
	}
}

// TestMigrationIndexWithoutPositions opens a database as schema v25 left
// it (chunks holding a copy of the text, the index with positions, a key
// queued for re-indexing) and checks that the upgrade dropped the copy,
// rebuilt the index without positions from the messages' text, and that
// searches of every kind and later edits find what they did before.
func TestMigrationIndexWithoutPositions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	chatID := seedOldChat(t, path, 2, []oldMessage{
		{name: "Ava", extra: `{}`, swipes: []string{"The Lantern flickered twice"}},
		{name: "User", isUser: true, extra: `{}`, swipes: []string{"a lantern, and 東京 at night"}},
		{name: "Ava", swipeID: 1, extra: `{}`, swipes: []string{"first owl take", "second heron take"}},
		{name: "System", hidden: true, extra: `{"type":"narrator","hidden":true}`, swipes: []string{"猫 sleeps"}},
	})
	old, err := store.Open(ctx, path, store.Options{UpTo: 25})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO chunks_unindexed (key, stale) SELECT (chat_id << 37) | message_id, 1 FROM chunks LIMIT 1`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var copies int
	if err := old.Reader().QueryRowContext(ctx, `SELECT count(*) FROM chunks WHERE body != ''`).Scan(&copies); err != nil || copies != 4 {
		t.Fatalf("schema v25 seed: %d chunks with text, %v", copies, err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	r := openUpgraded(t, path, chatID)
	var bodyColumns int
	var ftsSQL string
	if err := r.db.Reader().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM pragma_table_info('chunks') WHERE name = 'body'),
		(SELECT sql FROM sqlite_master WHERE name = 'chunks_fts')`).Scan(&bodyColumns, &ftsSQL); err != nil {
		t.Fatal(err)
	}
	if bodyColumns != 0 || !strings.Contains(ftsSQL, `detail = 'none'`) {
		t.Fatalf("after the upgrade: %d body columns in chunks, index %s", bodyColumns, ftsSQL)
	}
	r.expect("lantern", noOpts, 0, 1)
	r.expect("LANTERN FLICK", noOpts, 0)
	r.expect("heron", noOpts, 2)
	r.expect("owl", noOpts)
	r.expect("東京", noOpts, 1)
	r.expect("猫", noOpts)
	r.expect("猫", SearchOptions{IncludeHidden: true}, 3)
	r.checkIndexInSync()

	ids := r.ids()
	if err := r.s.UpdateMessage(ctx, r.chatID, ids[1], jsonx.Object{"content": jsonx.Raw("a walrus instead")}); err != nil {
		t.Fatal(err)
	}
	r.expect("walrus", noOpts, 1)
	r.expect("lantern", noOpts, 0)
	r.checkIndexInSync()
}

// TestMigrationNamesSwipeRows upgrades a schema v26 database: each chunk
// names the swipe row that holds its message's text before anything is
// rebuilt, and a search reads the text through it.
func TestMigrationNamesSwipeRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	seedOldChat(t, path, 2, []oldMessage{
		{name: "Ava", extra: `{}`, swipes: []string{"The Lantern flickered twice"}},
		{name: "Ava", swipeID: 1, extra: `{}`, swipes: []string{"first owl take", "second heron take"}},
	})
	old, err := store.Open(ctx, path, store.Options{UpTo: 26})
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var chunks, named int
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*), count(s.id) FROM chunks c
		LEFT JOIN message_swipes s ON s.id = c.swipe_row AND s.mes = (SELECT body FROM chunk_source t WHERE t.message_id = c.message_id)`).
		Scan(&chunks, &named); err != nil || chunks != 2 || named != 2 {
		t.Fatalf("after the upgrade %d of %d chunks name their text's row, %v", named, chunks, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	r := openUpgraded(t, path, "0b6f3c1e-5d2a-4c8e-9f10-2a3b4c5d6e7f")
	r.expect("heron", noOpts, 1)
	r.expect("owl", noOpts)
	r.expect("lantern", noOpts, 0)
	r.checkIndexInSync()
}
