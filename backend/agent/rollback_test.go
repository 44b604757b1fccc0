package agent_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
)

// TestRollbackFailureKeepsChat: a rollback with includeChat that cannot
// restore the workspace (its folder deleted by hand, or a blob of the
// target checkpoint missing) fails before the chat changes: the reply,
// the chat's revision and its events are as they were.
func TestRollbackFailureKeepsChat(t *testing.T) {
	t.Parallel()
	const draft = "A draft to roll back to."
	sum := sha256.Sum256([]byte(draft))
	sha := hex.EncodeToString(sum[:])
	cases := []struct {
		name  string
		spoil func(r *rig, root string)
		code  string
	}{
		{"workspace deleted", func(r *rig, root string) {
			if err := os.RemoveAll(root); err != nil {
				t.Fatal(err)
			}
		}, "workspace.file_not_found"},
		{"blob missing", func(r *rig, root string) {
			if err := os.Remove(filepath.Join(r.dir, "agent", "blobs", sha[:2], sha)); err != nil {
				t.Fatal(err)
			}
		}, "agent.blob_missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.model.Push(
				round("", call{"workspace_write_file", map[string]any{"path": "scratch/draft.md", "content": draft}}),
				round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The reply."}}),
				round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}),
			)
			h := r.start(nil)
			r.waitStatus(h.RunID, "completed")
			var cps struct {
				Checkpoints []struct {
					CheckpointID string `json:"checkpointId"`
					Reason       string `json:"reason"`
				} `json:"checkpoints"`
			}
			r.call(&cps, "agent.listCheckpoints", h.RunID)
			target := ""
			for _, cp := range cps.Checkpoints {
				if strings.Contains(cp.Reason, "scratch/draft.md") {
					target = cp.CheckpointID
				}
			}
			if target == "" {
				t.Fatalf("no checkpoint of the draft: %+v", cps.Checkpoints)
			}
			// The run's reply is published after its commit, so a run can be
			// completed before its message_received reaches the recorder;
			// only events after it are the rollback's.
			seen := r.waitMessageEvent(events.MessageReceived, r.lastMessage()["id"])
			before := r.chatState()

			c.spoil(r, filepath.Join(r.dir, "agent", "workspaces", h.WorkspaceID, "runs", h.RunID))
			_, err := r.invoke("agent.rollback", map[string]any{"runId": h.RunID, "checkpointId": target, "includeChat": true})
			if apperr.CodeOf(err) != c.code {
				t.Fatalf("rollback: %v, want %s", err, c.code)
			}
			if after := r.chatState(); after != before {
				t.Fatalf("a failed rollback changed the chat: %+v, was %+v", after, before)
			}
			r.flush()
			r.mu.Lock()
			defer r.mu.Unlock()
			for _, e := range r.evs[seen:] {
				if wire(e)["chatId"] == r.chatID {
					t.Fatalf("a failed rollback emitted %s for the chat", e.Type)
				}
			}
		})
	}
}

// chatState is what a failed rollback must leave alone.
type chatState struct {
	messages int
	last     string
	revision float64
}

func (r *rig) chatState() chatState {
	r.t.Helper()
	var msgs []map[string]any
	r.call(&msgs, "chat.getStMessages", r.chatID)
	var info map[string]any
	r.call(&info, "chat.get", r.chatID)
	rev, ok := info["revision"].(float64)
	if !ok {
		r.t.Fatalf("chat.get has no revision: %v", info)
	}
	last, _ := msgs[len(msgs)-1]["mes"].(string)
	return chatState{messages: len(msgs), last: last, revision: rev}
}

// waitMessageEvent waits until an event of typ for message id of the
// rig's chat has been recorded and returns how many events were recorded
// up to it.
func (r *rig) waitMessageEvent(typ string, id any) int {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r.mu.Lock()
		for i, e := range r.evs {
			if p := wire(e); e.Type == typ && p["chatId"] == r.chatID && p["id"] == id {
				r.mu.Unlock()
				return i + 1
			}
		}
		r.mu.Unlock()
		if time.Now().After(deadline) {
			r.t.Fatalf("no %s for message %v of chat %s", typ, id, r.chatID)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
