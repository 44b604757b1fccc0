// Package providertest runs scripted model servers on loopback that speak
// a provider's wire format: the only fake in Hearth's tests, at the network
// edge. Each request takes the next queued Script, which says what to
// answer and how (a status and body, or a stream of chunks with delays, a
// stall, a malformed chunk, a cut).
package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Script is the answer to one request.
type Script struct {
	// Status, when not 0 or 200, answers with this status, Headers and
	// Body (an error).
	Status  int
	Headers map[string]string
	Body    string
	// HeaderDelay waits before sending the response headers.
	HeaderDelay time.Duration
	// Chunks are sent as SSE "data:" events, in order.
	Chunks []Chunk
	// Done ends the stream with "data: [DONE]".
	Done bool
	// Stall keeps the stream open after the chunks, sending nothing,
	// until the client goes away or the server closes.
	Stall bool
}

// Chunk is one SSE event: Data as written (JSON, or anything for a
// malformed chunk), sent after Delay.
type Chunk struct {
	Data  string
	Delay time.Duration
}

// Request is a request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   map[string]any
}

// OpenAI is a scripted server of the Chat Completions wire format.
type OpenAI struct {
	// URL is the base URL to configure ("http://127.0.0.1:port/v1").
	URL string
	// Models is what GET /v1/models lists.
	Models []string

	srv     *httptest.Server
	mu      sync.Mutex
	scripts []Script
	reqs    []Request
	closed  chan struct{}
}

// NewOpenAI starts a server on 127.0.0.1; Close stops it.
func NewOpenAI() *OpenAI {
	s := &OpenAI{closed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server, ending stalled streams.
func (s *OpenAI) Close() {
	close(s.closed)
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Push queues scripts for the next requests.
func (s *OpenAI) Push(scripts ...Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts = append(s.scripts, scripts...)
}

// Requests returns the requests received so far.
func (s *OpenAI) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *OpenAI) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &rec.Body)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()

	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		data := make([]map[string]any, 0, len(s.Models))
		for _, id := range s.Models {
			data = append(data, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "scripted"})
		}
		writeJSON(w, map[string]any{"object": "list", "data": data})
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	s.mu.Lock()
	var sc Script
	ok := len(s.scripts) > 0
	if ok {
		sc, s.scripts = s.scripts[0], s.scripts[1:]
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":{"message":"the scripted server has no script for this request"}}`, http.StatusInternalServerError)
		return
	}
	s.answer(w, r, sc)
}

func (s *OpenAI) answer(w http.ResponseWriter, r *http.Request, sc Script) {
	if !s.wait(r, sc.HeaderDelay) {
		return
	}
	for k, v := range sc.Headers {
		w.Header().Set(k, v)
	}
	if sc.Status != 0 && sc.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(sc.Status)
		_, _ = io.WriteString(w, sc.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	for _, c := range sc.Chunks {
		if !s.wait(r, c.Delay) {
			return
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", c.Data); err != nil {
			return
		}
		flush()
	}
	if sc.Stall {
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return
	}
	if sc.Done {
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
		flush()
	}
}

// wait sleeps d, or less if the client goes away (false then).
func (s *OpenAI) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closed:
		return false
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Chunk builders for the usual events of a Chat Completions stream.

func chunkJSON(delta map[string]any, finish string, extra map[string]any) string {
	choice := map[string]any{"index": 0, "delta": delta, "finish_reason": nil}
	if finish != "" {
		choice["finish_reason"] = finish
	}
	c := map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1700000000,
		"model": "scripted-model", "choices": []any{choice}}
	for k, v := range extra {
		c[k] = v
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// Text is a chunk adding text to the reply.
func Text(s string) Chunk { return Chunk{Data: chunkJSON(map[string]any{"content": s}, "", nil)} }

// Reasoning is a chunk adding reasoning in the given field
// ("reasoning_content" or "reasoning").
func Reasoning(field, s string) Chunk {
	return Chunk{Data: chunkJSON(map[string]any{field: s}, "", nil)}
}

// ToolCall is a fragment of tool call index: the first names it (id,
// name), later ones carry more of its arguments.
func ToolCall(index int, id, name, args string) Chunk {
	fn := map[string]any{"arguments": args}
	call := map[string]any{"index": index, "function": fn}
	if id != "" {
		call["id"] = id
		call["type"] = "function"
	}
	if name != "" {
		fn["name"] = name
	}
	return Chunk{Data: chunkJSON(map[string]any{"tool_calls": []any{call}}, "", nil)}
}

// Finish is the chunk ending the reply with a finish reason.
func Finish(reason string) Chunk { return Chunk{Data: chunkJSON(map[string]any{}, reason, nil)} }

// Usage is the final usage chunk (choices empty), as sent when the request
// asked for stream_options.include_usage.
func Usage(prompt, completion, reasoning int) Chunk {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1700000000,
		"model": "scripted-model", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"completion_tokens_details": map[string]any{"reasoning_tokens": reasoning}}})
	return Chunk{Data: string(b)}
}

// Reply is a whole streamed reply: the text in pieces of about size
// bytes, a finish, usage and [DONE].
func Reply(text string, size int) Script {
	var chunks []Chunk
	for len(text) > 0 {
		n := min(size, len(text))
		for n < len(text) && !isRuneStart(text[n]) {
			n++
		}
		chunks = append(chunks, Text(text[:n]))
		text = text[n:]
	}
	chunks = append(chunks, Finish("stop"), Usage(10, len(chunks), 0))
	return Script{Chunks: chunks, Done: true}
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// ErrorBody is an OpenAI-style error body.
func ErrorBody(message string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "error"}})
	return strings.TrimSpace(string(b))
}
