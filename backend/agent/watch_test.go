package agent_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/backend/agent"
	"hearth/backend/agent/workspace"
	"hearth/backend/events"
	pt "hearth/backend/providers/providertest"
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
	var changed []*events.WorkspaceFileChangedPayload
	deadline := time.Now().Add(10 * time.Second)
	for done := false; !done; {
		changed, done = nil, false
		r.mu.Lock()
		for _, e := range r.evs {
			switch p := e.Payload.(type) {
			case *events.WorkspaceFileChangedPayload:
				if p.RunID == h.RunID {
					changed = append(changed, p)
				}
			case *events.AgentRunEventPayload:
				done = p.RunID == h.RunID && p.Type == "run_completed"
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
	if len(changed) != 1 || changed[0].Path != "output/main.md" || changed[0].Op != "write" || changed[0].Sha256 == "" {
		t.Fatalf("WORKSPACE_FILE_CHANGED before run_completed: %+v; want one write of output/main.md", changed)
	}
}

// TestWatcherNeverReadsThroughSymlinks: links put into a running
// workspace from outside, to a file and a folder outside it holding a
// secret, are reported as what they are (op "symlink") and never read:
// neither the secret nor its hash reaches the run's events, the bus, a
// checkpoint, the chat's carried state, the blob store or the model,
// which cannot read, list or search through them either.
func TestWatcherNeverReadsThroughSymlinks(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	outside := t.TempDir()
	secret := "hearth-secret-" + strings.Repeat("7b1e", 8)
	secretSHA := fmt.Sprintf("%x", sha256.Sum256([]byte(secret)))
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The reply."}}),
		pt.Script{Wait: gate, Chunks: round("", call{"workspace_read_file", map[string]any{"path": "scratch/leak.md"}},
			call{"workspace_read_file", map[string]any{"path": "scratch/linkdir/secret.txt"}},
			call{"workspace_list_files", map[string]any{}},
			call{"workspace_search_files", map[string]any{"query": "hearth-secret"}}).Chunks, Done: true},
		round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}),
	)
	h := r.start(nil)
	r.waitEvent(h.RunID, "workspace_file_written")
	root := r.workspaceRoot(h)
	links := [][2]string{
		{"scratch/leak.md", filepath.Join(outside, "secret.txt")},
		{"persist/leak.md", filepath.Join(outside, "secret.txt")},
		{"scratch/linkdir", outside},
	}
	for _, l := range links {
		if err := os.Symlink(l[1], filepath.Join(root, filepath.FromSlash(l[0]))); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range links {
		rel := l[0]
		p := payloadOf(t, r.waitFor(h.RunID, "the watcher's report of "+rel, outsideChange(rel)))
		if p["op"] != "symlink" || p["sha256"] != "" {
			t.Fatalf("the link %s was reported as %v", rel, p)
		}
	}
	close(gate)
	r.waitStatus(h.RunID, "completed")

	res := r.toolResults(2)
	for i, want := range []string{agent.CodePathDenied, agent.CodePathDenied, "", ""} {
		if code, _ := toolError(t, res[1+i]); code != want {
			t.Errorf("call %d answered %s; want code %q", i, res[1+i], want)
		}
	}
	leaked := func(where, text string) {
		t.Helper()
		if strings.Contains(text, secret) || strings.Contains(text, secretSHA) {
			t.Errorf("the secret reached %s", where)
		}
	}
	for _, e := range r.events(h.RunID) {
		leaked("run event "+e.Type, string(e.Payload))
	}
	r.flush()
	r.mu.Lock()
	for _, e := range r.evs {
		raw, _ := json.Marshal(e.Payload)
		leaked("bus event "+e.Type, string(raw))
	}
	r.mu.Unlock()
	for i, m := range r.manifests(h.RunID) {
		raw, _ := json.Marshal(m)
		leaked(fmt.Sprintf("checkpoint %d", i+1), string(raw))
	}
	var stored string
	if err := r.app.Store.Reader().QueryRowContext(r.ctx, `SELECT
		(SELECT group_concat(manifest, ' ') FROM agent_checkpoints) || ' ' ||
		(SELECT group_concat(COALESCE(persist, ''), ' ') FROM agent_runs) || ' ' ||
		(SELECT group_concat(persist, ' ') FROM agent_chat_state)`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	leaked("the database", stored)
	for _, req := range r.model.Requests() {
		raw, _ := json.Marshal(req.Body)
		leaked("a model request", string(raw))
	}
	_ = filepath.WalkDir(filepath.Join(r.dir, "agent", "blobs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			leaked("the blob "+d.Name(), d.Name()+" "+string(data))
		}
		return nil
	})
}

// TestTooLargeDropInIsNotIngested: a file over workspace.MaxFileBytes
// moved into a running workspace is reported as op "too_large" with its
// size, unread (no hash); the next checkpoint leaves it out with a
// workspace_limit_reached warning, and no blob or checkpoint holds it.
func TestTooLargeDropInIsNotIngested(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	gate := make(chan struct{})
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The reply."}}),
		pt.Script{Wait: gate, Chunks: round("", call{"workspace_write_file", map[string]any{"path": "scratch/after.md", "content": "later"}}).Chunks, Done: true},
		round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}),
	)
	h := r.start(nil)
	r.waitEvent(h.RunID, "workspace_file_written")
	huge := []byte(strings.Repeat("HUGE-MARKER ", workspace.MaxFileBytes/12+1)[:workspace.MaxFileBytes+1])
	staged := filepath.Join(r.dir, "huge.log") // written whole, then moved in at once
	if err := os.WriteFile(staged, huge, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(staged, filepath.Join(r.workspaceRoot(h), "scratch", "huge.log")); err != nil {
		t.Fatal(err)
	}
	p := payloadOf(t, r.waitFor(h.RunID, "the watcher's report of scratch/huge.log", outsideChange("scratch/huge.log")))
	if p["op"] != "too_large" || p["sha256"] != "" || p["bytes"] != float64(workspace.MaxFileBytes+1) {
		t.Fatalf("the big file was reported as %v", p)
	}
	close(gate)
	r.waitStatus(h.RunID, "completed")

	lim := payloadOf(t, r.find(h.RunID, "file_bytes limit", limitReached(workspace.LimitFileBytes)))
	if lim["max"] != float64(workspace.MaxFileBytes) || fmt.Sprint(lim["paths"]) != "[scratch/huge.log]" {
		t.Fatalf("workspace_limit_reached %v", lim)
	}
	ms := r.manifests(h.RunID)
	for i, m := range ms {
		if _, ok := m["scratch/huge.log"]; ok {
			t.Fatalf("checkpoint %d holds scratch/huge.log", i+1)
		}
	}
	if _, ok := ms[len(ms)-1]["scratch/after.md"]; !ok {
		t.Fatalf("the write after the drop is not in the last checkpoint: %v", ms[len(ms)-1].Paths())
	}
	hugeSHA := fmt.Sprintf("%x", sha256.Sum256(huge))
	if _, err := os.Stat(filepath.Join(r.dir, "agent", "blobs", hugeSHA[:2], hugeSHA)); !os.IsNotExist(err) {
		t.Fatalf("the big file is in the blob store (%v)", err)
	}
	for _, e := range r.events(h.RunID) {
		if strings.Contains(string(e.Payload), "HUGE-MARKER") || strings.Contains(string(e.Payload), hugeSHA) {
			t.Fatalf("the big file's content reached the event %s", e.Type)
		}
	}
}
