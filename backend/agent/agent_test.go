package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hearth/backend/agent"
	"hearth/backend/apperr"
	pt "hearth/backend/providers/providertest"
)

// TestHappyPathTwoCommits: the model writes its reply, commits it, reads
// and patches it, commits again and finishes. The chat gets one reply
// with the second text and the seed's AgentMessageExtra; every write is a
// checkpoint; the diff between the first and last checkpoint shows the
// file; the events are complete and in order.
func TestHappyPathTwoCommits(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "Once the lantern burned blue."}}),
		round("", call{"workspace_commit", map[string]any{"reason": "first draft"}}),
		round("", call{"workspace_read_file", map[string]any{"path": "output/main.md"}}),
		round("", call{"workspace_apply_patch", map[string]any{"path": "output/main.md", "old_string": "blue", "new_string": "gold"}},
			call{"workspace_write_file", map[string]any{"path": "persist/notes.md", "content": "The lantern is gold now."}}),
		round("", call{"workspace.commit", map[string]any{"mode": "replace"}}),
		round("Done.", call{"workspace_finish", map[string]any{"reason": "reply committed"}}),
	)
	h := r.start(map[string]any{"profileId": "default-writer", "options": map[string]any{"stream": true}})
	if h.WorkspaceID != agent.WorkspaceID(r.chatID) || h.StableChatID != r.chatID || !strings.HasPrefix(h.RunID, "run_") {
		t.Fatalf("handle %+v", h)
	}
	r.waitStatus(h.RunID, "completed")

	evs := r.events(h.RunID)
	for i, e := range evs {
		if e.Seq != int64(i+1) || e.ID != h.RunID+":"+itoa(i+1) {
			t.Fatalf("event %d has seq %d id %s", i, e.Seq, e.ID)
		}
	}
	got := types(evs)
	for _, want := range []string{"run_created", "profile_resolved", "workspace_initialized", "checkpoint_created", "context_assembled",
		"model_request_created", "model_completed", "tool_call_requested", "workspace_file_written", "tool_call_completed",
		"chat_commit_requested", "chat_commit_completed", "workspace_patch_applied", "persistent_changes_committed", "run_completed"} {
		if !slices.Contains(got, want) {
			t.Errorf("no %s event; events: %v", want, got)
		}
	}
	if got[0] != "run_created" || got[len(got)-1] != "run_completed" {
		t.Fatalf("events run from %s to %s", got[0], got[len(got)-1])
	}
	if n := count(got, "chat_commit_completed"); n != 2 {
		t.Fatalf("%d commits, want 2", n)
	}

	last := r.lastMessage()
	if last["mes"] != "Once the lantern burned gold." || last["is_user"] == true || last["name"] != "Mira" {
		t.Fatalf("last message %v", last)
	}
	extra, _ := last["extra"].(map[string]any)
	ag, _ := extra["hearth"].(map[string]any)["agent"].(map[string]any)
	if ag["runId"] != h.RunID || ag["commitSeq"] != float64(2) || len(ag["commits"].([]any)) != 2 || ag["version"] != float64(1) || ag["profileId"] != "default-writer" {
		t.Fatalf("extra.hearth.agent = %v", ag)
	}
	var msgs []map[string]any
	r.call(&msgs, "chat.getStMessages", r.chatID)
	if len(msgs) != 3 {
		t.Fatalf("the chat has %d messages; the run should have added exactly one", len(msgs))
	}

	var cps struct {
		Checkpoints []struct {
			CheckpointID string `json:"checkpointId"`
			Reason       string `json:"reason"`
		} `json:"checkpoints"`
	}
	r.call(&cps, "agent.listCheckpoints", h.RunID)
	if len(cps.Checkpoints) < 4 {
		t.Fatalf("%d checkpoints: %+v", len(cps.Checkpoints), cps.Checkpoints)
	}
	var diff struct {
		Files []struct {
			Path, Status, Unified string
		} `json:"files"`
	}
	r.call(&diff, "agent.readDiff", map[string]any{"runId": h.RunID})
	if len(diff.Files) != 2 || diff.Files[0].Path != "output/main.md" || diff.Files[0].Status != "added" || !strings.Contains(diff.Files[0].Unified, "+Once the lantern burned gold.") {
		t.Fatalf("diff %+v", diff.Files)
	}
	var file struct {
		Text string `json:"text"`
	}
	r.call(&file, "agent.readWorkspaceFile", map[string]any{"runId": h.RunID, "path": "output/main.md", "checkpointId": cps.Checkpoints[1].CheckpointID})
	if file.Text != "Once the lantern burned blue." {
		t.Fatalf("output/main.md at the first write: %q", file.Text)
	}

	var run struct {
		Rounds int `json:"rounds"`
		Usage  struct {
			InputTokens int64 `json:"inputTokens"`
		} `json:"usage"`
	}
	r.call(&run, "agent.getRun", h.RunID)
	if run.Rounds != 6 || run.Usage.InputTokens != 600 {
		t.Fatalf("run totals %+v", run)
	}

	// The next run of the chat starts from this one's persist/.
	r.model.Push(round("", call{"workspace_read_file", map[string]any{"path": "persist/notes.md"}}), pt.Script{Status: 400, Body: `{"error":{"message":"stop here"}}`})
	h2 := r.start(nil)
	r.waitStatus(h2.RunID, "failed")
	if res := r.toolResults(7); len(res) != 1 || !strings.Contains(res[0], "The lantern is gold now.") {
		t.Fatalf("the second run read persist/notes.md as %q", res)
	}
}

