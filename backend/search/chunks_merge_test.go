package search

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/store"
)

// indexSegments counts the full-text index's segments: each has at least
// one row in FTS5's page index.
func (r *searchRig) indexSegments() int {
	r.t.Helper()
	var n int
	if err := r.db.Reader().QueryRowContext(context.Background(), `SELECT count(DISTINCT segid) FROM chunks_fts_idx`).Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

// segmentedRig is a rig whose index holds many segments: forty messages,
// each indexed in a transaction of its own (as the background indexer
// does with messages written one at a time), the background indexer held
// off.
func segmentedRig(t *testing.T) *searchRig {
	t.Helper()
	r := newSearchRig(t)
	holdIndexer(t, r)
	other := r.newChat("Other")
	ctx := context.Background()
	for i := range 40 {
		chat := r.chatID
		if i%4 == 3 {
			chat = other
		}
		r.add(chat, msgUser(fmt.Sprintf("message %d of the lantern keeper 灯台守 %d %s", i, i*7, filler(i))))
		if err := flushChunks(ctx, r.db, 0); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// filler is a few kilobytes of text with many distinct trigrams, so a
// segment spans several pages and merging takes more than one step.
func filler(seed int) string {
	var b strings.Builder
	x := uint32(seed*2654435761 + 1)
	for range 3000 {
		x = x*1664525 + 1013904223
		b.WriteByte("abcdefghijklmnopqrstuvwxyz      "[x>>27])
	}
	return b.String()
}

// allHits runs queries across all chats and in r's chat.
func (r *searchRig) allHits(queries ...string) map[string][]Hit {
	r.t.Helper()
	out := map[string][]Hit{}
	for _, q := range queries {
		all, err := r.s.SearchAll(context.Background(), q, Options{Limit: optPtr(200)})
		if err != nil {
			r.t.Fatal(err)
		}
		out["all "+q] = all
		out["one "+q] = r.search(q, Options{Limit: optPtr(200)})
	}
	return out
}

// TestMergeFoldsIndexSegments: merging leaves at most three segments (the
// levels FTS5's usermerge leaves), finds the same hits, with the same
// scores, and passes FTS5's own integrity check; a second pass finds
// nothing to do.
func TestMergeFoldsIndexSegments(t *testing.T) {
	t.Parallel()
	r := segmentedRig(t)
	ctx := context.Background()
	before := r.indexSegments()
	if before < 8 {
		t.Fatalf("the rig's index has %d segments; the test needs many", before)
	}
	queries := []string{"lantern", "keeper 灯台", "message 3", "灯", "7"}
	want := r.allHits(queries...)

	// One page a step: many steps, each its own transaction.
	if err := mergePaced(ctx, r.db, 1, 0); err != nil {
		t.Fatal(err)
	}
	if after := r.indexSegments(); after > 3 {
		t.Errorf("after merging: %d segments (before: %d), want at most 3", after, before)
	}
	if got := r.allHits(queries...); !reflect.DeepEqual(got, want) {
		t.Errorf("hits changed by merging:\n got %+v\nwant %+v", got, want)
	}
	err := r.db.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')`); err != nil {
			return err
		}
		merged, err := mergeStep(ctx, tx, indexMergePages)
		if err == nil && merged {
			err = fmt.Errorf("a merge step after a full merge reported work")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r.checkIndexInSync()
}

// TestMergeWaitsForQueuedIndexWork: with index work queued, merging does
// nothing and leaves it to the indexer's next round.
func TestMergeWaitsForQueuedIndexWork(t *testing.T) {
	t.Parallel()
	r := segmentedRig(t)
	r.add(r.chatID, msgUser("queued, not yet indexed"))
	before := r.indexSegments()
	if err := mergePaced(context.Background(), r.db, indexMergePages, 0); err != nil {
		t.Fatal(err)
	}
	if after := r.indexSegments(); after != before {
		t.Errorf("merging with work queued: %d segments, was %d", after, before)
	}
}

// TestBackgroundIndexerMerges: the background indexer, once its queue is
// done, merges the index.
func TestBackgroundIndexerMerges(t *testing.T) {
	t.Parallel()
	r := segmentedRig(t)
	r.add(r.chatID, msgUser("one more for the indexer"))
	before := r.indexSegments()
	releaseIndexer(t, r)
	r.idx.Kick()
	waitIndexer(t, r)
	if after := r.indexSegments(); after > 3 {
		t.Errorf("after the background indexer: %d segments (before: %d), want at most 3", after, before)
	}
	r.expect("one more", noOpts, 30)
}
