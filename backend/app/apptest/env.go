// Package apptest runs host-API contract scenarios against a whole app
// through any transport: the in-process router or HTTP. Each scenario gets
// a fresh data dir with a real SQLite database, a character and a chat,
// calls one method and checks its result, its error code, the events it
// published and — for failures — that nothing changed.
//
// It lives under backend/app, not backend/host, because it opens a whole
// app (app.Open) and app imports host: imports point down the layers
// (backend/layers_test.go), and only test packages import this one.
package apptest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"hearth/backend/app"
	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/events/eventstest"
)

// Invoker is what a transport offers: a method call with positional JSON args.
type Invoker interface {
	Invoke(ctx context.Context, method string, rawArgs []byte) ([]byte, error)
}

// Env is one scenario's world.
type Env struct {
	T       testing.TB
	App     *app.App
	Invoker Invoker
	Avatar  string
	ChatID  string
	// IDs are the message ids of the chat's messages at setup, by index.
	IDs []string

	rec *eventstest.Recorder
}

// NewEnv opens a fresh app in a temp dir and subscribes to its bus.
func NewEnv(t testing.TB, invoker func(*app.App) Invoker) *Env {
	t.Helper()
	a, err := app.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatalf("open app: %v", err)
	}
	e := &Env{T: t, App: a}
	e.Invoker = a.Router
	if invoker != nil {
		e.Invoker = invoker(a)
	}
	t.Cleanup(func() { a.Close() })
	e.rec = eventstest.Record(t, a.Bus)
	return e
}

// Call invokes method with args (encoded as a JSON array) and returns the
// raw result or the host error.
func (e *Env) Call(method string, args ...any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		e.T.Fatalf("encode args: %v", err)
	}
	return e.CallRaw(method, string(raw))
}

// CallRaw invokes method with a literal JSON args array.
func (e *Env) CallRaw(method, rawArgs string) (json.RawMessage, error) {
	out, err := e.Invoker.Invoke(context.Background(), method, []byte(rawArgs))
	return out, err
}

// Must is Call that fails the test on error and decodes into dst (if non-nil).
func (e *Env) Must(dst any, method string, args ...any) {
	e.T.Helper()
	out, err := e.Call(method, args...)
	if err != nil {
		e.T.Fatalf("%s: %v", method, err)
	}
	if dst != nil {
		if err := json.Unmarshal(out, dst); err != nil {
			e.T.Fatalf("%s: decode %s: %v", method, out, err)
		}
	}
}

// Events waits until every event published so far has been delivered, then
// returns them and starts a new collection.
func (e *Env) Events() []events.Event {
	e.T.Helper()
	return e.rec.Take(e.T)
}

// SetupChat creates a character and a chat whose messages are msgs (each a
// SillyTavern message object) after the greeting is removed.
func (e *Env) SetupChat(msgs ...map[string]any) {
	e.T.Helper()
	var card map[string]any
	e.Must(&card, "characters.create", map[string]any{"name": "Seraphina", "first_mes": "Welcome, {{user}}."})
	e.Avatar = card["avatar"].(string)
	var sum map[string]any
	e.Must(&sum, "chat.create", map[string]any{"avatar": e.Avatar})
	e.ChatID = sum["chatId"].(string)
	e.Must(nil, "chat.deleteMessages", e.ChatID, 0)
	if len(msgs) > 0 {
		e.Must(nil, "chat.addMessages", e.ChatID, msgs)
	}
	var got []map[string]any
	e.Must(&got, "chat.getMessages", e.ChatID)
	e.IDs = make([]string, len(got))
	for i, m := range got {
		e.IDs[i] = m["id"].(string)
	}
	e.Events()
}

// SnapshotNamespaces are the chat-state namespaces scenarios use; Snapshot
// covers them (and the character namespace "cs").
var SnapshotNamespaces = []string{"a", "b", "counter", "fs", "fs__floor_log", "fs__orphans"}

// Snapshot captures everything a chat call could change, to prove that a
// failed call changed nothing.
func (e *Env) Snapshot() string {
	e.T.Helper()
	var parts []json.RawMessage
	for _, call := range []struct {
		method string
		args   []any
	}{
		{"chat.getStMessages", []any{e.ChatID}},
		{"chat.get", []any{e.ChatID}},
		{"chat.list", []any{map[string]any{"avatar": e.Avatar}}},
		{"characters.list", nil},
		{"characters.get", []any{e.Avatar}},
		{"state.getChatStateBatch", []any{e.ChatID, SnapshotNamespaces}},
		{"state.getCharacterState", []any{e.Avatar, "cs"}},
	} {
		out, err := e.Call(call.method, call.args...)
		if err != nil {
			e.T.Fatalf("snapshot %s: %v", call.method, err)
		}
		parts = append(parts, out)
	}
	b, _ := json.Marshal(parts)
	return string(b)
}

// StMessages reads the whole chat as SillyTavern objects.
func (e *Env) StMessages() []map[string]any {
	e.T.Helper()
	var out []map[string]any
	e.Must(&out, "chat.getStMessages", e.ChatID)
	return out
}

// Revision reads the chat's revision.
func (e *Env) Revision() int64 {
	e.T.Helper()
	var d struct {
		Revision int64 `json:"revision"`
	}
	e.Must(&d, "chat.get", e.ChatID)
	return d.Revision
}

// Code returns the HostError code of err ("" for nil).
func Code(err error) string {
	if err == nil {
		return ""
	}
	if ae := apperr.As(err); ae != nil {
		return ae.Code
	}
	return fmt.Sprintf("non-host error %T: %v", err, err)
}
