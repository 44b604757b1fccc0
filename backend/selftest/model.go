package selftest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// modelServer is the self-test's language model: a Chat Completions
// server on 127.0.0.1 that streams what the last message asks for, so the
// page can measure generation in the real window without a network. It is
// the one fake of the self-test, at the network edge, speaking OpenAI's
// wire format (SSE chunks, then "data: [DONE]").
//
// The page scripts it through the text it sends: the newest message that
// holds "selftest:clock N MS" is answered with N chunks MS apart, each
// chunk's text the Unix time in milliseconds at which the server wrote it
// (the page subtracts that from when its handler ran); "selftest:stream N
// MS" with N chunks of Markdown prose MS apart (a reply streaming at
// 1000/MS tokens a second; every eighth chunk ends a paragraph, so N = 300
// is a 13 KB reply of 38 paragraphs, the size whose commit used to render
// all of its Markdown in one task).
// A request that offers tools is an agent run's: it gets the next step of
// agentSteps.
type modelServer struct {
	url string
	srv *http.Server
}

// modelScript matches what the page asks of the model.
var modelScript = regexp.MustCompile(`selftest:(clock|stream) (\d{1,4}) (\d{1,4})`)

// modelName is the model the connection names (and the server answers as).
const modelName = "selftest-clock"

// startModel listens on a loopback port and serves until Close.
func startModel() (*modelServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("self-test: model server: %w", err)
	}
	m := &modelServer{url: "http://" + ln.Addr().String() + "/v1"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"`+modelName+`","object":"model","created":1700000000,"owned_by":"selftest"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", m.complete)
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// Close stops the server and the streams it is writing.
func (m *modelServer) Close() error {
	if m == nil {
		return nil
	}
	return m.srv.Close()
}

// complete answers one streamed completion.
func (m *modelServer) complete(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request body"}}`, http.StatusBadRequest)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no streaming", http.StatusInternalServerError)
		return
	}
	if len(req.Tools) > 0 {
		answered := 0
		for _, m := range req.Messages {
			if m.Role == "tool" {
				answered++
			}
		}
		agentStep(w, flusher, answered)
		return
	}
	kind, n, gap, err := script(req.Messages)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": err.Error()}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	for i := 0; i < n; i++ {
		if !sleep(r.Context(), gap) {
			return
		}
		text := streamChunk(i)
		if kind == "clock" {
			text = " " + strconv.FormatFloat(float64(time.Now().UnixMicro())/1000, 'f', 3, 64)
		}
		writeChunk(w, map[string]any{"content": text}, nil)
		flusher.Flush()
	}
	finish := "stop"
	writeChunk(w, map[string]any{}, &finish)
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	flusher.Flush()
}

// streamChunk is chunk i of a "selftest:stream" reply: Markdown prose with
// emphasis and dialogue, ending a paragraph every eighth chunk; it names
// its number ("word7"), so the page can tell the whole reply arrived.
func streamChunk(i int) string {
	text := fmt.Sprintf(` *She* walks on and **on**, "word%d" by word`, i)
	if i%8 == 7 {
		text += ".\n\n"
	}
	return text
}

// agentSteps are an agent run's model turns: write the reply, commit it,
// finish. A request with tools is an agent's; the tool results it carries
// say which turn it is.
var agentSteps = []struct{ name, args string }{
	{"workspace_write_file", `{"path":"output/main.md","content":"*Seraphina smiles.* The agent wrote this reply in its workspace."}`},
	{"workspace_commit", `{"reason":"self-test"}`},
	{"workspace_finish", `{}`},
}

// agentStep streams the tool call of turn n (after n tool results).
func agentStep(w http.ResponseWriter, flusher http.Flusher, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	if n >= len(agentSteps) {
		writeChunk(w, map[string]any{"content": "Done."}, nil)
	} else {
		step := agentSteps[n]
		writeChunk(w, map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": step.name, "arguments": step.args},
		}}}, nil)
	}
	finish := "tool_calls"
	writeChunk(w, map[string]any{}, &finish)
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	flusher.Flush()
}

// script reads the newest scripted request from the messages.
func script(messages []struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}) (kind string, n int, gap time.Duration, err error) {
	for i := len(messages) - 1; i >= 0; i-- {
		var text string
		if json.Unmarshal(messages[i].Content, &text) != nil {
			continue
		}
		if m := modelScript.FindStringSubmatch(text); m != nil {
			n, _ = strconv.Atoi(m[2])
			ms, _ := strconv.Atoi(m[3])
			return m[1], n, time.Duration(ms) * time.Millisecond, nil
		}
	}
	return "", 0, 0, errors.New(`no message asks for "selftest:clock N MS" or "selftest:stream N MS"`)
}

// writeChunk writes one chat.completion.chunk event.
func writeChunk(w io.Writer, delta map[string]any, finish *string) {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-selftest", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": modelName,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	})
	_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
}

// sleep waits d, or less when the client goes away (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
