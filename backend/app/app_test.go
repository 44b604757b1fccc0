package app

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/jsonx"
	"hearth/backend/search"
)

// indexerGoroutines counts the goroutines running a search.Indexer.
func indexerGoroutines() int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			// Started or not yet scheduled, each names its creator.
			return strings.Count(string(buf[:n]), "created by hearth/backend/search.(*Indexer).Start ")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// TestCloseStopsIndexer: the app starts the background indexer, its chat
// writes kick it, and Close stops it, a round under way included, before
// the database closes; what it left undone, a search of the reopened data
// dir does. Not parallel: it counts the process's indexer goroutines, and
// the parallel tests of this package wait while it runs.
func TestCloseStopsIndexer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	before := indexerGoroutines()
	a, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := indexerGoroutines(); got != before+1 {
		t.Fatalf("%d indexer goroutines after Open, want %d", got, before+1)
	}
	card, err := a.Characters.Create(ctx, jsonx.Object{"name": jsonx.Raw("Ada")}, characters.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := a.Chats.Create(ctx, chats.Owner{Avatar: card.Avatar}, chats.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raws := make([]json.RawMessage, 300)
	for i := range raws {
		raws[i], _ = json.Marshal(map[string]any{"name": "Ada", "is_user": false,
			"mes": fmt.Sprintf("kestrel %d %s", i, strings.Repeat("over the moor ", 60))})
	}
	if _, err := a.Chats.AddMessages(ctx, sum.ChatID, raws, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // into the round the write kicked
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got := indexerGoroutines(); got != before {
		t.Fatalf("%d indexer goroutines after Close, want %d", got, before)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}

	b, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	hits, err := b.Search.Search(ctx, sum.ChatID, "kestrel 299", search.Options{})
	if err != nil || len(hits) != 1 || hits[0].Index != 299 {
		t.Fatalf("search after reopening: %+v, %v; want message 299", hits, err)
	}
}