// TestStaleFileAndExternalEdit: a file changed outside Hearth after the
// model wrote it makes apply_patch fail with workspace.stale_file (as a
// tool result); the model reads it again, seeing the outside text, and
// the patch then applies. The watcher records the outside edit.
func TestStaleFileAndExternalEdit(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	gate := make(chan struct{})
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "scratch/draft.md", "content": "The night was cold."}}),
		pt.Script{Wait: gate, Chunks: round("", call{"workspace_apply_patch", map[string]any{"path": "scratch/draft.md", "old_string": "cold", "new_string": "warm"}}).Chunks, Done: true},
		round("", call{"workspace_read_file", map[string]any{"path": "scratch/draft.md"}}),
		round("", call{"workspace_apply_patch", map[string]any{"path": "scratch/draft.md", "old_string": "cold", "new_string": "warm"}}),
		round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "A reply."}}),
		round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}),
	)
	// The second request waits at gate until the file was edited from outside.
	h := r.start(nil)
	r.waitEvent(h.RunID, "workspace_file_written")
	root := filepath.Join(r.dir, "agent", "workspaces", h.WorkspaceID, "runs", h.RunID)
	if err := os.WriteFile(filepath.Join(root, "scratch", "draft.md"), []byte("The night was cold and long."), 0o600); err != nil {
		t.Fatal(err)
	}
	ext := r.waitEvent(h.RunID, "workspace_file_changed_externally")
	close(gate)
	r.waitStatus(h.RunID, "completed")
	if !strings.Contains(string(ext.Payload), `"path":"scratch/draft.md"`) {
		t.Fatalf("outside change event %s", ext.Payload)
	}
	if res := r.toolResults(2); len(res) != 2 || !strings.Contains(res[1], agent.CodeStaleFile) {
		t.Fatalf("the first patch answered %q; want %s", res, agent.CodeStaleFile)
	}
	if res := r.toolResults(3); !strings.Contains(res[2], "The night was cold and long.") {
		t.Fatalf("the read after the outside edit saw %q", res[2])
	}
	var file struct {
		Text string `json:"text"`
	}
	r.call(&file, "agent.readWorkspaceFile", map[string]any{"runId": h.RunID, "path": "scratch/draft.md"})
	if file.Text != "The night was warm and long." {
		t.Fatalf("draft after the retried patch: %q", file.Text)
	}
}

