package agent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/backend/agent"
	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
	pt "hearth/backend/providers/providertest"
)

// workspaceRoot is the folder of a run's workspace.
func (r *rig) workspaceRoot(h handle) string {
	return filepath.Join(r.dir, "agent", "workspaces", h.WorkspaceID, "runs", h.RunID)
}

// waitFor waits until the run has an event for which match holds, and
// returns it.
func (r *rig) waitFor(runID, what string, match func(e event) bool) event {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, e := range r.events(runID) {
			if match(e) {
				return e
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("run %s never had %s; events %v", runID, what, types(r.events(runID)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// find returns the run's first event for which match holds, failing the
// test when there is none (for events stored before the run ended).
func (r *rig) find(runID, what string, match func(e event) bool) event {
	r.t.Helper()
	for _, e := range r.events(runID) {
		if match(e) {
			return e
		}
	}
	r.t.Fatalf("run %s has no %s; events %v", runID, what, types(r.events(runID)))
	return event{}
}

// payloadOf decodes an event's payload.
func payloadOf(t testing.TB, e event) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// outsideChange matches the run's record of an outside change of path.
func outsideChange(path string) func(e event) bool {
	return func(e event) bool {
		return e.Type == "workspace_file_changed_externally" && strings.Contains(string(e.Payload), `"path":"`+path+`"`)
	}
}

// limitReached matches a workspace_limit_reached event of limit.
func limitReached(limit string) func(e event) bool {
	return func(e event) bool {
		return e.Type == "workspace_limit_reached" && strings.Contains(string(e.Payload), `"limit":"`+limit+`"`)
	}
}

// manifests reads every checkpoint of a run back whole, oldest first.
func (r *rig) manifests(runID string) []workspace.Manifest {
	r.t.Helper()
	runs := runstore.New(r.app.Store, nil)
	list, err := runs.Checkpoints(r.ctx, runID)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []workspace.Manifest
	for _, c := range list {
		cp, err := runs.Checkpoint(r.ctx, runID, c.ID)
		if err != nil {
			r.t.Fatal(err)
		}
		var m workspace.Manifest
		if err := json.Unmarshal(cp.Manifest, &m); err != nil {
			r.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// toolError is the error code of a tool result, "" when it succeeded.
func toolError(t testing.TB, result string) (string, map[string]any) {
	t.Helper()
	var res struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(result), &res); err != nil {
		t.Fatalf("tool result %q: %v", result, err)
	}
	if res.Error == nil {
		return "", nil
	}
	return res.Error.Code, map[string]any{"message": res.Error.Message}
}

// TestWorkspaceCapsInARun: in a workspace holding all the folders it may,
// the model's write into a new folder comes back to it as
// workspace.quota_exceeded and writes nothing (no folder, no checkpoint);
// a write into a folder that exists goes through and the run finishes.
// Folders made from outside past what the watcher watches are left
// unwatched, with one workspace_limit_reached warning.
func TestWorkspaceCapsInARun(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	full, more := make(chan struct{}), make(chan struct{})
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The reply."}}),
		pt.Script{Wait: full, Chunks: round("", call{"workspace_write_file", map[string]any{"path": "scratch/notes/new/a.md", "content": "a note"}}).Chunks, Done: true},
		round("", call{"workspace_write_file", map[string]any{"path": "scratch/d005/a.md", "content": "a note"}}),
		pt.Script{Wait: more, Chunks: round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}).Chunks, Done: true},
	)
	h := r.start(nil)
	r.waitEvent(h.RunID, "workspace_file_written")
	root := r.workspaceRoot(h)
	for i := range workspace.MaxWorkspaceFolders {
		if err := os.Mkdir(filepath.Join(root, "scratch", fmt.Sprintf("d%03d", i)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	checkpoints := len(r.manifests(h.RunID))
	close(full)
	failed := r.waitEvent(h.RunID, "tool_call_failed")
	if p := payloadOf(t, failed); p["code"] != agent.CodeQuotaExceeded || !strings.Contains(p["message"].(string), "folders") {
		t.Fatalf("the write into a new folder failed with %v", p)
	}
	if _, err := os.Stat(filepath.Join(root, "scratch", "notes")); !os.IsNotExist(err) {
		t.Fatalf("the refused write left scratch/notes behind (%v)", err)
	}
	r.waitFor(h.RunID, "the write into scratch/d005", func(e event) bool {
		return e.Type == "workspace_file_written" && strings.Contains(string(e.Payload), "scratch/d005/a.md")
	})
	ms := r.manifests(h.RunID)
	if len(ms) != checkpoints+1 {
		t.Fatalf("%d checkpoints after the refused write and the next one, want %d", len(ms), checkpoints+1)
	}
	if _, ok := ms[len(ms)-1]["scratch/d005/a.md"]; !ok {
		t.Fatalf("the write into an existing folder is not in its checkpoint: %v", ms[len(ms)-1].Paths())
	}

	// Twelve folders more than a workspace may hold, made from outside:
	// the watcher watches no more than a full workspace needs.
	for i := range 12 {
		if err := os.Mkdir(filepath.Join(root, "plan", fmt.Sprintf("p%02d", i)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	lim := payloadOf(t, r.waitFor(h.RunID, "a watches limit", limitReached(agent.LimitWatches)))
	close(more)
	r.waitStatus(h.RunID, "completed")
	if lim["max"] != float64(workspace.MaxWorkspaceFolders+6) {
		t.Fatalf("workspace_limit_reached %v", lim)
	}
	if n := count(types(r.events(h.RunID)), "workspace_limit_reached"); n != 1 {
		t.Fatalf("%d workspace_limit_reached events, want one", n)
	}
	if r.lastMessage()["mes"] != "The reply." {
		t.Fatalf("reply %v", r.lastMessage()["mes"])
	}
}

// TestFloodOfFilesFromOutside: more files than a workspace may hold,
// written into it from outside while a run waits on the model. The run
// records outside changes up to its bound and then warns once
// (workspace_limit_reached "changes"); the model's next new file is
// refused, and so is keeping an answer it gave without tools (which the
// reminder says, the run going on); the checkpoint that follows takes in
// files up to the cap and warns once ("files"); the run commits and
// completes.
func TestFloodOfFilesFromOutside(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	gate := make(chan struct{})
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The reply."}}),
		pt.Script{Wait: gate, Chunks: round("", call{"workspace_write_file", map[string]any{"path": "output/more.md", "content": "x"}}).Chunks, Done: true},
		round("An answer without tools, which the workspace has no room to keep."),
		round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}),
	)
	h := r.start(nil)
	r.waitEvent(h.RunID, "workspace_file_written")
	root := r.workspaceRoot(h)
	const flood = workspace.MaxWorkspaceFiles + 20
	for i := range flood {
		if err := os.WriteFile(filepath.Join(root, "scratch", fmt.Sprintf("f%05d.md", i)), []byte(fmt.Sprint(i)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r.waitFor(h.RunID, "a changes limit", limitReached(agent.LimitChanges))
	close(gate)
	r.waitStatus(h.RunID, "completed")

	evs := r.events(h.RunID)
	if n := count(types(evs), "workspace_file_changed_externally"); n != workspace.MaxWorkspaceFiles {
		t.Fatalf("%d outside changes recorded, want the bound, %d", n, workspace.MaxWorkspaceFiles)
	}
	if code, _ := toolError(t, r.toolResults(2)[1]); code != agent.CodeQuotaExceeded {
		t.Fatalf("a new file in a flooded workspace answered %q", r.toolResults(2)[1])
	}
	if body, _ := json.Marshal(r.model.Requests()[3].Body); !strings.Contains(string(body), "could not be kept in scratch/direct_output.md") {
		t.Fatalf("the reminder after an answer without tools does not say it was not kept: %s", body)
	}
	files := payloadOf(t, r.find(h.RunID, "files limit", limitReached(workspace.LimitFiles)))
	if files["max"] != float64(workspace.MaxWorkspaceFiles) {
		t.Fatalf("files limit %v", files)
	}
	ms := r.manifests(h.RunID)
	last := ms[len(ms)-1]
	if len(last) != workspace.MaxWorkspaceFiles {
		t.Fatalf("the last checkpoint holds %d files; want the cap, %d", len(last), workspace.MaxWorkspaceFiles)
	}
	if _, ok := last["output/main.md"]; !ok {
		t.Fatal("the run's own file lost its place to files dropped in")
	}
	if r.lastMessage()["mes"] != "The reply." {
		t.Fatalf("reply %v", r.lastMessage()["mes"])
	}
}
