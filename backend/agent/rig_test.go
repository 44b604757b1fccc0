package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/backend/app"
	"hearth/backend/events"
	"hearth/backend/events/eventstest"
	pt "hearth/backend/providers/providertest"
)

// rig is a whole app in a temp data dir (real SQLite, real files, the
// real host router) with a chat and an active connection to a scripted
// OpenAI-compatible server: the model is the only fake.
type rig struct {
	t      testing.TB
	ctx    context.Context
	dir    string
	app    *app.App
	model  *pt.Server
	chatID string

	mu  sync.Mutex
	evs []events.Event
	// inLine runs a func once evs has every event published before the
	// call (events.Bus.SubscribeInLine).
	inLine func(func())
}

func newRig(t testing.TB) *rig {
	t.Helper()
	r := &rig{t: t, ctx: context.Background(), dir: t.TempDir(), model: pt.NewOpenAI()}
	t.Cleanup(r.model.Close)
	r.open()
	var card struct {
		Avatar string `json:"avatar"`
	}
	r.call(&card, "characters.create", map[string]any{"name": "Mira", "first_mes": "The lantern flickers. *Mira looks up.*"})
	var chat struct {
		ChatID string `json:"chatId"`
	}
	r.call(&chat, "chat.create", map[string]any{"avatar": card.Avatar})
	r.chatID = chat.ChatID
	r.call(nil, "chat.addMessages", r.chatID, []any{map[string]any{"is_user": true, "name": "User", "mes": "Tell me about the lantern."}})
	var conn struct {
		ID string `json:"id"`
	}
	r.call(&conn, "connections.save", map[string]any{"name": "Scripted", "provider": "openai-compatible", "baseUrl": r.model.URL, "model": "scripted", "apiKey": "sk-test"})
	r.call(nil, "connections.select", conn.ID)
	return r
}

// open starts the app on the rig's data dir and records its events.
func (r *rig) open() {
	r.t.Helper()
	a, err := app.Open(r.ctx, r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	r.app = a
	off, inLine := a.Bus.SubscribeInLine(func(e events.Event) {
		r.mu.Lock()
		r.evs = append(r.evs, e)
		r.mu.Unlock()
	})
	r.inLine = inLine
	r.t.Cleanup(func() {
		off()
		_ = a.Close()
	})
}

// flush waits until evs has every event published so far.
func (r *rig) flush() {
	r.t.Helper()
	eventstest.Flush(r.t, r.inLine)
}

// invoke calls a host method as a window would.
func (r *rig) invoke(method string, args ...any) (json.RawMessage, error) {
	if args == nil {
		args = []any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		r.t.Fatal(err)
	}
	return r.app.Router.Invoke(r.ctx, method, raw)
}

// call invokes method and decodes its answer into out (when not nil);
// any error fails the test.
func (r *rig) call(out any, method string, args ...any) {
	r.t.Helper()
	res, err := r.invoke(method, args...)
	if err != nil {
		r.t.Fatalf("%s: %v", method, err)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			r.t.Fatalf("%s: decode %s: %v", method, res, err)
		}
	}
}

// wire is e's payload as a client decodes it.
func wire(e events.Event) map[string]any {
	var out map[string]any
	raw, _ := json.Marshal(e.Payload)
	_ = json.Unmarshal(raw, &out)
	return out
}

// handle is a run handle.
type handle struct {
	RunID        string `json:"runId"`
	Status       string `json:"status"`
	WorkspaceID  string `json:"workspaceId"`
	StableChatID string `json:"stableChatId"`
}

// event is a stored run event.
type event struct {
	Seq     int64           `json:"seq"`
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Level   string          `json:"level"`
	Payload json.RawMessage `json:"payload"`
}

// start starts a run from the chat's dry run with extra input fields.
func (r *rig) start(extra map[string]any) handle {
	r.t.Helper()
	in := map[string]any{"chatId": r.chatID}
	for k, v := range extra {
		in[k] = v
	}
	var h handle
	r.call(&h, "agent.startRunFromLegacyGenerate", in)
	return h
}

// events reads every stored event of a run.
func (r *rig) events(runID string) []event {
	r.t.Helper()
	var out []event
	after := int64(0)
	for {
		var page struct {
			Events  []event `json:"events"`
			HasMore bool    `json:"hasMore"`
		}
		r.call(&page, "agent.readEvents", map[string]any{"runId": runID, "afterSeq": after, "limit": 1000})
		out = append(out, page.Events...)
		if !page.HasMore || len(page.Events) == 0 {
			return out
		}
		after = page.Events[len(page.Events)-1].Seq
	}
}

// types lists the event types of a run in order.
func types(evs []event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// waitStatus waits until the run's status is one of want.
func (r *rig) waitStatus(runID string, want ...string) string {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var s struct {
			Status string `json:"status"`
		}
		r.call(&s, "agent.getRun", runID)
		for _, w := range want {
			if s.Status == w {
				return s.Status
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("run %s is %s; want %v; events %v", runID, s.Status, want, types(r.events(runID)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitEvent waits until the run has an event of typ and returns it.
func (r *rig) waitEvent(runID, typ string) event {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, e := range r.events(runID) {
			if e.Type == typ {
				return e
			}
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("run %s never had %s; events %v", runID, typ, types(r.events(runID)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// call is one scripted tool call.
type call struct {
	name string
	args map[string]any
}

// round scripts one model answer making calls (or, with none, saying text).
func round(text string, calls ...call) pt.Script {
	var chunks []pt.Chunk
	if text != "" {
		chunks = append(chunks, pt.Text(text))
	}
	for i, c := range calls {
		args, _ := json.Marshal(c.args)
		raw := string(args)
		// Arguments arrive in two fragments, as providers stream them.
		half := len(raw) / 2
		id := fmt.Sprintf("call_%d_%s", i, strings.ReplaceAll(c.name, ".", "_"))
		chunks = append(chunks, pt.ToolCall(i, id, c.name, raw[:half]), pt.ToolCall(i, "", "", raw[half:]))
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	chunks = append(chunks, pt.Finish(finish), pt.Usage(100, 20, 0))
	return pt.Script{Chunks: chunks, Done: true}
}

// lastMessage returns the chat's last message as SillyTavern JSON.
func (r *rig) lastMessage() map[string]any {
	r.t.Helper()
	var msgs []map[string]any
	r.call(&msgs, "chat.getStMessages", r.chatID)
	return msgs[len(msgs)-1]
}

// toolResults returns the tool messages the model was sent in request i.
func (r *rig) toolResults(i int) []string {
	r.t.Helper()
	reqs := r.model.Requests()
	if i >= len(reqs) {
		r.t.Fatalf("only %d model requests", len(reqs))
	}
	var out []string
	msgs, _ := reqs[i].Body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] == "tool" {
			s, _ := mm["content"].(string)
			out = append(out, s)
		}
	}
	return out
}
