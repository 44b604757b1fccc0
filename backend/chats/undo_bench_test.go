package chats

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"hearth/backend/characters"
	"hearth/backend/events"
	"hearth/backend/internal/chatgen"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/search"
	"hearth/backend/store"
)

// BenchmarkUndo measures undo on the generated 10,000-message chat of the
// host benchmarks (chatgen seed 1: ≈1.2 KB bodies, two swipes each).
// edit10k: undo of one message edit (the edit is made, untimed, before
// each undo, and the search index catches up with it); goal ≤ 2 ms. deleteMiddle10k: undo of deleting the middle
// message, which puts it back and moves the 5,000 messages after it
// (reported, no goal).
func BenchmarkUndo(b *testing.B) {
	ctx := context.Background()
	s, idx, id := benchChat(b)
	msgs := chatgen.Messages(chatgen.Options{Seed: 1, Messages: 9999, UserName: "User", CharName: "Seraphina"})
	for _, batch := range chatgen.Batches(msgs, 500) {
		raws := make([]json.RawMessage, len(batch))
		for i, m := range batch {
			raws[i], _ = json.Marshal(m)
		}
		if _, err := s.AddMessages(ctx, id, raws, WriteOptions{Silent: true}); err != nil {
			b.Fatal(err)
		}
	}
	mid := 5000
	texts := chatgen.Messages(chatgen.Options{Seed: 7, Messages: 2})
	b.Run("edit10k", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			mes, _ := json.Marshal(texts[i%2]["mes"])
			if err := s.UpdateMessages(ctx, id, []Update{{Index: mid, Patch: jsonx.Object{"mes": mes}}}, WriteOptions{}); err != nil {
				b.Fatal(err)
			}
			settleIndex(b, idx)
			b.StartTimer()
			if _, err := s.Undo(ctx, id, WriteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	})
	b.Run("deleteMiddle10k", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			if _, err := s.DeleteMessages(ctx, id, []int{mid}, DeleteOptions{}); err != nil {
				b.Fatal(err)
			}
			settleIndex(b, idx)
			b.StartTimer()
			if _, err := s.Undo(ctx, id, WriteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	})
}

// settleIndex waits until the search index has caught up with the writes
// so far, as it has by the time a person undoes what they just did: the
// index work a write queues runs after it commits, and would otherwise
// compete with the timed step.
func settleIndex(b *testing.B, idx *search.Indexer) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := idx.Wait(ctx); err != nil {
		b.Fatalf("the search index did not catch up within 30 s: %v", err)
	}
}

// benchChat opens a service in a temp dir with one character chat (its
// greeting included), as newService and newChat do for tests, its writes
// indexed in the background as the app's are.
func benchChat(b *testing.B) (*Service, *search.Indexer, string) {
	ctx := context.Background()
	dir := b.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "hearth.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	files, err := media.New(filepath.Join(dir, "media"))
	if err != nil {
		b.Fatal(err)
	}
	bus := events.NewBus()
	b.Cleanup(func() { bus.Close(); db.Close() })
	chars := characters.New(db, bus, files, nil, time.Now)
	idx := search.NewIndexer(db)
	s := New(db, bus, chars, time.Now, Hooks{Index: idx})
	idx.Start()
	b.Cleanup(func() { idx.Close() })
	card, err := chars.Create(ctx, jsonx.Object{"name": jsonx.Raw("Seraphina"), "first_mes": jsonx.Raw("Hello")}, characters.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	sum, err := s.Create(ctx, Owner{Avatar: card.Avatar}, CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return s, idx, sum.ChatID
}
