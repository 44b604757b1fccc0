package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// request builds a Chat Completions request body from role/content pairs;
// an assistant content of "CALLS" is a turn that called tools.
func request(t *testing.T, tools bool, turns ...string) *chatRequest {
	t.Helper()
	var msgs []map[string]any
	for i := 0; i+1 < len(turns); i += 2 {
		m := map[string]any{"role": turns[i], "content": turns[i+1]}
		if turns[i+1] == "CALLS" {
			m["content"] = nil
			m["tool_calls"] = []any{map[string]any{"id": "call_0", "type": "function"}}
		}
		msgs = append(msgs, m)
	}
	body := map[string]any{"messages": msgs}
	if tools {
		body["tools"] = []any{map[string]any{"type": "function"}}
	}
	var req chatRequest
	if err := json.Unmarshal(mustJSON(body), &req); err != nil {
		t.Fatal(err)
	}
	return &req
}

func TestAgentRounds(t *testing.T) {
	t.Parallel()
	first := request(t, true, "system", "You are an agent. agent-task-1 is not yours.", "user", "agent-task-7: write it.", "user", "Write output/main.md.")
	calls, err := agentRound(first)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].name != "workspace_write_file" || calls[0].args["content"] != agentText("agent-task-7") {
		t.Errorf("first round = %+v", calls)
	}
	second := request(t, true, "user", "agent-task-7: write it.", "assistant", "CALLS", "tool", "written")
	calls, err = agentRound(second)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].name != "workspace_commit" || calls[1].name != "workspace_finish" {
		t.Errorf("second round = %+v", calls)
	}
	if _, err := agentRound(request(t, true, "user", "no task here")); err == nil {
		t.Error("a request with no task got a round")
	}
}

func TestLastTaskIsTheNewestUserMessages(t *testing.T) {
	t.Parallel()
	req := request(t, false, "user", "gen-task-1: first", "assistant", "Reply to gen-task-1 #1: …", "user", "gen-task-2: second")
	if got := req.lastTask(genTask); got != "gen-task-2" {
		t.Errorf("lastTask = %q", got)
	}
}

func TestReplyForm(t *testing.T) {
	t.Parallel()
	whole := replyText("gen-task-12", 5)
	if !wholeReply(whole, "gen-task-12") || !wholeReply(whole, "") {
		t.Errorf("%q is not whole", whole)
	}
	if wholeReply(whole, "gen-task-1") {
		t.Error("a reply matched another task")
	}
	if wholeReply(whole[:len(whole)-5], "") {
		t.Error("a cut reply passed as whole")
	}
}

// streamed reads an SSE body into its data payloads, up to [DONE].
func streamed(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	lines := bufio.NewScanner(strings.NewReader(body))
	for lines.Scan() {
		data, ok := strings.CutPrefix(lines.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			return out
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		out = append(out, c)
	}
	t.Fatal("the stream ended without [DONE]")
	return nil
}

// deltas joins the text deltas of chunks and the arguments of each tool
// call, by call index.
func deltas(chunks []map[string]any) (text string, args map[int]string, finish string) {
	args = map[int]string{}
	for _, c := range chunks {
		choices, _ := c["choices"].([]any)
		for _, ch := range choices {
			choice := ch.(map[string]any)
			if f, ok := choice["finish_reason"].(string); ok {
				finish = f
			}
			d := choice["delta"].(map[string]any)
			if s, ok := d["content"].(string); ok {
				text += s
			}
			calls, _ := d["tool_calls"].([]any)
			for _, call := range calls {
				cm := call.(map[string]any)
				i := int(cm["index"].(float64))
				args[i] += cm["function"].(map[string]any)["arguments"].(string)
			}
		}
	}
	return text, args, finish
}

func TestModelServer(t *testing.T) {
	t.Parallel()
	m, err := startModel(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	post := func(body map[string]any) string {
		t.Helper()
		res, err := http.Post(m.URL+"/chat/completions", "application/json", strings.NewReader(string(mustJSON(body))))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		if _, err := bufio.NewReader(res.Body).WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("HTTP %d: %s", res.StatusCode, b.String())
		}
		return b.String()
	}

	text, _, finish := deltas(streamed(t, post(map[string]any{"stream": true,
		"messages": []any{map[string]any{"role": "user", "content": "gen-task-3: hello"}}})))
	if !wholeReply(text, "gen-task-3") || finish != "stop" {
		t.Errorf("generation streamed %q, finish %q", text, finish)
	}

	_, args, finish := deltas(streamed(t, post(map[string]any{"stream": true, "tools": []any{map[string]any{"type": "function"}},
		"messages": []any{map[string]any{"role": "user", "content": "agent-task-4: go"}}})))
	var a map[string]any
	if err := json.Unmarshal([]byte(args[0]), &a); err != nil || a["content"] != agentText("agent-task-4") || finish != "tool_calls" {
		t.Errorf("agent round streamed arguments %q (%v), finish %q", args[0], err, finish)
	}
	if m.requests.Load() != 2 {
		t.Errorf("%d requests counted", m.requests.Load())
	}
}
