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
	// Wait, when set, holds the answer until it is closed (or the client
	// goes away): a test acts between two requests of a run.
	Wait <-chan struct{}
	// Chunks are sent as SSE "data:" events, in order.
	Chunks []Chunk
	// Done ends the stream with "data: [DONE]".
	Done bool
	// Stall keeps the stream open after the chunks, sending nothing,
	// until the client goes away or the server closes.
	Stall bool
}

// Chunk is one SSE event: Data as written (JSON, or anything for a
// malformed chunk), with an "event:" line when Event is set, sent after
// Delay.
type Chunk struct {
	Event string
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

// Server is a scripted server of one wire format.
type Server struct {
	// URL is the base URL to configure.
	URL string
	// Models is what GET /v1/models lists.
	Models []string
	// ModelsError, when its Status is set, is the answer to GET /v1/models
	// instead: a server that refuses the key before any completion.
	ModelsError Script

	// stream tells the path of streamed completions; models writes the
	// model list, served at modelsPath.
	stream     func(path string) bool
	modelsPath string
	models     func(ids []string) any
	srv        *httptest.Server
	mu         sync.Mutex
	scripts    []Script
	reqs       []Request
	closed     chan struct{}
}

// NewOpenAI starts a Chat Completions server on 127.0.0.1 (URL ends in
// /v1, as OpenAI-compatible base URLs do); Close stops it.
func NewOpenAI() *Server {
	s := start(is("/v1/chat/completions"), "/v1/models", func(ids []string) any {
		data := make([]map[string]any, 0, len(ids))
		for _, id := range ids {
			data = append(data, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "scripted"})
		}
		return map[string]any{"object": "list", "data": data}
	})
	s.URL += "/v1"
	return s
}

func start(stream func(string) bool, modelsPath string, models func([]string) any) *Server {
	s := &Server{stream: stream, modelsPath: modelsPath, models: models, closed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server, ending stalled streams.
func (s *Server) Close() {
	close(s.closed)
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Push queues scripts for the next requests.
func (s *Server) Push(scripts ...Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts = append(s.scripts, scripts...)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &rec.Body)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()

	if r.Method == http.MethodGet && r.URL.Path == s.modelsPath {
		if s.ModelsError.Status != 0 {
			s.answer(w, r, s.ModelsError)
			return
		}
		writeJSON(w, s.models(s.Models))
		return
	}
	if r.Method != http.MethodPost || !s.stream(r.URL.Path) {
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

func (s *Server) answer(w http.ResponseWriter, r *http.Request, sc Script) {
	if sc.Wait != nil {
		select {
		case <-sc.Wait:
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	}
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
		if c.Event != "" {
			if _, err := fmt.Fprintf(w, "event: %s\n", c.Event); err != nil {
				return
			}
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
func (s *Server) wait(r *http.Request, d time.Duration) bool {
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

// is matches one path.
func is(path string) func(string) bool { return func(p string) bool { return p == path } }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
