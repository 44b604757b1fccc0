package search

// Upgrades of the search schema: databases as older Hearths left them,
// with messages in them, opened by this one.

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/chats/chatstest"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

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
	chatID := chatstest.SeedOldChat(t, path, 2, []chatstest.OldMessage{
		{Name: "Ava", Extra: `{}`, Swipes: []string{"Hi"}},
		{Name: "User", IsUser: true, Extra: `{}`, Swipes: []string{"an upgraded lantern"}},
		{Name: "System", Hidden: true, Extra: `{"type":"narrator","hidden":true}`, Swipes: []string{"東京"}},
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
	hits := r.search("東京", Options{IncludeHidden: true})
	if len(hits) != 1 || hits[0].Role != "system" {
		t.Errorf("hidden narrator after the upgrade: %+v", hits)
	}
	r.checkIndexInSync()
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
	chatID := chatstest.SeedOldChat(t, path, 2, []chatstest.OldMessage{
		{Name: "Ava", Extra: `{}`, Swipes: []string{"The Lantern flickered twice"}},
		{Name: "User", IsUser: true, Extra: `{}`, Swipes: []string{"a lantern, and 東京 at night"}},
		{Name: "Ava", SwipeID: 1, Extra: `{}`, Swipes: []string{"first owl take", "second heron take"}},
		{Name: "System", Hidden: true, Extra: `{"type":"narrator","hidden":true}`, Swipes: []string{"猫 sleeps"}},
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
	r.expect("猫", Options{IncludeHidden: true}, 3)
	r.checkIndexInSync()

	ids := r.ids()
	if err := r.chats.UpdateMessage(ctx, r.chatID, ids[1], jsonx.Object{"content": jsonx.Raw("a walrus instead")}); err != nil {
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
	chatstest.SeedOldChat(t, path, 2, []chatstest.OldMessage{
		{Name: "Ava", Extra: `{}`, Swipes: []string{"The Lantern flickered twice"}},
		{Name: "Ava", SwipeID: 1, Extra: `{}`, Swipes: []string{"first owl take", "second heron take"}},
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
	r := openUpgraded(t, path, chatstest.OldChatID)
	r.expect("heron", noOpts, 1)
	r.expect("owl", noOpts)
	r.expect("lantern", noOpts, 0)
	r.checkIndexInSync()
}
