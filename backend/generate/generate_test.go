package generate

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/events"
	pt "hearth/backend/providers/providertest"
)

func mustRun(t *testing.T, h *harness, o Options) *Result {
	t.Helper()
	if o.ChatID == "" {
		o.ChatID = h.chatID
	}
	res, err := h.gen.Run(context.Background(), o)
	if err != nil {
		t.Fatalf("run %s: %v", o.Type, err)
	}
	h.flush()
	return res
}

func reply(chunks ...pt.Chunk) pt.Script {
	return pt.Script{Chunks: append(chunks, pt.Finish("stop"), pt.Usage(120, 7, 0)), Done: true}
}

func TestNormalReplyLandsWithItsData(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Where am I, {{char}}?")
	h.server.Push(reply(pt.Text("You are "), pt.Text("in my glade, "), pt.Text("Wren.")))
	res := mustRun(t, h, Options{Type: "normal"})

	msgs := h.messages()
	last := msgs[len(msgs)-1]
	if res.Text != "You are in my glade, Wren." || last.Mes() != res.Text || *res.Index != len(msgs)-1 || *res.SwipeID != 0 {
		t.Fatalf("result %+v, last message %q at %d", res, last.Mes(), len(msgs)-1)
	}
	if last.IsUser || last.Name != "Seraphina" {
		t.Fatalf("reply by %q (user %v)", last.Name, last.IsUser)
	}
	if extraOf(t, last, "api") != "openai-compatible" || extraOf(t, last, "model") != "scripted-model" || extraOf(t, last, "token_count") != 7.0 {
		t.Fatalf("extra %s", jsonOf(last.Extra))
	}
	for _, k := range []string{"gen_started", "gen_finished"} {
		if _, ok := last.Fields[k]; !ok {
			t.Fatalf("no %s on the reply", k)
		}
	}
	h.rec.waitFor(t, events.GenerationEnded)
	if text, _ := h.streamed(); text != res.Text {
		t.Fatalf("streamed %q, committed %q", text, res.Text)
	}
	// The request carried the assembled prompt: the card, the persona,
	// the greeting, the user's message with {{char}} expanded.
	req := h.server.Requests()[0].Body
	body := jsonOf(req["messages"])
	for _, want := range []string{"Seraphina guards the glade.", "Wren is a traveler.", "Welcome, ", "Where am I, Seraphina?"} {
		if !strings.Contains(body, want) {
			t.Fatalf("request lacks %q: %s", want, body)
		}
	}
	if req["model"] != "scripted-model" || req["stream"] != true {
		t.Fatalf("request model/stream: %v %v", req["model"], req["stream"])
	}
	// Events in order: started, prompt ready, after data, tokens, the
	// message, ended.
	types := h.rec.types()
	order := []string{events.GenerationStarted, events.ChatCompletionPromptReady, events.GenerateAfterData, events.StreamTokenReceived, events.MessageReceived, events.GenerationEnded}
	pos := -1
	for _, want := range order {
		i := slices.Index(types[pos+1:], want)
		if i < 0 {
			t.Fatalf("event %s missing or out of order in %v", want, types)
		}
		pos += i + 1
	}
	ended := h.rec.waitFor(t, events.GenerationEnded).Payload.(*events.GenerationEndedPayload)
	if ended.Index == nil || res.Index == nil || *ended.Index != *res.Index || ended.GenerationID != res.GenerationID || ended.Error != nil {
		t.Fatalf("GENERATION_ENDED %+v", ended)
	}
	rec, err := h.gen.Record(context.Background(), res.GenerationID)
	if err != nil || rec.Status != StatusEnded || rec.MessageID == nil || *rec.MessageID != last.ID {
		t.Fatalf("record %+v, %v", rec, err)
	}
}

