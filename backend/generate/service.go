// Package generate runs generations: it assembles the prompt (backend/
// prompt) from the chat and its settings, streams the reply from the
// connection's provider, and commits it through the chat's message
// pipeline. Nothing waits on a window: a reply lands whether or not anyone
// is watching, and a generation cut short by a crash is reported failed
// at the next start instead of leaving half a message behind.
package generate

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/events"
	"hearth/backend/groups"
	"hearth/backend/prompt"
	"hearth/backend/providers"
	"hearth/backend/store"
	"hearth/backend/worldinfo"
)

// Error codes of this package.
const (
	CodeNotFound     = "generate.not_found"
	CodeBusy         = "generate.busy"
	CodeNoConnection = "generate.no_connection"
	// CodeAbandoned: run's caller went away; the generation goes on.
	CodeAbandoned = "generate.abandoned"
	// CodeEmptyReply: the model answered with no text at all.
	CodeEmptyReply = "model.empty_reply"
)

// Sources are where a generation reads its inputs.
type Sources struct {
	Chats       *chats.Service
	Characters  *characters.Service
	Connections *connections.Service
	// Preset returns the preset with id, or the active one for "".
	Preset func(ctx context.Context, id string) (prompt.Preset, error)
	// Persona returns the persona that applies to a chat.
	Persona func(ctx context.Context, chatID string) (prompt.Persona, error)
	// Media holds the attachments images in prompts refer to.
	Media interface {
		Path(name string) (string, error)
	}
	// WorldInfo activates lorebooks; nil leaves the World Info slots empty.
	WorldInfo *worldinfo.Service
	// Groups holds the groups of group chats; nil refuses a group chat's
	// generations (group.not_found).
	Groups *groups.Service
}

// Service runs generations.
type Service struct {
	db  *store.Store
	bus *events.Bus
	src Sources
	tok *prompt.Tokenizer
	now func() time.Time
	log *slog.Logger

	base   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	runs   map[string]*run // by generation id
	byChat map[string]*run
	turns  map[string]*turn // group turns, by chat
	latest *run
	closed bool

	// The prompt-ready round trips waiting for their window, by token
	// (hooks_prompt.go), and how long each waits.
	hookMu      sync.Mutex
	hookWaits   map[string]*hookWait
	hookTimeout time.Duration

	// auto is the group chats' auto mode (group_auto.go).
	auto autoMode
}

// New returns the service. It fails the generations a previous process
// left running, and loads the tokenizer in the background.
func New(ctx context.Context, db *store.Store, bus *events.Bus, src Sources, now func() time.Time) (*Service, error) {
	base, cancel := context.WithCancel(context.Background())
	s := &Service{db: db, bus: bus, src: src, tok: prompt.NewTokenizer(), now: now, log: slog.Default(),
		base: base, cancel: cancel, runs: map[string]*run{}, byChat: map[string]*run{}, turns: map[string]*turn{},
		hookWaits: map[string]*hookWait{}, hookTimeout: defaultHookTimeout, auto: newAutoMode()}
	if err := s.markInterrupted(ctx); err != nil {
		cancel()
		return nil, err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.tok.Warm(); err != nil {
			s.log.Error("load tokenizer", "err", err)
		}
	}()
	return s, nil
}

// Close stops every running generation (recorded as interrupted) and
// waits for them. Safe to call twice.
func (s *Service) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.closeAuto()
	s.wg.Wait()
}

// Started is generate.start's answer: the generation's id; in a group
// chat the first member's ("" when nobody was drafted).
type Started struct {
	GenerationID string `json:"generationId"`
}

// Start begins a generation and returns once its prompt is assembled:
// bad options, a busy chat, a missing connection, a prompt that does not
// fit or a stop while it is assembled (generate.interrupted) fail here,
// before any event. In a group chat it begins a group turn
// (group_turn.go) and returns once the first member's prompt is
// assembled.
func (s *Service) Start(ctx context.Context, o Options) (*Started, error) {
	_, r, err := s.begin(ctx, &o)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return &Started{}, nil
	}
	return &Started{GenerationID: r.id}, nil
}

