package agent_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/backend/agent"
	"hearth/backend/agent/runstore"
	"hearth/backend/apperr"
	pt "hearth/backend/providers/providertest"
	"hearth/backend/store"
)

// TestStartupSweep: the next start removes what the agent's storage no
// longer needs (unreferenced blobs, stale temp files and run folders
// without a run, all older than the grace period, and the history of a
// chat that is gone) and keeps everything a stored run or chat state
// names.
func TestStartupSweep(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	kept := r.persistRun(r.chatID, "kept across the sweep")
	_ = r.app.Close()

	agentDir := filepath.Join(r.dir, "agent")
	old := time.Now().Add(-time.Hour)
	plant := func(path string, data string, mtime time.Time) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return path
	}
	blob := func(data string) string {
		sum := sha256.Sum256([]byte(data))
		sha := hex.EncodeToString(sum[:])
		return filepath.Join(agentDir, "blobs", sha[:2], sha)
	}
	ws := filepath.Join(agentDir, "workspaces", agent.WorkspaceID(r.chatID))
	gone := []string{
		plant(blob("nobody names this"), "nobody names this", old),
		plant(filepath.Join(agentDir, "blobs", ".hearth-tmp-crashed"), "half a blob", old),
		plant(filepath.Join(ws, "runs", kept, "output", ".hearth-tmp-crashed"), "half a file", old),
		plant(filepath.Join(ws, "runs", "run_stray", "output", "main.md"), "a folder without a run", time.Now()),
	}
	if err := os.Chtimes(filepath.Join(ws, "runs", "run_stray"), old, old); err != nil {
		t.Fatal(err)
	}
	stays := []string{
		// A folder made a moment ago with no run stored yet: a run
		// starting beside the sweep, not a stray.
		plant(filepath.Join(ws, "runs", "run_starting", "output", "main.md"), "a run starting", time.Now()),
		plant(blob("written a moment ago"), "written a moment ago", time.Now()),
		plant(filepath.Join(ws, "runs", kept, "output", ".hearth-tmp-writing"), "a write under way", time.Now()),
		filepath.Join(ws, "runs", kept, "persist", "notes.md"),
	}

	// A chat deleted while the app was not running to hear of it.
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(r.dir, "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ghost, _, err := runstore.New(db, time.Now).Create(ctx, runstore.Run{ChatID: "gone-chat", WorkspaceID: agent.WorkspaceID("gone-chat"),
		GenerationType: "normal", Presentation: "foreground"}, runstore.EventInput{Type: "run_created"})
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	r.open()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		left := 0
		for _, p := range gone {
			if _, err := os.Stat(p); err == nil {
				left++
			}
		}
		_, err := r.invoke("agent.getRun", ghost.ID)
		if left == 0 && apperr.CodeOf(err) == "agent.run_not_found" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the sweep %d of %d planted files are left; the gone chat's run: %v", left, len(gone), err)
		}
	}
	for _, p := range stays {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the sweep removed %s", p)
		}
	}
	// Every blob the chat's state names is still there: the next run
	// starts from it.
	r.model.Push(round("", call{"workspace_read_file", map[string]any{"path": "persist/notes.md"}}), pt.Script{Status: 400, Body: `{"error":{"message":"stop here"}}`})
	h := r.start(nil)
	r.waitStatus(h.RunID, "failed")
	if res := r.toolResults(len(r.model.Requests()) - 1); len(res) != 1 || !strings.Contains(res[0], "kept across the sweep") {
		t.Fatalf("after the sweep the next run read persist/notes.md as %q", res)
	}
}