func TestReasoningIsKeptOnTheSwipe(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Think first.")
	h.server.Push(reply(pt.Reasoning("reasoning_content", "Let me "), pt.Reasoning("reasoning_content", "think."), pt.Text("Done.")))
	mustRun(t, h, Options{Type: "normal"})
	h.rec.waitFor(t, events.GenerationEnded)
	last := h.messages()[len(h.messages())-1]
	if extraOf(t, last, "reasoning") != "Let me think." {
		t.Fatalf("extra.reasoning = %v", extraOf(t, last, "reasoning"))
	}
	if d, ok := extraOf(t, last, "reasoning_duration").(float64); !ok || d < 0 {
		t.Fatalf("reasoning_duration = %v", extraOf(t, last, "reasoning_duration"))
	}
	if _, reasoning := h.streamed(); reasoning != "Let me think." {
		t.Fatalf("streamed reasoning %q", reasoning)
	}
}

func TestSwipeRegenerateContinue(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hello?")
	h.server.Push(reply(pt.Text("First reply.")), reply(pt.Text("Second take.")), reply(pt.Text("Third take.")), reply(pt.Text(" And more.")))
	first := mustRun(t, h, Options{Type: "normal"})

	sw := mustRun(t, h, Options{Type: "swipe"})
	msgs := h.messages()
	last := msgs[len(msgs)-1]
	if *sw.Index != *first.Index || *sw.SwipeID != 1 || len(last.Swipes) != 2 || last.Swipes[0] != "First reply." || last.Mes() != "Second take." || len(last.SwipeInfo) != 2 {
		t.Fatalf("after swipe: %+v, swipes %q", sw, last.Swipes)
	}
	// The swipe's prompt did not contain the reply it is an alternative to.
	if body := jsonOf(h.server.Requests()[1].Body["messages"]); strings.Contains(body, "First reply.") {
		t.Fatalf("swipe prompt contains the swiped reply: %s", body)
	}

	count := len(msgs)
	rg := mustRun(t, h, Options{Type: "regenerate"})
	msgs = h.messages()
	last = msgs[len(msgs)-1]
	if len(msgs) != count || last.Mes() != "Third take." || len(last.Swipes) != 1 || *rg.Index != count-1 {
		t.Fatalf("after regenerate: %d messages, last %q swipes %q", len(msgs), last.Mes(), last.Swipes)
	}

	co := mustRun(t, h, Options{Type: "continue"})
	last = h.messages()[len(msgs)-1]
	if last.Mes() != "Third take. And more." || co.Text != " And more." {
		t.Fatalf("after continue: %q (result %q)", last.Mes(), co.Text)
	}
	// Undo takes the continue back: the reply went through the journal.
	if _, err := h.chats.Undo(context.Background(), h.chatID, chatsWrite()); err != nil {
		t.Fatal(err)
	}
	if got := h.messages()[len(msgs)-1].Mes(); got != "Third take." {
		t.Fatalf("after undo: %q", got)
	}
}

func TestImpersonateAndQuietPersistNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	rev := h.revision()
	h.server.Push(reply(pt.Text("I look around.")), reply(pt.Text("A summary.")))
	imp := mustRun(t, h, Options{Type: "impersonate"})
	quiet := "Summarize."
	q := mustRun(t, h, Options{Type: "quiet", QuietPrompt: &quiet})
	if imp.Text != "I look around." || imp.Index != nil || q.Text != "A summary." || q.Index != nil {
		t.Fatalf("impersonate %+v quiet %+v", imp, q)
	}
	if h.revision() != rev {
		t.Fatalf("revision moved %d → %d", rev, h.revision())
	}
	body := jsonOf(h.server.Requests()[1].Body["messages"])
	if !strings.Contains(body, "Summarize.") {
		t.Fatalf("quiet prompt not sent: %s", body)
	}
}

