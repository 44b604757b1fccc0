package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// indexQueuedNow reports whether any chunk or index work is queued.
func (r *searchRig) indexQueuedNow() bool {
	r.t.Helper()
	var queued bool
	if err := r.db.Reader().QueryRowContext(context.Background(), indexWorkQueued).Scan(&queued); err != nil {
		r.t.Fatal(err)
	}
	return queued
}

// isBusy reports whether a round is running.
func (x *Indexer) isBusy() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.busy
}

// queueCounts counts the messages queued one by one for a chunk rebuild,
// the chunk backlogs and the keys queued for indexing.
func (r *searchRig) queueCounts() [3]int {
	r.t.Helper()
	var n [3]int
	if err := r.db.Reader().QueryRowContext(context.Background(), `SELECT (SELECT count(*) FROM chunks_pending),
		(SELECT count(*) FROM chunks_backlog), (SELECT count(*) FROM chunks_unindexed)`).Scan(&n[0], &n[1], &n[2]); err != nil {
		r.t.Fatal(err)
	}
	return n
}

// TestIndexerCloseStopsRound closes the indexer in the middle of a long
// round: Close returns once the goroutine has, without finishing the round,
// whose work stays queued; later writes and Start leave the indexer
// stopped, and a search still catches up on everything.
func TestIndexerCloseStopsRound(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	// Four hundred 1 KB messages: a second or more of paced background
	// work, most of it indexing.
	const n = 400
	msgs := make([]map[string]any, n)
	for i := range msgs {
		msgs[i] = msgBot(fmt.Sprintf("osprey %d %s", i, filler(i)[:1000]))
	}
	r.add(r.chatID, msgs...)
	// Close once the round has committed work: past its first batch.
	deadline := time.Now().Add(10 * time.Second)
	for !r.idx.isBusy() || r.queueCounts()[0] == n {
		if time.Now().After(deadline) {
			t.Fatal("the write started no round within 10 s")
		}
		time.Sleep(time.Millisecond)
	}
	began := time.Now()
	if err := r.idx.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("Close took %v with a round under way", took)
	}
	select {
	case <-r.idx.done:
	default:
		t.Fatal("Close returned before the goroutine did")
	}
	left := r.queueCounts()
	if left == [3]int{} {
		t.Fatal("the round finished its work: the test closed it too late to tell")
	}

	// Closed for good: a write's kick, and Start, run nothing.
	r.idx.Start()
	r.add(r.chatID, msgUser("a heron after the close"))
	if err := r.idx.Wait(context.Background()); err != nil {
		t.Fatalf("Wait on a closed indexer: %v", err)
	}
	time.Sleep(4 * indexGather)
	if got, want := r.queueCounts(), [3]int{left[0] + 1, left[1], left[2]}; got != want {
		t.Errorf("queued after the close: %v (pending, backlogs, unindexed), want %v", got, want)
	}
	if err := r.idx.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	r.expect("heron", noOpts, n)
	r.expect(fmt.Sprintf("osprey %d", n-1), noOpts, n-1)
	r.checkIndexInSync()
}

// TestIndexerKickBeforeStart: a round kicked before Start is due, and Wait
// waits for it; Start runs it, and with no search asking, every queue is
// then empty.
func TestIndexerKickBeforeStart(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	holdIndexer(t, r)
	r.add(r.chatID, msgUser("written while no indexer ran"), msgBot(strings.Repeat("a long reply ", 40)))
	if !r.indexQueuedNow() {
		t.Fatal("the writes queued no work")
	}
	x := NewIndexer(r.db)
	t.Cleanup(func() { x.Close() })
	x.Kick()
	short, cancel := context.WithTimeout(context.Background(), 3*indexGather)
	defer cancel()
	if err := x.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with a round due and no goroutine: %v, want the deadline", err)
	}
	x.Start()
	x.Start()
	r.idx = x
	waitIndexer(t, r)
	if r.indexQueuedNow() {
		t.Error("work still queued after the round kicked before Start")
	}
	r.checkIndexInSync()
}