// TestPathEscapesStayInside: paths that leave the workspace come back to
// the model as workspace.path_denied, and nothing is written outside it.
func TestPathEscapesStayInside(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	bad := []string{"../../escape.md", "/tmp/escape.md", "output/../../escape.md", `output\..\..\escape.md`, "C:/escape.md", "secrets/escape.md", "output/\x00.md"}
	var calls []call
	for _, p := range bad {
		calls = append(calls, call{"workspace_write_file", map[string]any{"path": p, "content": "pwned"}})
	}
	r.model.Push(round("", calls...), round("", call{"workspace_read_file", map[string]any{"path": "../../hearth.db"}}), pt.Script{Status: 400, Body: `{"error":{"message":"enough"}}`})
	h := r.start(nil)
	r.waitStatus(h.RunID, "failed")
	res := r.toolResults(1)
	if len(res) != len(bad) {
		t.Fatalf("%d tool results for %d calls", len(res), len(bad))
	}
	for i, s := range res {
		if !strings.Contains(s, agent.CodePathDenied) {
			t.Errorf("write to %q answered %s", bad[i], s)
		}
	}
	if res := r.toolResults(2); !strings.Contains(res[len(res)-1], agent.CodePathDenied) {
		t.Fatalf("reading the database answered %q", res[len(res)-1])
	}
	_ = filepath.WalkDir(r.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(d.Name(), "escape") {
			t.Errorf("a file escaped: %s", p)
		}
		return nil
	})
}

// TestCancelMidCall: a run stopped while the model streams ends
// cancelled, records why, and frees the chat for the next run.
func TestCancelMidCall(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.model.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("Thinking about")}, Stall: true})
	h := r.start(map[string]any{"options": map[string]any{"stream": true}})
	r.waitEvent(h.RunID, "model_delta")
	var after handle
	r.call(&after, "agent.cancel", h.RunID)
	if after.Status != "cancelled" {
		t.Fatalf("cancel answered %+v", after)
	}
	got := types(r.events(h.RunID))
	if got[len(got)-1] != "run_cancelled" {
		t.Fatalf("events end with %s", got[len(got)-1])
	}
	_, err := r.invoke("agent.approveToolCall", map[string]any{"runId": h.RunID, "callId": "x", "decision": "approve"})
	if apperr.CodeOf(err) != agent.CodeRunNotActive {
		t.Fatalf("approve on a cancelled run: %v", err)
	}
	r.model.Push(pt.Script{Status: 400, Body: `{"error":{"message":"no"}}`})
	h2 := r.start(nil)
	r.waitStatus(h2.RunID, "failed")
}

