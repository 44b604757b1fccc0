package chats

// Upgrades: databases as older Hearths left them, with messages in them,
// opened by this one. The search schema's: backend/search/migration_test.go.

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"hearth/backend/chats/chatstest"
	"hearth/backend/store"
)

// openUpgraded opens the database at path with every migration applied.
func openUpgraded(t *testing.T, path, chatID string) *chatRig {
	t.Helper()
	r := chatRigAt(t, path)
	r.chatID = chatID
	return r
}

// TestMigrationSharesBodies opens a database from before shared bodies
// (schema v16): every message reads back as it was, each owns the body its
// rows were keyed by, and writes, branches and deletes work on them.
func TestMigrationSharesBodies(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.db")
	chatID := chatstest.SeedOldChat(t, path, 16, []chatstest.OldMessage{
		{Name: "Ava", Extra: `{}`, Swipes: []string{"Hi"}},
		{Name: "User", IsUser: true, Extra: `{"note":"kept"}`, Swipes: []string{"a lantern"}},
		{Name: "Ava", SwipeID: 1, Extra: `{}`, Swipes: []string{"first take", "second take", "third take"}},
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
	chatID := chatstest.SeedOldChat(t, path, 16, []chatstest.OldMessage{
		{Name: "Ava", Extra: `{}`, Swipes: []string{"Hi"}},
		{Name: "User", IsUser: true, Extra: `{}`, Swipes: []string{"two keys"}},
		{Name: "Ava", Extra: `{}`, Swipes: []string{"one key"}},
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