func TestStopKeepsThePartialText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Tell me a story.")
	h.server.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("Once upon"), pt.Text(" a time")}, Stall: true})
	started, err := h.gen.Start(context.Background(), Options{ChatID: h.chatID, Type: "normal"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if text, _ := h.streamed(); text == "Once upon a time" {
			break
		}
		h.rec.waitFor(t, events.StreamTokenReceived)
		time.Sleep(5 * time.Millisecond)
	}
	if st := h.gen.Current(); !st.Generating || *st.GenerationID != started.GenerationID {
		t.Fatalf("status while running: %+v", st)
	}
	if !h.gen.Stop(started.GenerationID) {
		t.Fatal("Stop found nothing running")
	}
	stopped := h.rec.waitFor(t, events.GenerationStopped).Payload.(*events.GenerationStoppedPayload)
	msgs := h.messages()
	if last := msgs[len(msgs)-1]; last.Mes() != "Once upon a time" || stopped.Index == nil || *stopped.Index != len(msgs)-1 {
		t.Fatalf("stopped reply %q, event %+v", last.Mes(), stopped)
	}
	rec, _ := h.gen.Record(context.Background(), started.GenerationID)
	if rec.Status != StatusStopped {
		t.Fatalf("record %+v", rec)
	}
	if h.gen.Current().Generating {
		t.Fatal("still generating after stop")
	}
}

func TestProviderFailuresWriteNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		script pt.Script
		code   string
	}{
		{"401", pt.Script{Status: 401, Body: pt.ErrorBody("bad key")}, "model.auth_failed"},
		{"429", pt.Script{Status: 429, Headers: map[string]string{"Retry-After": "7"}, Body: pt.ErrorBody("slow down")}, "model.rate_limited"},
		{"500", pt.Script{Status: 500, Body: pt.ErrorBody("boom")}, "model.unavailable"},
		{"malformed", pt.Script{Chunks: []pt.Chunk{pt.Text("Half"), {Data: "{not json"}}}, "model.bad_response"},
		{"stalled", pt.Script{Chunks: []pt.Chunk{pt.Text("Half")}, Stall: true}, "model.timeout"},
		{"empty", pt.Script{Chunks: []pt.Chunk{pt.Finish("stop")}, Done: true}, CodeEmptyReply},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.say("Hello?")
			rev, count := h.revision(), len(h.messages())
			h.server.Push(c.script)
			_, err := h.gen.Run(context.Background(), Options{ChatID: h.chatID, Type: "normal"})
			if apperr.CodeOf(err) != c.code {
				t.Fatalf("error %v, want %s", err, c.code)
			}
			if c.name == "429" && apperr.As(err).Details["retryAfterMs"] != int64(7000) {
				t.Fatalf("429 details %v", apperr.As(err).Details)
			}
			if h.revision() != rev || len(h.messages()) != count {
				t.Fatal("a failed generation changed the chat")
			}
			ended := h.rec.waitFor(t, events.GenerationEnded).Payload.(*events.GenerationEndedPayload)
			if ended.Error == nil || ended.Error.Code != c.code || ended.Index != nil || ended.SwipeID != nil {
				t.Fatalf("GENERATION_ENDED %+v", ended)
			}
			if slices.Contains(h.rec.types(), events.MessageReceived) {
				t.Fatal("MESSAGE_RECEIVED after a failure")
			}
			rec, _ := h.gen.Record(context.Background(), ended.GenerationID)
			if rec.Status != StatusFailed || rec.Error == nil || rec.Error.Code != c.code {
				t.Fatalf("record %+v", rec)
			}
		})
	}
}

func TestBadStartsFailBeforeAnyEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	empty := ""
	cases := map[string]struct {
		o    Options
		code string
	}{
		"no chat":           {Options{Type: "normal"}, apperr.CodeInvalidArgument},
		"unknown chat":      {Options{ChatID: "nope", Type: "normal"}, apperr.CodeChatNotFound},
		"bad type":          {Options{ChatID: h.chatID, Type: "dance"}, apperr.CodeInvalidArgument},
		"quiet, no prompt":  {Options{ChatID: h.chatID, Type: "quiet", QuietPrompt: &empty}, apperr.CodeInvalidArgument},
		"swipe a user line": {Options{ChatID: h.chatID, Type: "swipe"}, apperr.CodeInvalidArgument},
		"bad ext position":  {Options{ChatID: h.chatID, ExtensionPrompts: []promptExt{{Key: "k", Value: "v", Position: 5}}}, apperr.CodeInvalidArgument},
		"bad ext role":      {Options{ChatID: h.chatID, ExtensionPrompts: []promptExt{{Key: "k", Value: "v", Role: 3}}}, apperr.CodeInvalidArgument},
		"dup ext key":       {Options{ChatID: h.chatID, ExtensionPrompts: []promptExt{{Key: "k"}, {Key: "k"}}}, apperr.CodeInvalidArgument},
		"unknown conn":      {Options{ChatID: h.chatID, ConnectionID: &empty}, "connection.not_found"},
	}
	h.say("Hi.")
	for name, c := range cases {
		if _, err := h.gen.Start(context.Background(), c.o); apperr.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	h.preset.MaxContext, h.preset.Sampling.MaxTokens = 600, 590
	if _, err := h.gen.Start(context.Background(), Options{ChatID: h.chatID}); apperr.CodeOf(err) != "prompt.too_large" {
		t.Errorf("too large: %v", err)
	}
	h.flush()
	for _, typ := range h.rec.types() {
		if strings.HasPrefix(typ, "generat") || typ == events.ChatCompletionPromptReady {
			t.Fatalf("a refused start emitted %s", typ)
		}
	}
	if len(h.server.Requests()) != 0 {
		t.Fatal("a refused start reached the provider")
	}
}

func TestNoConnectionSelected(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if _, err := h.conns.Select(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	h.say("Hi.")
	if _, err := h.gen.Start(context.Background(), Options{ChatID: h.chatID}); apperr.CodeOf(err) != CodeNoConnection {
		t.Fatalf("%v", err)
	}
	// A dry run still works: the prompt inspector needs no connection.
	snap, err := h.gen.DryRun(context.Background(), Options{ChatID: h.chatID})
	if err != nil || snap.ChatCompletionPayload.Model != "" || len(snap.ChatCompletionPayload.Messages) == 0 {
		t.Fatalf("dry run %+v, %v", snap, err)
	}
}

func TestOneGenerationPerChat(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	h.server.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("slow")}, Stall: true})
	first, err := h.gen.Start(context.Background(), Options{ChatID: h.chatID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.gen.Start(context.Background(), Options{ChatID: h.chatID})
	if ae := apperr.As(err); ae == nil || ae.Code != CodeBusy || ae.Details["generationId"] != first.GenerationID {
		t.Fatalf("second start: %v", err)
	}
	h.gen.Stop("")
	h.rec.waitFor(t, events.GenerationStopped)
}

func TestCallerGoneTheReplyStillLands(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	h.server.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("Still "), {Data: pt.Text("here.").Data, Delay: 200 * time.Millisecond}, pt.Finish("stop")}, Done: true})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		h.rec.waitFor(t, events.StreamTokenReceived)
		cancel() // the window went away
	}()
	if _, err := h.gen.Run(ctx, Options{ChatID: h.chatID}); apperr.CodeOf(err) != CodeAbandoned {
		t.Fatalf("run after the caller left: %v", err)
	}
	h.rec.waitFor(t, events.GenerationEnded)
	if last := h.messages()[len(h.messages())-1]; last.Mes() != "Still here." {
		t.Fatalf("landed %q", last.Mes())
	}
}

