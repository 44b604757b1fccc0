package agent_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/agent"
	pt "hearth/backend/providers/providertest"
)

// modelRequests counts the completion requests the scripted server got.
func (r *rig) modelRequests() int {
	n := 0
	for _, req := range r.model.Requests() {
		if req.Method == http.MethodPost {
			n++
		}
	}
	return n
}

// TestNoToolCallsEndsEarly: a model that answers in plain text is reminded
// once; a second plain answer in a row ends the run failed with
// agent.no_tool_calls after two model requests (not the profile's 80
// rounds), with a message that says what to change. A plain answer that
// the model follows with tools is no failure, and the count starts again
// after every round with a tool call. The scripts queued past the end
// prove no request was made after the failure.
func TestNoToolCallsEndsEarly(t *testing.T) {
	t.Parallel()
	write := call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": "The lantern burns low."}}
	commit := call{"workspace_commit", map[string]any{"reason": "the reply"}}
	finish := call{"workspace_finish", map[string]any{"reason": "done"}}
	list := call{"workspace_list_files", map[string]any{}}
	for _, c := range []struct {
		name    string
		scripts []pt.Script
		// status is the run's end; requests, how many model requests it made.
		status   string
		requests int
		// toolCalls is details.toolCalls of a no_tool_calls failure; kept,
		// the text left in scratch/direct_output.md.
		toolCalls float64
		kept      string
	}{
		{
			name:     "plain text from the start",
			scripts:  []pt.Script{round("The lantern flickers."), round("It flickers still."), round("Never asked for.")},
			status:   "failed",
			requests: 2, toolCalls: 0, kept: "It flickers still.",
		},
		{
			name:     "tools, then plain text twice",
			scripts:  []pt.Script{round("", write), round("I wrote it."), round("Really, I did."), round("Never asked for.")},
			status:   "failed",
			requests: 3, toolCalls: 1, kept: "Really, I did.",
		},
		{
			name:     "one plain answer, then the reminder is followed",
			scripts:  []pt.Script{round("Here is the reply."), round("", write), round("", commit), round("", finish)},
			status:   "completed",
			requests: 4, kept: "Here is the reply.",
		},
		{
			name:     "plain answers apart, each followed by tools",
			scripts:  []pt.Script{round("First thought."), round("", list), round("Second thought."), round("", write, commit), round("", finish)},
			status:   "completed",
			requests: 5, kept: "Second thought.",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.model.Push(c.scripts...)
			h := r.start(map[string]any{"options": map[string]any{"presentation": "foreground"}})
			r.waitStatus(h.RunID, c.status)
			if n := r.modelRequests(); n != c.requests {
				t.Fatalf("%d model requests, want %d", n, c.requests)
			}
			var file struct {
				Text string `json:"text"`
			}
			r.call(&file, "agent.readWorkspaceFile", map[string]any{"runId": h.RunID, "path": "scratch/direct_output.md"})
			if file.Text != c.kept {
				t.Fatalf("direct_output.md holds %q, want %q", file.Text, c.kept)
			}
			var run struct {
				Error *runError `json:"error"`
			}
			r.call(&run, "agent.getRun", h.RunID)
			if c.status != "failed" {
				if run.Error != nil {
					t.Fatalf("a %s run has the error %+v", c.status, run.Error)
				}
				return
			}
			e := run.Error
			if e == nil || e.Code != agent.CodeNoToolCalls {
				t.Fatalf("the run failed with %+v, want %s", e, agent.CodeNoToolCalls)
			}
			if !strings.Contains(e.Message, "plain text") || !strings.Contains(e.Message, "supports tool calling") {
				t.Fatalf("the message does not say what happened and what to change: %q", e.Message)
			}
			want := map[string]any{"rounds": float64(2), "toolCalls": c.toolCalls, "model": "scripted"}
			if !reflect.DeepEqual(e.Details, want) {
				t.Fatalf("details %v, want %v", e.Details, want)
			}
			var failed runError
			if err := json.Unmarshal(r.waitEvent(h.RunID, "run_failed").Payload, &failed); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&failed, e) {
				t.Fatalf("run_failed %+v, want the run's error %+v", failed, *e)
			}
			// Nothing reached the chat: the user's message is still the last.
			if last := r.lastMessage(); last["is_user"] != true {
				t.Fatalf("the chat's last message is %v", last)
			}
		})
	}
}
