package agent_test

import (
	"testing"
	"time"

	"hearth/backend/agent"
)

// TestLastWriteIsReported: a run whose one model reply writes a file,
// commits and finishes ends within the watcher's settle delay; the write
// is still published as WORKSPACE_FILE_CHANGED, once, before the run's
// run_completed, and no file the run did not touch is.
func TestLastWriteIsReported(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.model.Push(round("",
		call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The lantern went out."}},
		call{"workspace_commit", map[string]any{}},
		call{"workspace_finish", map[string]any{}}))
	h := r.start(nil)
	r.waitStatus(h.RunID, "completed")
	var changed []map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for done := false; !done; {
		changed, done = nil, false
		r.mu.Lock()
		for _, e := range r.evs {
			switch {
			case e.Type == agent.EventWorkspaceFileChanged && e.Payload["runId"] == h.RunID:
				changed = append(changed, e.Payload)
			case e.Type == agent.EventRunEvent && e.Payload["runId"] == h.RunID && e.Payload["type"] == "run_completed":
				done = true
			}
			if done {
				break
			}
		}
		r.mu.Unlock()
		if !done && time.Now().After(deadline) {
			t.Fatal("run_completed was never published")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(changed) != 1 || changed[0]["path"] != "output/main.md" || changed[0]["op"] != "write" || changed[0]["sha256"] == "" {
		t.Fatalf("WORKSPACE_FILE_CHANGED before run_completed: %v; want one write of output/main.md", changed)
	}
}
