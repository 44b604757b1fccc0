package generate

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/events"
	"hearth/backend/events/eventstest"
	"hearth/backend/groups"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/prompt"
	"hearth/backend/providers/providertest"
	"hearth/backend/store"
	"hearth/backend/worldinfo"
)

// harness is a data dir with a character, a chat and a connection to a
// scripted OpenAI-compatible server on loopback.
type harness struct {
	t      testing.TB
	dir    string
	db     *store.Store
	bus    *events.Bus
	chats  *chats.Service
	chars  *characters.Service
	files  *media.Store
	conns  *connections.Service
	gen    *Service
	server *providertest.Server
	chatID string
	preset prompt.Preset
	rec    *recorder
	// inLine runs a func once the recorder has had every event published
	// before the call (events.Bus.SubscribeInLine).
	inLine func(func())
	wi     *worldinfo.Service
	groups *groups.Service
	// presets, when set, are the only presets besides the active one (an
	// unknown id is preset.not_found, as backend/presets answers).
	presets map[string]prompt.Preset
}

// recorder keeps every event the bus published.
type recorder struct {
	mu  sync.Mutex
	evs []events.Event
	ch  chan struct{}
}

func (r *recorder) add(e events.Event) {
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
	select {
	case r.ch <- struct{}{}:
	default:
	}
}

// all returns the events so far.
func (r *recorder) all() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Event(nil), r.evs...)
}

// types lists the event types so far, generation and message events only.
func (r *recorder) types() []string {
	var out []string
	for _, e := range r.all() {
		out = append(out, e.Type)
	}
	return out
}

// waitFor waits until an event of typ has arrived and returns it.
func (r *recorder) waitFor(t testing.TB, typ string) events.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		for _, e := range r.all() {
			if e.Type == typ {
				return e
			}
		}
		select {
		case <-r.ch:
		case <-deadline:
			t.Fatalf("no %s event; got %v", typ, r.types())
		}
	}
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t, dir: t.TempDir(), preset: prompt.DefaultPreset(), rec: &recorder{ch: make(chan struct{}, 1)}}
	h.open()
	card, err := h.chars.Create(ctx, jsonx.Object{
		"name": jsonx.Raw("Seraphina"), "description": jsonx.Raw("{{char}} guards the glade."), "first_mes": jsonx.Raw("Welcome, {{user}}."),
	}, characters.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := h.chats.Create(ctx, chats.Owner{Avatar: card.Avatar}, chats.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.chatID = sum.ChatID
	h.server = providertest.NewOpenAI()
	t.Cleanup(h.server.Close)
	name, kind, model, key := "Scripted", "openai-compatible", "scripted-model", "sk-test"
	c, err := h.conns.Save(ctx, connections.Input{Name: &name, Provider: &kind, BaseURL: &h.server.URL, Model: &model, APIKey: &key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.conns.Select(ctx, &c.ID); err != nil {
		t.Fatal(err)
	}
	return h
}

// open (re)opens the data dir's store and services.
func (h *harness) open() {
	t := h.t
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(h.dir, "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := media.New(filepath.Join(h.dir, "media"))
	if err != nil {
		t.Fatal(err)
	}
	h.db, h.bus, h.files = db, events.NewBus(), files
	unsub, inLine := h.bus.SubscribeInLine(h.rec.add)
	h.inLine = inLine
	chars := characters.New(db, h.bus, files, nil, time.Now)
	h.chars = chars
	h.groups = groups.New(db, h.bus, chars, time.Now)
	h.chats = chats.New(db, h.bus, chars, time.Now, chats.Hooks{Groups: h.groups})
	h.conns = connections.New(db, h.bus, connections.NewSecrets(filepath.Join(h.dir, "secrets.json")), time.Now)
	h.conns.IdleTimeout = 2 * time.Second
	h.wi = worldinfo.NewService(db, h.bus, time.Now, worldinfo.Hooks{})
	h.gen, err = New(ctx, db, h.bus, Sources{
		Chats: h.chats, Characters: chars, Connections: h.conns, Media: files, WorldInfo: h.wi, Groups: h.groups,
		Preset: func(ctx context.Context, id string) (prompt.Preset, error) {
			if p, ok := h.presets[id]; ok || id != "" && h.presets != nil {
				if !ok {
					return prompt.Preset{}, apperr.New("preset.not_found", "no preset %q", id)
				}
				return p, nil
			}
			return h.preset, nil
		},
		Persona: func(ctx context.Context, chatID string) (prompt.Persona, error) {
			return prompt.Persona{Name: "Wren", Description: "{{user}} is a traveler."}, nil
		},
	}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	gen, bus := h.gen, h.bus
	t.Cleanup(func() { gen.Close(); unsub(); bus.Close(); db.Close() })
}

// flush waits until the recorder has every event published so far.
func (h *harness) flush() {
	h.t.Helper()
	eventstest.Flush(h.t, h.inLine)
}

// say adds a user message.
func (h *harness) say(text string) {
	h.t.Helper()
	raw, _ := json.Marshal(map[string]any{"is_user": true, "mes": text})
	if _, err := h.chats.AddMessages(context.Background(), h.chatID, []json.RawMessage{raw}, chats.WriteOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// messages reads the whole chat.
func (h *harness) messages() []*chats.StMessage {
	h.t.Helper()
	msgs, err := h.chats.StMessages(context.Background(), h.chatID, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return msgs
}

// revision reads the chat's revision.
func (h *harness) revision() int64 {
	h.t.Helper()
	d, err := h.chats.Get(context.Background(), h.chatID)
	if err != nil {
		h.t.Fatal(err)
	}
	return d.Revision
}

// streamed joins the text of every STREAM_TOKEN_RECEIVED so far.
func (h *harness) streamed() (text, reasoning string) {
	var t, r strings.Builder
	for _, e := range h.rec.all() {
		if e.Type == events.StreamTokenReceived {
			p := e.Payload.(*events.StreamTokenPayload)
			t.WriteString(p.Text)
			r.WriteString(p.Reasoning)
		}
	}
	return t.String(), r.String()
}

func extraOf(t *testing.T, m *chats.StMessage, key string) any {
	t.Helper()
	raw, ok := m.Extra[key]
	if !ok {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

type promptExt = prompt.ExtensionPrompt

func chatsWrite() chats.WriteOptions { return chats.WriteOptions{} }

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