// Run is Start, then waits for the end. If ctx ends first (the caller went
// away), the generation goes on and lands; only the wait is abandoned. In
// a group chat it waits for the whole turn: the answer is the last
// reply's, with every reply in Replies.
func (s *Service) Run(ctx context.Context, o Options) (*Result, error) {
	t, r, err := s.begin(ctx, &o)
	if err != nil {
		return nil, err
	}
	if t != nil {
		select {
		case <-t.done:
			if t.err != nil {
				return nil, t.err
			}
			return t.result(), nil
		case <-ctx.Done():
			return nil, apperr.New(CodeAbandoned, "the caller stopped waiting; the group turn in chat %s goes on", o.ChatID).
				WithDetails(map[string]any{"chatId": o.ChatID})
		}
	}
	select {
	case <-r.done:
		return r.result, r.err
	case <-ctx.Done():
		return nil, apperr.New(CodeAbandoned, "the caller stopped waiting; generation %s goes on", r.id).
			WithDetails(map[string]any{"generationId": r.id})
	}
}

// begin is what Start and Run share: o validated, then in a group chat a
// group turn begun (t, with r its first member's generation, nil when
// nobody was drafted), else one generation prepared and launched (r).
func (s *Service) begin(ctx context.Context, o *Options) (t *turn, r *run, err error) {
	if err := o.validate(); err != nil {
		return nil, nil, err
	}
	plan, err := s.planTurn(ctx, o, true)
	if err != nil {
		return nil, nil, err
	}
	if plan != nil {
		return s.beginTurn(ctx, *o, plan)
	}
	if r, err = s.prepare(ctx, o, nil); err != nil {
		return nil, nil, err
	}
	s.launch(r)
	return nil, r, nil
}

// beginTurn starts group turn plan in o's chat: its first member's
// generation is prepared under ctx, the rest runs in the background.
func (s *Service) beginTurn(ctx context.Context, o Options, plan *turnPlan) (*turn, *run, error) {
	t := &turn{chatID: o.ChatID, typ: o.Type, opts: o, plan: plan, done: make(chan struct{}), replies: []*Result{}}
	first, err := s.startTurn(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.runTurn(t, first)
	}()
	return t, first, nil
}

// Stop stops generation id, or every running generation when id is "".
// A stopped generation keeps what it streamed; stopping a group member's
// generation ends its turn (no member after it replies). It reports
// whether any generation was running.
func (s *Service) Stop(id string) bool {
	s.mu.Lock()
	var stop []*run
	var turns []*turn
	if id == "" {
		for _, r := range s.runs {
			stop = append(stop, r)
		}
		for _, t := range s.turns {
			turns = append(turns, t)
		}
	} else if r := s.runs[id]; r != nil {
		stop = append(stop, r)
		if r.turn != nil {
			turns = append(turns, r.turn)
		}
	}
	s.mu.Unlock()
	for _, t := range turns {
		t.stop()
	}
	for _, r := range stop {
		r.stop()
	}
	return len(stop)+len(turns) > 0
}

// Status is generate.status()'s answer.
type Status struct {
	Generating   bool    `json:"generating"`
	GenerationID *string `json:"generationId"`
	ChatID       *string `json:"chatId"`
	Type         *string `json:"type"`
}

// Current reports the latest running generation.
func (s *Service) Current() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.latest
	if r == nil {
		return Status{}
	}
	return Status{Generating: true, GenerationID: &r.id, ChatID: &r.chatID, Type: &r.typ}
}

// Record reports generation id, running or done.
func (s *Service) Record(ctx context.Context, id string) (*Record, error) {
	return s.record(ctx, id)
}

