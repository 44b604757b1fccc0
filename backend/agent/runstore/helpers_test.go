package runstore

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/store"
)

// clock is a settable test clock, safe for concurrent use.
type clock struct{ ms atomic.Int64 }

func (c *clock) now() time.Time { return time.UnixMilli(c.ms.Load()) }
func (c *clock) set(ms int64)   { c.ms.Store(ms) }

// fixture is a Store over a fresh database in a temp dir.
type fixture struct {
	ctx   context.Context
	db    *store.Store
	s     *Store
	clock *clock
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(tb.TempDir(), "hearth.db"), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	c := &clock{}
	c.set(1_700_000_000_000)
	return &fixture{ctx: ctx, db: db, s: New(db, c.now), clock: c}
}

// newRun creates a run of chat chatID in status created.
func (f *fixture) newRun(tb testing.TB, chatID string) Run {
	tb.Helper()
	r, _, err := f.s.Create(f.ctx, Run{ChatID: chatID, WorkspaceID: "ws_0123456789abcdef", GenerationType: "normal", Presentation: "foreground",
		Snapshot: json.RawMessage(`{"messages":[]}`), Profile: json.RawMessage(`{"id":"default-writer"}`)},
		EventInput{Type: "run_created", Payload: map[string]any{"chatId": chatID}})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// setStatus appends a status change.
func (f *fixture) setStatus(tb testing.TB, runID, status string) Run {
	tb.Helper()
	_, r, err := f.s.Append(f.ctx, runID, EventInput{Type: "run_status_changed", Payload: map[string]any{"status": status}}, Change{Status: status})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// wantCode fails unless err carries code.
func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := apperr.CodeOf(err); got != code {
		tb.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}
