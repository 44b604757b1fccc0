package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
)

// The scripted model is an OpenAI-compatible server on 127.0.0.1: the only
// fake, at the network edge. It answers by what the request holds, never
// by a queue, so requests from servers killed halfway leave nothing
// behind for the next one:
//
//   - a generation (no tools) whose last user message carries a task
//     "gen-task-N" streams replyText(N, serial) in several chunks;
//   - an agent round (tools offered) whose last user message carries
//     "agent-task-N" writes agentText(N) to output/main.md on its first
//     round, and commits and finishes once the write's result is back.

// replyFiller ends every scripted reply: a reply that does not end with
// it was cut off.
const replyFiller = "The lantern burned on through the night, steady and warm, and nobody asked it to stop."

var (
	genTask   = regexp.MustCompile(`gen-task-[0-9]+`)
	agentTask = regexp.MustCompile(`agent-task-[0-9]+`)
	replyForm = regexp.MustCompile(`^Reply to (gen-task-[0-9]+) #[0-9]+: ` + regexp.QuoteMeta(replyFiller) + `$`)
)

// replyText is the scripted reply to a generation of task, the serial-th
// the model answered (so a swipe differs from the reply it swipes).
func replyText(task string, serial int64) string {
	return fmt.Sprintf("Reply to %s #%d: %s", task, serial, replyFiller)
}

// wholeReply reports whether text is a whole scripted reply to task.
func wholeReply(text, task string) bool {
	m := replyForm.FindStringSubmatch(text)
	return m != nil && (task == "" || m[1] == task)
}

// agentText is what an agent run for task commits to the chat.
func agentText(task string) string {
	return "Agent reply to " + task + ". " + replyFiller
}

// chatRequest is the part of a Chat Completions request the model reads.
type chatRequest struct {
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []any           `json:"tool_calls"`
	} `json:"messages"`
	Tools []any `json:"tools"`
}

// lastTask finds the task named in the request's last user message that
// names one, "" when none does.
func (r *chatRequest) lastTask(re *regexp.Regexp) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		if found := re.FindAllString(string(m.Content), -1); len(found) > 0 {
			return found[len(found)-1]
		}
	}
	return ""
}

// rounds counts the assistant turns that called tools: the agent rounds
// done before this one.
func (r *chatRequest) rounds() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			n++
		}
	}
	return n
}

// toolCall is one call an agent round makes.
type toolCall struct {
	name string
	args map[string]any
}

// agentRound is what the model does in an agent request: write the reply
// first, then commit and finish.
func agentRound(req *chatRequest) ([]toolCall, error) {
	task := req.lastTask(agentTask)
	if task == "" {
		return nil, fmt.Errorf("an agent request with no agent task in its user messages")
	}
	if req.rounds() == 0 {
		return []toolCall{{"workspace_write_file", map[string]any{"path": "output/main.md", "content": agentText(task), "mode": "replace"}}}, nil
	}
	return []toolCall{
		{"workspace_commit", map[string]any{"reason": "soak"}},
		{"workspace_finish", map[string]any{"reason": "committed"}},
	}, nil
}

// model is the scripted model server.
type model struct {
	URL      string // base URL, ending in /v1
	srv      *http.Server
	serial   atomic.Int64
	requests atomic.Int64
	// chunkDelay spaces the chunks of a stream, so a kill finds some
	// generations halfway.
	chunkDelay time.Duration
}

// startModel listens on a free loopback port.
func startModel(chunkDelay time.Duration) (*model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &model{URL: "http://" + ln.Addr().String() + "/v1", chunkDelay: chunkDelay}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"scripted","object":"model","created":1700000000,"owned_by":"soak"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", m.complete)
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// close stops the server, cutting its streams.
func (m *model) close() { _ = m.srv.Close() }

func (m *model) complete(w http.ResponseWriter, r *http.Request) {
	m.requests.Add(1)
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request body"}}`, http.StatusBadRequest)
		return
	}
	var chunks []map[string]any
	if len(req.Tools) > 0 {
		calls, err := agentRound(&req)
		if err != nil {
			http.Error(w, fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()), http.StatusBadRequest)
			return
		}
		chunks = toolChunks(calls)
	} else {
		task := req.lastTask(genTask)
		if task == "" {
			task = "gen-task-0"
		}
		chunks = textChunks(replyText(task, m.serial.Add(1)), 8)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	for _, c := range chunks {
		b, _ := json.Marshal(c)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(m.chunkDelay):
		}
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

// chunk is one streamed Chat Completions chunk with delta and an optional
// finish reason.
func chunk(delta map[string]any, finish string) map[string]any {
	choice := map[string]any{"index": 0, "delta": delta, "finish_reason": nil}
	if finish != "" {
		choice["finish_reason"] = finish
	}
	return map[string]any{"id": "chatcmpl-soak", "object": "chat.completion.chunk", "created": 1700000000,
		"model": "scripted", "choices": []any{choice}}
}

// usage is the closing usage chunk.
func usage() map[string]any {
	return map[string]any{"id": "chatcmpl-soak", "object": "chat.completion.chunk", "created": 1700000000,
		"model": "scripted", "choices": []any{}, "usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}
}

// textChunks streams text in about n pieces.
func textChunks(text string, n int) []map[string]any {
	words := strings.SplitAfter(text, " ")
	per := max(1, (len(words)+n-1)/n)
	var out []map[string]any
	for i := 0; i < len(words); i += per {
		out = append(out, chunk(map[string]any{"content": strings.Join(words[i:min(i+per, len(words))], "")}, ""))
	}
	return append(out, chunk(map[string]any{}, "stop"), usage())
}

// toolChunks streams calls, each call's arguments in two pieces as
// providers send them.
func toolChunks(calls []toolCall) []map[string]any {
	var out []map[string]any
	for i, c := range calls {
		raw, _ := json.Marshal(c.args)
		half := len(raw) / 2
		first := map[string]any{"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.name, "arguments": string(raw[:half])}}
		rest := map[string]any{"index": i, "function": map[string]any{"arguments": string(raw[half:])}}
		out = append(out, chunk(map[string]any{"tool_calls": []any{first}}, ""), chunk(map[string]any{"tool_calls": []any{rest}}, ""))
	}
	return append(out, chunk(map[string]any{}, "tool_calls"), usage())
}
