package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"hearth/backend/agent/profile"
	"hearth/backend/agent/runstore"
	"hearth/backend/agent/skills"
	"hearth/backend/agent/workspace"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/events"
	"hearth/backend/generate"
	"hearth/backend/search"
	"hearth/backend/store"
)

// Bus events of agent runs (AGENT.md §8).
const (
	// EventRunEvent carries every stored run event (its envelope).
	EventRunEvent = events.AgentRunEvent
	// EventWorkspaceFileChanged reports a file of a run's workspace that
	// changed on disk, by the run's tools or from outside.
	EventWorkspaceFileChanged = events.WorkspaceFileChanged
)

// Deps are what the agent works with.
type Deps struct {
	DB          *store.Store
	Bus         *events.Bus
	Runs        *runstore.Store
	Profiles    *profile.Store
	Skills      *skills.Library
	Chats       *chats.Service
	Search      *search.Service
	Characters  *characters.Service
	Generate    *generate.Service
	Connections *connections.Service
	// Dir is the agent's data folder: <data>/agent (workspaces, blobs).
	Dir string
	Now func() time.Time
}

// Service owns agent runs: it starts them, runs each in its own goroutine
// and answers the ABI's questions about them.
type Service struct {
	d     Deps
	blobs *workspace.Blobs
	watch *watcher
	log   *slog.Logger

	base        context.Context
	cancel      context.CancelFunc
	wg          sync.WaitGroup
	unsubscribe func()

	mu     sync.Mutex
	active map[string]*run // by run id
	byChat map[string]*run
	closed bool
}

// New returns the service. Runs a previous process left unfinished become
// interrupted (with their event), before anything else can see them.
func New(ctx context.Context, d Deps) (*Service, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Join(d.Dir, "workspaces"), 0o700); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	blobs, err := workspace.OpenBlobs(filepath.Join(d.Dir, "blobs"))
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	interrupted, err := d.Runs.Interrupt(ctx)
	if err != nil {
		return nil, fmt.Errorf("agent: mark unfinished runs interrupted: %w", err)
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Service{d: d, blobs: blobs, log: slog.Default(), base: base, cancel: cancel,
		active: map[string]*run{}, byChat: map[string]*run{}}
	s.watch, err = newWatcher(s)
	if err != nil {
		cancel()
		return nil, err
	}
	for _, ev := range interrupted {
		s.publish(ev)
	}
	s.unsubscribe = d.Bus.Subscribe(s.onBusEvent)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.sweep()
	}()
	return s, nil
}

// Close cancels every run (they end interrupted at the next start, as
// after a crash: the process is going away), waits for them and stops
// the watcher. Safe to call twice.
func (s *Service) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.unsubscribe()
	s.cancel()
	s.wg.Wait()
	s.watch.close()
}

// publish sends a stored run event to every window. The stored payload
// goes out as it is; one that is not JSON (never written so, but read
// from disk) goes out as null rather than make the event unencodable.
func (s *Service) publish(ev runstore.Event) {
	payload := ev.Payload
	if !json.Valid(payload) {
		payload = json.RawMessage("null")
	}
	s.d.Bus.Publish(events.Event{Type: EventRunEvent, Payload: &events.AgentRunEventPayload{
		Seq: ev.Seq, ID: ev.ID, RunID: ev.RunID, Timestamp: ev.Timestamp,
		Level: ev.Level, Type: ev.Type, Payload: payload,
	}})
}

// runDir is where a run's workspace lives.
func (s *Service) runDir(workspaceID, runID string) string {
	return filepath.Join(s.d.Dir, "workspaces", workspaceID, "runs", runID)
}

// activeRun returns the run with id if it is going in this process.
func (s *Service) activeRun(id string) *run {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[id]
}
