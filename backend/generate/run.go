package generate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/events"
	"hearth/backend/internal/coalesce"
	"hearth/backend/jsonx"
	"hearth/backend/prompt"
	"hearth/backend/providers"
	"hearth/backend/store"
	"hearth/backend/worldinfo"
)

// commitTimeout bounds the write of a finished reply.
const commitTimeout = 30 * time.Second

// run is one generation in flight.
type run struct {
	id       string
	chatID   string
	typ      string
	presetID string
	provider providers.Provider
	conn     *connections.Connection
	built    *built
	started  time.Time
	// turn is the group turn r is a member's reply of (nil in a 1:1 chat).
	turn *turn

	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	stopped bool

	done   chan struct{}
	result *Result
	err    error

	// streamTime is how long the provider's stream took (benchmarks
	// subtract it to measure Hearth's own overhead).
	streamTime time.Duration
}

// Result is generate.run's answer.
type Result struct {
	GenerationID string `json:"generationId"`
	Index        *int   `json:"index"`
	SwipeID      *int   `json:"swipeId"`
	Text         string `json:"text"`
	Stopped      bool   `json:"stopped"`
	// Replies, for a group turn, are every member's reply in speaking
	// order (empty when nobody was drafted); left out in a 1:1 chat.
	Replies []*Result `json:"replies,omitzero"`
}

// where is where a reply landed.
type where = chats.Committed

func (r *run) stop() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	r.cancel()
}

func (r *run) wasStopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

func (s *Service) launch(r *run) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(r.done)
		defer s.release(r)
		s.execute(r)
	}()
}

// publish sends a generation event; payload is a pointer to the payload
// struct the registry declares for typ.
func (s *Service) publish(typ string, payload any) {
	s.bus.Publish(events.Event{Type: typ, Payload: payload})
}

// execute streams the reply and commits it.
func (s *Service) execute(r *run) {
	b := r.built
	s.publish(events.GenerationStarted, &events.GenerationStartedPayload{ChatID: r.chatID, GenerationID: r.id, Type: r.typ})
	payload := b.prompt.Payload(r.conn.Model)
	s.publish(events.ChatCompletionPromptReady, &events.PromptReadyPayload{ChatID: r.chatID, GenerationID: r.id, Chat: payload.Messages,
		Hooked: b.hooks.PromptReady != nil})
	s.publish(events.GenerateAfterData, &events.GenerateAfterDataPayload{ChatID: r.chatID, GenerationID: r.id, GenerateData: payload})

	var reasonStart, reasonEnd time.Time
	co := coalesce.New(func(text, reasoning string) {
		s.publish(events.StreamTokenReceived, &events.StreamTokenPayload{ChatID: r.chatID, GenerationID: r.id, Text: text, Reasoning: reasoning})
	})
	req := b.prompt.Request(r.conn.Model)
	s.resolveImages(&req)
	t0 := time.Now()
	res, err := r.provider.Stream(r.ctx, req, func(d providers.Delta) {
		if d.Reasoning != "" && reasonStart.IsZero() {
			reasonStart = time.Now()
		}
		if d.Text != "" && !reasonStart.IsZero() && reasonEnd.IsZero() {
			reasonEnd = time.Now()
		}
		co.Add(d.Text, d.Reasoning)
	})
	r.streamTime = time.Since(t0)
	co.Close()
	finished := s.now()
	stopped := r.wasStopped()

	if err != nil && !stopped {
		if errors.Is(err, context.Canceled) {
			err = apperr.New(CodeInterrupted, "the generation was cut short: Hearth is shutting down")
		}
		s.fail(r, err, res.Text)
		return
	}
	text := res.Text
	if b.prompt.Prefill || r.typ == prompt.TypeContinue {
		text = strings.TrimRight(text, " \t") // a continuation keeps its leading space
	} else {
		text = strings.TrimSpace(text)
	}
	result := &Result{GenerationID: r.id, Text: text, Stopped: stopped}
	if text == "" && !stopped {
		s.fail(r, apperr.New(CodeEmptyReply, "the model returned an empty reply"), "")
		return
	}
	if r.typ == prompt.TypeImpersonate || r.typ == prompt.TypeQuiet || text == "" {
		s.end(r, result, nil)
		return
	}
	if !reasonStart.IsZero() && reasonEnd.IsZero() {
		reasonEnd = time.Now()
	}
	reply := chats.Reply{Text: text, Name: b.charName, Speaker: b.speaker, Started: r.started, Finished: finished, Type: r.typ,
		Extra: s.replyExtra(r, res, reasonEnd.Sub(reasonStart))}
	switch r.typ {
	case prompt.TypeNormal:
		reply.Kind = chats.ReplyNew
	case prompt.TypeRegenerate:
		reply.Kind = chats.ReplyNew
		if b.target != nil {
			reply.Kind, reply.Target = chats.ReplyReplace, b.target.id
		}
	case prompt.TypeSwipe:
		reply.Kind, reply.Target = chats.ReplySwipe, b.target.id
	case prompt.TypeContinue:
		reply.Kind, reply.Target = chats.ReplyContinue, b.target.id
	}
	// The record says the generation ended, and where, in the reply's own
	// transaction: a crash between two transactions left replies whose
	// record said the generation failed.
	status := statusOf(result)
	reply.Settle = func(ctx context.Context, tx *store.Tx, at chats.Committed) error {
		return s.writeRecord(ctx, tx, r, status, nil, &at)
	}
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	w, err := s.src.Chats.CommitReply(ctx, r.chatID, reply)
	if err != nil {
		s.fail(r, err, text)
		return
	}
	result.Index, result.SwipeID = &w.Index, &w.SwipeID
	s.end(r, result, w)
}