// TestApproval: a profile that wants approval for write_file parks the run
// until the user answers; approve lets the write happen, deny goes back
// to the model as a tool result and writes nothing.
func TestApproval(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	prof := map[string]any{"schemaVersion": 1, "kind": "hearth.agentProfile", "id": "careful", "displayName": "Careful",
		"tools": map[string]any{"allow": []string{"workspace.write_file", "workspace.commit", "workspace.finish"}, "requireApproval": []string{"workspace.write_file"}}}
	r.call(nil, "agent.profiles.save", prof)
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "Denied text."}}),
		round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "Approved text."}}),
		round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}),
	)
	h := r.start(map[string]any{"profileId": "careful"})
	req := r.waitEvent(h.RunID, "tool_call_approval_requested")
	r.waitStatus(h.RunID, "awaiting_approval")
	var p struct {
		CallID string `json:"callId"`
		Tool   string `json:"tool"`
	}
	_ = json.Unmarshal(req.Payload, &p)
	if p.Tool != "workspace.write_file" {
		t.Fatalf("approval asked for %+v", p)
	}
	var waiting struct {
		Pending struct {
			CallID string `json:"callId"`
		} `json:"pending"`
	}
	r.call(&waiting, "agent.getRun", h.RunID)
	if waiting.Pending.CallID != p.CallID {
		t.Fatalf("getRun shows pending %+v, want call %s", waiting.Pending, p.CallID)
	}
	if _, err := r.invoke("agent.approveToolCall", map[string]any{"runId": h.RunID, "callId": "nope", "decision": "approve"}); apperr.CodeOf(err) != agent.CodeCallNotPending {
		t.Fatalf("approving another call: %v", err)
	}
	r.call(nil, "agent.approveToolCall", map[string]any{"runId": h.RunID, "callId": p.CallID, "decision": "deny", "reason": "not yet"})
	r.waitEvent(h.RunID, "tool_call_denied")
	// The second write asks again.
	deadline := 0
	for {
		evs := r.events(h.RunID)
		if count(types(evs), "tool_call_approval_requested") == 2 {
			_ = json.Unmarshal(evs[lastIndex(types(evs), "tool_call_approval_requested")].Payload, &p)
			break
		}
		if deadline++; deadline > 2000 {
			t.Fatal("no second approval request")
		}
		waitABit()
	}
	r.call(nil, "agent.approveToolCall", map[string]any{"runId": h.RunID, "callId": p.CallID, "decision": "approve"})
	r.waitStatus(h.RunID, "completed")
	if res := r.toolResults(1); !strings.Contains(res[0], "tool.denied") || !strings.Contains(res[0], "not yet") {
		t.Fatalf("the denied call answered %q", res)
	}
	if r.lastMessage()["mes"] != "Approved text." {
		t.Fatalf("reply %v", r.lastMessage()["mes"])
	}
}