func TestRestartFailsWhatWasRunning(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	count := len(h.messages())
	// A generation row left running, as a killed process leaves it.
	r := &run{id: "killed-gen", chatID: h.chatID, typ: "normal", started: time.Now()}
	if err := h.gen.insertRecord(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), h.db, h.bus, h.gen.src, time.Now); err != nil {
		t.Fatal(err)
	}
	rec, err := h.gen.Record(context.Background(), "killed-gen")
	if err != nil || rec.Status != StatusFailed || rec.Error == nil || rec.Error.Code != CodeInterrupted {
		t.Fatalf("record after restart: %+v, %v", rec, err)
	}
	if len(h.messages()) != count {
		t.Fatal("restart changed the chat")
	}
	if _, err := h.gen.Record(context.Background(), "never"); apperr.CodeOf(err) != CodeNotFound {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestMediaReachesThePrompt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	raw := []byte(`{"is_user":true,"mes":"Look at this.","extra":{"media":[{"url":"data:image/png;base64,iVBORw0KGgo=","type":"image","title":"cat.png"}],"files":[{"url":"/files/notes.txt","name":"notes.txt"}]}}`)
	if _, err := h.chats.AddMessages(context.Background(), h.chatID, []json.RawMessage{raw}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The scripted model's name says nothing of vision: it gets notices
	// naming the media instead of the image.
	h.server.Push(reply(pt.Text("I cannot see it.")))
	mustRun(t, h, Options{Type: "normal"})
	body := jsonOf(h.server.Requests()[0].Body["messages"])
	for _, want := range []string{`image \"cat.png\" attached; this model cannot view images`, `file \"notes.txt\" attached`} {
		if !strings.Contains(body, want) {
			t.Fatalf("request lacks %s: %s", want, body)
		}
	}
	// A vision model gets the image itself.
	vis := "gpt-4o"
	if _, err := h.conns.Save(context.Background(), connections.Input{ID: activeID(t, h), Model: &vis}); err != nil {
		t.Fatal(err)
	}
	h.say("And now?")
	h.server.Push(reply(pt.Text("A cat.")))
	mustRun(t, h, Options{Type: "normal"})
	body = jsonOf(h.server.Requests()[1].Body["messages"])
	if !strings.Contains(body, `"image_url":{"url":"data:image/png;base64,iVBORw0KGgo="`) {
		t.Fatalf("vision request lacks the image: %s", body)
	}
}

func activeID(t *testing.T, h *harness) *string {
	t.Helper()
	c, err := h.conns.Active(context.Background())
	if err != nil || c == nil {
		t.Fatalf("active connection: %v", err)
	}
	return &c.ID
}

func TestRegenerateAfterAUserMessageWritesAReply(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Anyone there?")
	count := len(h.messages())
	h.server.Push(reply(pt.Text("Yes.")))
	res := mustRun(t, h, Options{Type: "regenerate"})
	msgs := h.messages()
	if len(msgs) != count+1 || msgs[count].Mes() != "Yes." || msgs[count-1].Mes() != "Anyone there?" || *res.Index != count {
		t.Fatalf("%d → %d messages, result %+v", count, len(msgs), res)
	}
}

func TestStoredImagesAreSentAsData(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	name, err := h.files.Put(png, "png")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"is_user": true, "mes": "What is this?",
		"extra": map[string]any{"media": []any{map[string]any{"url": "/api/media/" + name, "type": "image"}, map[string]any{"url": "/api/media/" + strings.Repeat("0", 64) + ".png", "type": "image"}}}})
	if _, err := h.chats.AddMessages(context.Background(), h.chatID, []json.RawMessage{raw}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	vis := "gpt-4o"
	if _, err := h.conns.Save(context.Background(), connections.Input{ID: activeID(t, h), Model: &vis}); err != nil {
		t.Fatal(err)
	}
	h.server.Push(reply(pt.Text("A pixel.")))
	mustRun(t, h, Options{Type: "normal"})
	body := jsonOf(h.server.Requests()[0].Body["messages"])
	if !strings.Contains(body, `data:image/png;base64,`+base64.StdEncoding.EncodeToString(png)) {
		t.Fatalf("the stored image was not sent as data: %s", body)
	}
	if !strings.Contains(body, "an attached image could not be read") {
		t.Fatalf("a missing image is not named: %s", body)
	}
	// The dry run (and the prompt inspector) shows the short URL, not megabytes of base64.
	snap, err := h.gen.DryRun(context.Background(), Options{ChatID: h.chatID})
	if err != nil || strings.Contains(jsonOf(snap.ChatCompletionPayload), "base64") {
		t.Fatalf("dry run %v / %v", err, jsonOf(snap.ChatCompletionPayload))
	}
}
