package agent_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"hearth/backend/events"
)

// BenchmarkAgentRound measures Hearth's own work per tool round of a run,
// the model excluded: a run of 10 write_file rounds, then commit and
// finish, against a scripted server that answers at once; from the start
// call to run_completed on the bus, minus the time spent inside the
// provider (model_completed's durationMs), divided by the rounds. Each
// round stores its events, writes a file crash-safely, puts its blob and
// records a checkpoint.
func BenchmarkAgentRound(b *testing.B) {
	r := newRig(b)
	const writes = 10
	done := make(chan string, 16)
	off := r.app.Bus.Subscribe(func(e events.Event) {
		if p, ok := e.Payload.(*events.AgentRunEventPayload); ok && p.Type == "run_completed" {
			done <- p.RunID
		}
	})
	defer off()
	var perRound []float64
	for b.Loop() {
		for i := range writes {
			r.model.Push(round("", call{"workspace_write_file", map[string]any{"path": fmt.Sprintf("scratch/part-%d.md", i), "content": "A paragraph of the draft, long enough to be a real write of a few hundred bytes. " + fmt.Sprint(i)}}))
		}
		r.model.Push(round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The reply."}}),
			round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}))
		t0 := time.Now()
		h := r.start(nil)
		for id := range done {
			if id == h.RunID {
				break
			}
		}
		total := time.Since(t0)
		model := 0.0
		rounds := 0
		for _, e := range r.events(h.RunID) {
			if e.Type == "model_completed" {
				var p struct {
					DurationMs float64 `json:"durationMs"`
				}
				_ = json.Unmarshal(e.Payload, &p)
				model += p.DurationMs
				rounds++
			}
		}
		perRound = append(perRound, (float64(total.Microseconds())/1000-model)/float64(rounds))
	}
	slices.Sort(perRound)
	b.ReportMetric(perRound[len(perRound)/2], "overhead-ms/round")
}