// TestRollback: rolling a finished run back to its first checkpoint with
// includeChat takes the reply back out of the chat and restores the
// workspace; when the user edited the reply since, it refuses with
// agent.rollback_conflict and changes nothing.
func TestRollback(t *testing.T) {
	t.Parallel()
	for _, edited := range []bool{false, true} {
		r := newRig(t)
		r.model.Push(
			round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The reply."}}),
			round("", call{"workspace_commit", map[string]any{}}, call{"workspace_finish", map[string]any{}}),
		)
		h := r.start(nil)
		r.waitStatus(h.RunID, "completed")
		if edited {
			r.call(nil, "chat.updateMessages", r.chatID, map[string]any{"index": 2, "patch": map[string]any{"mes": "The reply, as the user rewrote it."}})
		}
		var cps struct {
			Checkpoints []struct {
				CheckpointID string `json:"checkpointId"`
			} `json:"checkpoints"`
		}
		r.call(&cps, "agent.listCheckpoints", h.RunID)
		_, err := r.invoke("agent.rollback", map[string]any{"runId": h.RunID, "checkpointId": cps.Checkpoints[0].CheckpointID, "includeChat": true})
		var msgs []map[string]any
		r.call(&msgs, "chat.getStMessages", r.chatID)
		var files struct {
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		}
		r.call(&files, "agent.listWorkspaceFiles", map[string]any{"runId": h.RunID})
		if edited {
			if apperr.CodeOf(err) != agent.CodeRollbackConflict {
				t.Fatalf("rollback over a user edit: %v", err)
			}
			if len(msgs) != 3 || len(files.Files) != 1 {
				t.Fatalf("a refused rollback changed things: %d messages, files %+v", len(msgs), files.Files)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 2 || len(files.Files) != 0 {
			t.Fatalf("after the rollback: %d messages, files %+v", len(msgs), files.Files)
		}
		if got := types(r.events(h.RunID)); got[len(got)-1] != "rollback_completed" {
			t.Fatalf("events end with %s", got[len(got)-1])
		}
	}
}

// TestStartRefusals: bad starts leave no run behind.
func TestStartRefusals(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	cases := []struct {
		in   map[string]any
		code string
	}{
		{map[string]any{"presentation": "sideways"}, agent.CodePresentationInvalid},
		{map[string]any{"profileId": "no-such-profile"}, "agent.profile_not_found"},
		{map[string]any{"generationType": "impersonate"}, apperr.CodeInvalidArgument},
		{map[string]any{"generationType": "swipe"}, apperr.CodeInvalidArgument},
		{map[string]any{"chatRef": map[string]any{"chatId": "other"}}, apperr.CodeInvalidArgument},
		// null is what JSON makes of NaN: refused, not read as position 0.
		{map[string]any{"generateOptions": map[string]any{"extensionPrompts": []any{map[string]any{"key": "k", "value": "v", "position": nil}}}}, apperr.CodeInvalidArgument},
	}
	for _, c := range cases {
		in := map[string]any{"chatId": r.chatID}
		for k, v := range c.in {
			in[k] = v
		}
		if _, err := r.invoke("agent.startRunFromLegacyGenerate", in); apperr.CodeOf(err) != c.code {
			t.Errorf("%v: %v, want %s", c.in, err, c.code)
		}
	}
	snap := map[string]any{"chatCompletionPayload": map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi"}}, "tools": []any{map[string]any{"type": "function"}}}}
	if _, err := r.invoke("agent.startRunWithPromptSnapshot", map[string]any{"chatId": r.chatID, "promptSnapshot": snap}); apperr.CodeOf(err) != agent.CodeExternalTools {
		t.Errorf("external tools: %v", err)
	}
	var list struct {
		Runs []any `json:"runs"`
	}
	r.call(&list, "agent.listRuns", map[string]any{"chatId": r.chatID})
	if len(list.Runs) != 0 {
		t.Fatalf("refused starts left %d runs", len(list.Runs))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func count(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

func lastIndex(xs []string, x string) int {
	for i := len(xs) - 1; i >= 0; i-- {
		if xs[i] == x {
			return i
		}
	}
	return -1
}

func waitABit() { time.Sleep(10 * time.Millisecond) }

// anthropicRound scripts one Anthropic answer making one tool_use call.
func anthropicRound(id, name string, args map[string]any) pt.Script {
	raw, _ := json.Marshal(args)
	half := len(raw) / 2
	return pt.Script{Chunks: []pt.Chunk{
		pt.MessageStart(50), pt.BlockStart(0, "tool_use", id, name),
		pt.InputDelta(0, string(raw[:half])), pt.InputDelta(0, string(raw[half:])), pt.BlockStop(0),
		pt.MessageDelta("tool_use", 10), pt.MessageStop(),
	}}
}

// TestAnthropicToolUse drives a run over Anthropic's wire format: tool_use
// blocks in, tool_result blocks back, the reply committed.
func TestAnthropicToolUse(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	srv := pt.NewAnthropic()
	t.Cleanup(srv.Close)
	var conn struct {
		ID string `json:"id"`
	}
	r.call(&conn, "connections.save", map[string]any{"name": "Claude", "provider": "anthropic", "baseUrl": srv.URL, "model": "claude-test", "apiKey": "sk-ant"})
	r.call(nil, "connections.select", conn.ID)
	srv.Push(
		anthropicRound("toolu_1", "workspace_write_file", map[string]any{"path": "output/main.md", "content": "From Claude."}),
		anthropicRound("toolu_2", "workspace_commit", map[string]any{}),
		anthropicRound("toolu_3", "workspace_finish", map[string]any{}),
	)
	h := r.start(nil)
	r.waitStatus(h.RunID, "completed")
	if r.lastMessage()["mes"] != "From Claude." {
		t.Fatalf("reply %v", r.lastMessage()["mes"])
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	body, _ := json.Marshal(reqs[1].Body)
	if !strings.Contains(string(body), `"tool_result"`) || !strings.Contains(string(body), `"tool_use_id":"toolu_1"`) {
		t.Fatalf("the second request does not answer the tool_use: %s", body)
	}
	if !strings.Contains(string(body), `"name":"workspace_write_file"`) {
		t.Fatalf("the tools are not offered under their underscore names: %s", body)
	}
}

// TestSkillsThroughTheABI installs a skill from uploaded files, lists it,
// and a run reads it with skill.read.
func TestSkillsThroughTheABI(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	doc := "---\nname: tone\ndescription: Keep replies warm.\n---\nWrite warmly, in the present tense.\n"
	var installed struct {
		Name string `json:"name"`
	}
	r.call(&installed, "agent.skills.install", map[string]any{"files": []any{map[string]any{"path": "tone/SKILL.md", "data": []byte(doc)}}})
	var list struct {
		Skills []struct {
			Name string `json:"name"`
		} `json:"skills"`
	}
	r.call(&list, "agent.skills.list")
	if installed.Name != "tone" || len(list.Skills) != 1 {
		t.Fatalf("installed %+v, listed %+v", installed, list)
	}
	r.model.Push(round("", call{"skill_read", map[string]any{"name": "tone"}}), pt.Script{Status: 400, Body: `{"error":{"message":"enough"}}`})
	h := r.start(nil)
	r.waitStatus(h.RunID, "failed")
	if res := r.toolResults(1); len(res) != 1 || !strings.Contains(res[0], "Write warmly") {
		t.Fatalf("skill_read answered %q", res)
	}
}

// TestGeminiFunctionCalls drives a run over Gemini's wire format.
func TestGeminiFunctionCalls(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	srv := pt.NewGemini()
	t.Cleanup(srv.Close)
	var conn struct {
		ID string `json:"id"`
	}
	r.call(&conn, "connections.save", map[string]any{"name": "Gemini", "provider": "google", "baseUrl": srv.URL, "model": "gemini-test", "apiKey": "g-key"})
	r.call(nil, "connections.select", conn.ID)
	step := func(name string, args map[string]any) pt.Script {
		return pt.Script{Chunks: []pt.Chunk{pt.GChunk("STOP", 40, 5, 0, pt.GCall(name, args))}}
	}
	srv.Push(
		step("workspace_write_file", map[string]any{"path": "output/main.md", "content": "From Gemini."}),
		step("workspace_commit", map[string]any{}),
		step("workspace_finish", map[string]any{}),
	)
	h := r.start(nil)
	r.waitStatus(h.RunID, "completed")
	if r.lastMessage()["mes"] != "From Gemini." {
		t.Fatalf("reply %v", r.lastMessage()["mes"])
	}
	body, _ := json.Marshal(srv.Requests()[1].Body)
	if !strings.Contains(string(body), `"functionResponse"`) {
		t.Fatalf("the second request does not answer the function call: %s", body)
	}
}

// TestBoundsAndDirectOutput: a model that answers without tools has its
// text kept in scratch/direct_output.md and is reminded how to finish; a
// run that keeps calling tools without finishing fails at the profile's
// maxRounds. (Plain answers in a row end a run sooner: no_tool_calls_test.go.)
func TestBoundsAndDirectOutput(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	prof := map[string]any{"schemaVersion": 1, "kind": "tauritavern.agentProfile", "id": "short", "displayName": "Short", "tools": map[string]any{"maxRounds": 2}}
	r.call(nil, "agent.profiles.save", prof)
	r.model.Push(round("Here is my reply, no tools."), round("", call{"workspace_list_files", map[string]any{}}))
	h := r.start(map[string]any{"profileId": "short"})
	r.waitStatus(h.RunID, "failed")
	var run struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	r.call(&run, "agent.getRun", h.RunID)
	if run.Error.Code != agent.CodeMaxRounds {
		t.Fatalf("the run failed with %q, want %s", run.Error.Code, agent.CodeMaxRounds)
	}
	var file struct {
		Text string `json:"text"`
	}
	r.call(&file, "agent.readWorkspaceFile", map[string]any{"runId": h.RunID, "path": "scratch/direct_output.md"})
	if file.Text != "Here is my reply, no tools." {
		t.Fatalf("direct_output.md holds %q", file.Text)
	}
	body, _ := json.Marshal(r.model.Requests()[1].Body)
	if !strings.Contains(string(body), "workspace_finish") || !strings.Contains(string(body), "scratch/direct_output.md") {
		t.Fatalf("the second request carries no reminder: %s", body)
	}
}
