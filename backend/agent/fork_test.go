package agent_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hearth/backend/agent"
	"hearth/backend/apperr"

	pt "hearth/backend/providers/providertest"
)

// TestBranchForksPersistAtTheBranchPoint: a branch's next run starts from
// the persist/ the chat had at the branch point (AGENT.md §2), not its
// latest, through branches of branches and after the source is deleted.
func TestBranchForksPersistAtTheBranchPoint(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	// Chat: 0 greeting, 1 user. Run one replies at 2 and leaves "one".
	one := r.persistRun(r.chatID, "one")
	r.call(nil, "chat.addMessages", r.chatID, []any{map[string]any{"is_user": true, "name": "User", "mes": "And then?"}})
	// 3 user; run two replies at 4 and leaves "two".
	two := r.persistRun(r.chatID, "two")

	branch := func(chatID string, index int) string {
		var sum struct {
			ChatID string `json:"chatId"`
		}
		r.call(&sum, "chat.createBranch", chatID, index)
		return sum.ChatID
	}
	atTwo, atFour, atOne := branch(r.chatID, 2), branch(r.chatID, 4), branch(r.chatID, 1)
	for _, tc := range []struct {
		name, chatID, want string
	}{
		{"branch at run one's reply", atTwo, one},
		{"branch at run two's reply", atFour, two},
		{"branch before any run", atOne, ""},
	} {
		if got := r.persistFrom(tc.chatID); got != tc.want {
			t.Errorf("%s: the next run starts from %q, want %q", tc.name, got, tc.want)
		}
	}

	// A branch of a branch, earlier than its own branch point, goes back
	// through its source: there, before run one, there was nothing.
	if got := r.persistFrom(branch(atFour, 1)); got != "" {
		t.Errorf("a branch of a branch at 1 starts from %q, want nothing", got)
	}
	// At 2 of the branch taken at 4: run one's state, found in the source.
	if got := r.persistFrom(branch(atFour, 2)); got != one {
		t.Errorf("a branch of a branch at 2 starts from %q, want run one's", got)
	}

	// With the source gone, a branch's branch gets what the branch inherited.
	r.call(nil, "chat.delete", r.chatID)
	if got := r.persistFrom(branch(atTwo, 2)); got != one {
		t.Errorf("after the source was deleted, a branch of a branch starts from %q, want run one's", got)
	}
	// The deleted chat's runs are forgotten (after the delete, as the
	// agent hears of it).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var list struct {
			Runs []json.RawMessage `json:"runs"`
		}
		r.call(&list, "agent.listRuns", map[string]any{"chatId": r.chatID})
		if len(list.Runs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deleted chat still lists %d runs", len(list.Runs))
		}
	}
	if _, err := r.invoke("agent.getRun", one); apperr.CodeOf(err) != "agent.run_not_found" {
		t.Fatalf("a deleted chat's run: %v", err)
	}
	// The folder goes right after the rows.
	ws := filepath.Join(r.dir, "agent", "workspaces", agent.WorkspaceID(r.chatID))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err := os.Stat(ws)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deleted chat's workspace: %v", err)
		}
	}
}

// persistRun runs an agent in chatID that writes persist/notes.md with
// text and commits a reply; it returns the run id.
func (r *rig) persistRun(chatID, text string) string {
	r.t.Helper()
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "persist/notes.md", "content": text}},
			call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "Reply " + text + "."}}),
		round("", call{"workspace_commit", map[string]any{}}),
		round("", call{"workspace_finish", map[string]any{}}),
	)
	h := r.start(map[string]any{"chatId": chatID})
	r.waitStatus(h.RunID, "completed")
	return h.RunID
}

// persistFrom starts a run in chatID that fails at once and returns the
// run its persist/ came from (workspace_initialized's persistFrom).
func (r *rig) persistFrom(chatID string) string {
	r.t.Helper()
	r.model.Push(pt.Script{Status: 400, Body: `{"error":{"message":"stop here"}}`})
	h := r.start(map[string]any{"chatId": chatID})
	r.waitStatus(h.RunID, "failed")
	for _, e := range r.events(h.RunID) {
		if e.Type == "workspace_initialized" {
			var p struct {
				PersistFrom string `json:"persistFrom"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			return p.PersistFrom
		}
	}
	r.t.Fatalf("run %s has no workspace_initialized event", h.RunID)
	return ""
}