// prepare validates o, resolves the connection and preset, claims the
// chat and assembles the prompt.
func (s *Service) prepare(ctx context.Context, o *Options, t *turn) (*run, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	provider, conn, err := s.connection(ctx, o)
	if err != nil {
		return nil, err
	}
	preset, err := s.preset(ctx, o)
	if err != nil {
		return nil, err
	}
	r := &run{id: uuid.NewString(), chatID: o.ChatID, typ: o.Type, provider: provider, conn: conn,
		presetID: preset.ID, started: s.now(), done: make(chan struct{}), turn: t}
	if err := s.claim(r); err != nil {
		return nil, err
	}
	b, err := s.buildFor(ctx, r, o, preset, conn)
	if err != nil {
		s.release(r)
		return nil, err
	}
	r.built = b
	if err := s.insertRecord(ctx, r); err != nil {
		s.release(r)
		return nil, err
	}
	s.saveTimed(ctx, o.ChatID, b.timedBefore, b.timed)
	return r, nil
}

// buildFor assembles run r's prompt under the caller's context and the
// run's, and runs the starting window's prompt-ready listeners on it:
// generate.stop, or Close, ends a long assembly (a lorebook scan above
// all) or the wait for the window as it ends the stream. Such a run fails
// with generate.interrupted and leaves nothing behind.
func (s *Service) buildFor(ctx context.Context, r *run, o *Options, preset prompt.Preset, conn *connections.Connection) (*built, error) {
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.ctx, cancel)()
	b, err := s.build(bctx, o, preset, conn.Model, vision(conn.Provider, conn.Model), false)
	if err == nil {
		b.hooks.PromptReady, err = s.promptReady(bctx, o, b, r.id, conn.Model, false)
	}
	if err != nil && r.ctx.Err() != nil && ctx.Err() == nil {
		why := "Hearth is shutting down"
		if r.wasStopped() {
			why = "it was stopped"
		}
		return nil, apperr.New(CodeInterrupted, "the generation ended before its prompt was assembled: %s", why).
			WithDetails(map[string]any{"generationId": r.id})
	}
	return b, err
}

// claim registers r, refusing a second generation in one chat (a group
// turn's members take it in turn).
func (s *Service) claim(r *run) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return apperr.New(CodeBusy, "Hearth is shutting down")
	}
	if t := s.turns[r.chatID]; t != nil && t != r.turn {
		return apperr.New(CodeBusy, "a group turn is under way in this chat; stop it first").
			WithDetails(map[string]any{"chatId": r.chatID})
	}
	if r.turn != nil && r.turn.wasStopped() {
		return apperr.New(CodeInterrupted, "the group turn was stopped")
	}
	if cur := s.byChat[r.chatID]; cur != nil {
		return apperr.New(CodeBusy, "a reply is already being generated in this chat; stop it first").
			WithDetails(map[string]any{"chatId": r.chatID, "generationId": cur.id})
	}
	r.ctx, r.cancel = context.WithCancel(s.base)
	s.runs[r.id], s.byChat[r.chatID], s.latest = r, r, r
	return nil
}

// release forgets r.
func (s *Service) release(r *run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.runs, r.id)
	if s.byChat[r.chatID] == r {
		delete(s.byChat, r.chatID)
	}
	if s.latest == r {
		s.latest = nil
		for _, o := range s.runs {
			if s.latest == nil || o.started.After(s.latest.started) {
				s.latest = o
			}
		}
	}
	r.cancel()
}

// connection resolves the connection a generation uses.
func (s *Service) connection(ctx context.Context, o *Options) (providers.Provider, *connections.Connection, error) {
	id := ""
	if o.ConnectionID != nil {
		id = *o.ConnectionID
	} else {
		c, err := s.src.Connections.Active(ctx)
		if err != nil {
			return nil, nil, err
		}
		if c == nil {
			return nil, nil, apperr.New(CodeNoConnection, "no connection is selected: add one under Connections and select it")
		}
		id = c.ID
	}
	return s.src.Connections.Provider(ctx, id)
}

func (s *Service) preset(ctx context.Context, o *Options) (prompt.Preset, error) {
	id := ""
	if o.PresetID != nil {
		id = *o.PresetID
	}
	return s.src.Preset(ctx, id)
}
