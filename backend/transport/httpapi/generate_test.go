package httpapi_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"hearth/backend/app/apptest"
	"hearth/backend/events"
	pt "hearth/backend/providers/providertest"
)

// generationEnv is an app served over loopback HTTP with a scripted
// OpenAI-compatible model server selected as its connection.
func generationEnv(t *testing.T) (*apptest.Env, *pt.Server) {
	t.Helper()
	e := apptest.NewEnv(t, nil)
	e.Invoker = overHTTP(e)
	e.SetupChat(map[string]any{"is_user": true, "mes": "Where am I?"})
	srv := pt.NewOpenAI()
	t.Cleanup(srv.Close)
	var c struct {
		ID string `json:"id"`
	}
	e.Must(&c, "connections.save", map[string]any{"name": "Scripted", "provider": "openai-compatible", "baseUrl": srv.URL, "model": "scripted-model", "apiKey": "k"})
	e.Must(nil, "connections.select", c.ID)
	e.Events()
	return e, srv
}

// A generation runs over HTTP like any call: run answers with the reply,
// which is in the chat; dryRun shows the prompt it sent.
func TestGenerateOverHTTP(t *testing.T) {
	t.Parallel()
	e, srv := generationEnv(t)
	var snap struct {
		Payload struct {
			Messages []map[string]any `json:"messages"`
		} `json:"chatCompletionPayload"`
		Tokens struct {
			Total int `json:"total"`
		} `json:"tokenCounts"`
	}
	e.Must(&snap, "generate.dryRun", map[string]any{"chatId": e.ChatID, "type": "normal"})
	if n := len(snap.Payload.Messages); n == 0 || snap.Payload.Messages[n-1]["content"] != "Where am I?" || snap.Tokens.Total == 0 {
		t.Fatalf("dry run: %+v", snap)
	}

	srv.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("In the "), pt.Text("glade."), pt.Finish("stop")}, Done: true})
	var res struct {
		Index   int    `json:"index"`
		SwipeID int    `json:"swipeId"`
		Text    string `json:"text"`
		Stopped bool   `json:"stopped"`
	}
	e.Must(&res, "generate.run", map[string]any{"chatId": e.ChatID, "type": "normal"})
	msgs := e.StMessages()
	if res.Text != "In the glade." || res.Index != len(msgs)-1 || msgs[res.Index]["mes"] != "In the glade." || res.Stopped {
		t.Fatalf("run %+v, chat %v", res, msgs)
	}
	// The prompt sent was the one the dry run showed, plus nothing else.
	sent := srv.Requests()[0].Body["messages"].([]any)
	if len(sent) != len(snap.Payload.Messages) {
		t.Fatalf("sent %d messages, dry run showed %d", len(sent), len(snap.Payload.Messages))
	}
	var status map[string]any
	e.Must(&status, "generate.status")
	if status["generating"] != false {
		t.Fatalf("status after the end: %v", status)
	}
}

// The caller of generate.run going away (a closed window, a dropped
// connection) does not stop the generation: the reply lands complete.
func TestGenerationOutlivesItsCaller(t *testing.T) {
	t.Parallel()
	e, srv := generationEnv(t)
	srv.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("Still "), {Data: pt.Text("here.").Data, Delay: 300 * time.Millisecond}, pt.Finish("stop")}, Done: true})
	args, _ := json.Marshal([]any{map[string]any{"chatId": e.ChatID, "type": "normal"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The caller goes away once the reply has started to stream.
	unsub := e.App.Bus.Subscribe(func(ev events.Event) {
		if ev.Type == events.StreamTokenReceived {
			cancel()
		}
	})
	defer unsub()
	if _, err := e.Invoker.Invoke(ctx, "generate.run", args); err == nil {
		t.Fatal("the caller's run should have been cut off")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		msgs := e.StMessages()
		if last := msgs[len(msgs)-1]; last["mes"] == "Still here." {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reply never landed: %v", msgs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
