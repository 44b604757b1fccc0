package runstore

import (
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/backend/store"
)

// prefill gives a new run n events in all, in one transaction.
func prefill(b *testing.B, f *fixture, n int) Run {
	b.Helper()
	r := f.newRun(b, "chat-bench")
	err := f.db.InTx(f.ctx, func(tx *store.Tx) error {
		for range n - 1 {
			if _, _, err := f.s.AppendTx(f.ctx, tx, r.ID, EventInput{Type: "model_delta", Payload: benchPayload}, Change{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// benchPayload marshals to about 200 bytes, a typical tool or delta event.
var benchPayload = map[string]any{"callId": "call_0123456789", "tool": "workspace.write_file",
	"text": strings.Repeat("lorem ipsum ", 12)}

// reportP50 adds the median of the per-op durations as a metric: the
// issue's goals are medians (p50), which ns/op (a mean) does not show.
func reportP50(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
}

// BenchmarkAppendEvent appends one event to a run that holds 10,000
// (goal: ≤ 0.5 ms p50).
func BenchmarkAppendEvent(b *testing.B) {
	f := newFixture(b)
	r := prefill(b, f, 10_000)
	var durations []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if _, _, err := f.s.Append(f.ctx, r.ID, EventInput{Type: "model_delta", Payload: benchPayload}, Change{}); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	reportP50(b, durations)
}

// BenchmarkReadEventsPage reads a page of 100 from the middle of a run of
// 10,000 events (goal: ≤ 3 ms).
func BenchmarkReadEventsPage(b *testing.B) {
	f := newFixture(b)
	r := prefill(b, f, 10_000)
	var durations []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		events, hasMore, err := f.s.Events(f.ctx, r.ID, 5_000, nil, 100)
		if err != nil || len(events) != 100 || !hasMore {
			b.Fatalf("%d events, hasMore %v, %v", len(events), hasMore, err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	reportP50(b, durations)
}