// replyExtra is the per-swipe data a reply carries: SillyTavern's api,
// model, reasoning and token_count, and Hearth's own under extra.hearth.
func (s *Service) replyExtra(r *run, res providers.Result, reasoning time.Duration) jsonx.Object {
	model := res.Model
	if model == "" {
		model = r.conn.Model
	}
	extra := jsonx.Object{"api": mustRaw(r.conn.Provider), "model": mustRaw(model)}
	if res.Reasoning != "" {
		extra["reasoning"] = mustRaw(res.Reasoning)
		extra["reasoning_duration"] = mustRaw(reasoning.Milliseconds())
	}
	if res.Usage.OutputTokens > 0 {
		extra["token_count"] = mustRaw(res.Usage.OutputTokens)
	}
	hearth := map[string]any{
		"generationId": r.id, "connectionId": r.conn.ID, "presetId": r.presetID,
		"usage": res.Usage, "finishReason": res.FinishReason, "promptTokens": r.built.prompt.Tokens.Total,
	}
	if wi := worldInfoRefs(r.built.activation); len(wi) > 0 {
		hearth["worldInfo"] = wi
	}
	extra["hearth"] = mustRaw(hearth)
	return extra
}

// worldInfoRef names one lorebook entry a reply's prompt carried.
type worldInfoRef struct {
	World       string `json:"world"`
	UID         int    `json:"uid"`
	DisplayName string `json:"displayName"`
	Position    string `json:"position"`
}

// worldInfoRefs are the entries an activation added, by reference (the
// content stays in the book): kept on the reply's swipe, so each reply
// can show what the lorebooks gave it, not just the chat's last.
func worldInfoRefs(act *worldinfo.Activation) []worldInfoRef {
	if act == nil {
		return nil
	}
	out := make([]worldInfoRef, 0, len(act.Entries))
	for _, e := range act.Entries {
		out = append(out, worldInfoRef{World: e.World, UID: e.UID, DisplayName: e.DisplayName, Position: e.Position})
	}
	return out
}

// statusOf is the status of a generation that produced result.
func statusOf(result *Result) string {
	if result.Stopped {
		return StatusStopped
	}
	return StatusEnded
}

// end settles a generation that produced its reply (or was stopped). A
// reply that landed (w) settled its record in its own transaction.
func (s *Service) end(r *run, result *Result, w *where) {
	if w == nil {
		s.settleRecord(r, statusOf(result), nil, nil)
	}
	if result.Stopped {
		s.publish(events.GenerationStopped, &events.GenerationStoppedPayload{ChatID: r.chatID, GenerationID: r.id, Index: result.Index})
	} else {
		s.publish(events.GenerationEnded, &events.GenerationEndedPayload{ChatID: r.chatID, GenerationID: r.id, Index: result.Index, SwipeID: result.SwipeID})
	}
	r.result = result
}

// fail settles a generation that failed: nothing was written to the chat.
// The event carries the error (and any text that streamed, so a caller can
// still save it by hand).
func (s *Service) fail(r *run, err error, text string) {
	e := apperr.Shape(err)
	s.settleRecord(r, StatusFailed, e, nil)
	s.publish(events.GenerationEnded, &events.GenerationEndedPayload{ChatID: r.chatID, GenerationID: r.id, Error: e, Text: text})
	r.err = e
}

func mustRaw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// vision guesses whether a model reads images, from its name: providers
// do not say. A wrong guess either sends images a model rejects (the
// provider's error says so) or a notice instead of the image.
func vision(provider, model string) bool {
	m := strings.ToLower(model)
	switch provider {
	case providers.KindAnthropic, providers.KindGoogle:
		return true
	}
	for _, hint := range []string{"gpt-4o", "gpt-4.1", "gpt-5", "gpt-4-turbo", "vision", "-vl", "llava", "pixtral", "gemma-3", "gemini", "claude", "o3", "o4", "qwen2.5-vl", "minicpm-v", "moondream"} {
		if strings.Contains(m, hint) {
			return true
		}
	}
	return false
}
