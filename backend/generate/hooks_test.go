package generate

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	pt "hearth/backend/providers/providertest"
	"hearth/backend/worldinfo"
)

const testToken = "window-token-0123456789"

// hookChat is a PROMPT_HOOK_REQUEST's chat as a window's listeners get it.
type hookChat = []map[string]any

// window answers every PROMPT_HOOK_REQUEST as the starting window would:
// the payload through JSON (as a transport sends it), edit's result as
// the answer (nil: "unchanged"). It returns the requests it saw and the
// answers' results.
type window struct {
	stop     func()
	mu       sync.Mutex
	requests []*events.PromptHookRequestPayload
	replies  []*HookReply
	errs     []error
}

func answer(t *testing.T, h *harness, edit func(chat hookChat) any) *window {
	t.Helper()
	return answerWith(t, h, edit, HookReplyOptions{})
}

// answerWith is answer with opts (the warnings) sent along.
func answerWith(t *testing.T, h *harness, edit func(chat hookChat) any, opts HookReplyOptions) *window {
	t.Helper()
	w := &window{}
	unsub := h.bus.Subscribe(func(e events.Event) {
		if e.Type != events.PromptHookRequest {
			return
		}
		p := e.Payload.(*events.PromptHookRequestPayload)
		var chat hookChat
		if err := json.Unmarshal([]byte(jsonOf(p.Chat)), &chat); err != nil {
			t.Error(err)
			return
		}
		var raw json.RawMessage
		if out := edit(chat); out != nil {
			raw = json.RawMessage(jsonOf(out))
		}
		res, err := h.gen.PromptHookReply(p.Token, raw, opts)
		w.mu.Lock()
		w.requests, w.replies, w.errs = append(w.requests, p), append(w.replies, res), append(w.errs, err)
		w.mu.Unlock()
	})
	w.stop = unsub
	t.Cleanup(unsub)
	return w
}

// seen waits until the window has answered n requests (its answer ends
// the generation's wait before the window notes it) and returns them.
func (w *window) seen(t *testing.T, n int) ([]*events.PromptHookRequestPayload, []*HookReply, []error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		reqs, replies, errs := w.requests, w.replies, w.errs
		w.mu.Unlock()
		if len(replies) >= n {
			return reqs, replies, errs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window answered %d requests, want %d", len(replies), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func ptr[T any](v T) *T { return &v }

// record reads a generation's hooks.
func hooksOf(t *testing.T, h *harness, id string) *HooksRecord {
	t.Helper()
	rec, err := h.gen.Record(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Hooks == nil {
		t.Fatalf("record %s has no hooks", id)
	}
	return rec.Hooks
}

// requestText is the provider request's messages as JSON.
func requestText(t *testing.T, h *harness, i int) string {
	t.Helper()
	reqs := h.server.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d provider requests, want request %d", len(reqs), i)
	}
	return jsonOf(reqs[i].Body["messages"])
}

// storedUnchanged fails unless the chat's first len(before) messages are
// still before (a reply may follow them).
func storedUnchanged(t *testing.T, h *harness, before []*chats.StMessage) {
	t.Helper()
	after := h.messages()
	if len(after) < len(before) || jsonOf(after[:len(before)]) != jsonOf(before) {
		t.Fatalf("the stored chat changed:\nbefore %s\nafter  %s", jsonOf(before), jsonOf(after))
	}
}

func TestInterceptedChatShapesThePromptAndTheScanOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("I walk to the well.")
	h.say("Is anyone here?")
	ctx := context.Background()
	// A book whose key only the interceptor's note says.
	book, err := worldinfo.ParseBook([]byte(`{"entries":{"0":{"uid":0,"key":["flooded"],"content":"LORE: the well overflows at dusk.","position":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.wi.Save(ctx, "Glade", book); err != nil {
		t.Fatal(err)
	}
	if _, err := h.chats.SaveMetadata(ctx, h.chatID, jsonx.Object{"world_info": []byte(`"Glade"`)}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before, rev := h.messages(), h.revision()

	// The interceptors dropped the first user message, edited the second,
	// and put a system note before it: [greeting, note, edited].
	h.server.Push(reply(pt.Text("Only the frogs.")))
	res := mustRun(t, h, Options{Type: "normal", Hooks: &Hooks{Interceptor: &Interception{Ms: 12.5, Chat: &InterceptedChat{
		Revision: ptr(rev),
		Items: []InterceptedItem{
			{Ref: ptr(0)},
			{Mes: ptr("[Note: the glade is flooded.]"), Name: "Note", Narrator: true},
			{Ref: ptr(2), Mes: ptr("Is anyone here? Hello?"), Name: "Wren", IsUser: true},
			{Mes: ptr("A hidden aside."), IsSystem: true},
		},
	}}}})
	body := requestText(t, h, 0)
	for _, want := range []string{"Welcome, ", "[Note: the glade is flooded.]", "Is anyone here? Hello?", "LORE: the well overflows at dusk."} {
		if !strings.Contains(body, want) {
			t.Fatalf("the request lacks %q: %s", want, body)
		}
	}
	for _, gone := range []string{"I walk to the well.", "A hidden aside."} {
		if strings.Contains(body, gone) {
			t.Fatalf("the request carries %q: %s", gone, body)
		}
	}
	if !strings.Contains(body, `{"content":"[Note: the glade is flooded.]","role":"system"}`) {
		t.Fatalf("the narrator note is not a system message: %s", body)
	}
	storedUnchanged(t, h, before)
	if got := h.messages(); len(got) != len(before)+1 || got[len(got)-1].Mes() != res.Text {
		t.Fatalf("after the reply the chat has %d messages, last %q", len(got), got[len(got)-1].Mes())
	}
	hooks := hooksOf(t, h, res.GenerationID)
	if jsonOf(hooks) != `{"interceptor":{"ms":12.5,"changed":true}}` {
		t.Fatalf("record hooks %s", jsonOf(hooks))
	}
}

func TestInterceptedMessageKeepsItsMedia(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	name, err := h.files.Put(png, "png")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"is_user": true, "mes": "What is this?",
		"extra": map[string]any{"media": []any{map[string]any{"url": "/api/media/" + name, "type": "image"}}}})
	if _, err := h.chats.AddMessages(context.Background(), h.chatID, []json.RawMessage{raw}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	vis := "gpt-4o"
	if _, err := h.conns.Save(context.Background(), connections.Input{ID: activeID(t, h), Model: &vis}); err != nil {
		t.Fatal(err)
	}
	h.server.Push(reply(pt.Text("A pixel.")))
	mustRun(t, h, Options{Hooks: &Hooks{Interceptor: &Interception{Chat: &InterceptedChat{Revision: ptr(h.revision()),
		Items: []InterceptedItem{{Ref: ptr(0)}, {Ref: ptr(1), Mes: ptr("What is this picture?"), IsUser: true}}}}}})
	body := requestText(t, h, 0)
	if !strings.Contains(body, "What is this picture?") || !strings.Contains(body, base64.StdEncoding.EncodeToString(png)) {
		t.Fatalf("the edited message lost its text or its image: %s", body)
	}
}

func TestInterceptionRefusesBadItems(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	before, rev := h.messages(), h.revision()
	many := make([]InterceptedItem, len(before)+maxHookExtra+1)
	for i := range many {
		many[i] = InterceptedItem{Ref: ptr(0)}
	}
	bad := "\xff"
	cases := []struct {
		name  string
		ic    *Interception
		field string
	}{
		{"ref past the chat", &Interception{Chat: &InterceptedChat{Revision: &rev, Items: []InterceptedItem{{Ref: ptr(0)}, {Ref: ptr(len(before))}}}}, "hooks.interceptor.chat.items[1].ref"},
		{"negative ref", &Interception{Chat: &InterceptedChat{Revision: &rev, Items: []InterceptedItem{{Ref: ptr(-1)}}}}, "hooks.interceptor.chat.items[0].ref"},
		{"neither ref nor mes", &Interception{Chat: &InterceptedChat{Revision: &rev, Items: []InterceptedItem{{Name: "x"}}}}, "hooks.interceptor.chat.items[0]"},
		{"not text", &Interception{Chat: &InterceptedChat{Revision: &rev, Items: []InterceptedItem{{Mes: &bad}}}}, "hooks.interceptor.chat.items[0].mes"},
		{"too long a name", &Interception{Chat: &InterceptedChat{Revision: &rev, Items: []InterceptedItem{{Mes: ptr("x"), Name: strings.Repeat("n", maxHookName+1)}}}}, "hooks.interceptor.chat.items[0].name"},
		{"too much text", &Interception{Chat: &InterceptedChat{Revision: &rev, Items: []InterceptedItem{{Mes: ptr(strings.Repeat("a", maxHookBytes/2))}, {Mes: ptr(strings.Repeat("b", maxHookBytes/2+1))}}}}, "hooks.interceptor.chat.items[1].mes"},
		{"too many items", &Interception{Chat: &InterceptedChat{Revision: &rev, Items: many}}, "hooks.interceptor.chat.items"},
		{"no revision", &Interception{Chat: &InterceptedChat{Items: []InterceptedItem{{Ref: ptr(0)}}}}, "hooks.interceptor.chat.revision"},
		{"chat after a timeout", &Interception{TimedOut: true, Chat: &InterceptedChat{Revision: &rev}}, "hooks.interceptor.chat"},
		{"negative time", &Interception{Ms: -1}, "hooks.interceptor.ms"},
	}
	for _, c := range cases {
		_, err := h.gen.Start(context.Background(), Options{ChatID: h.chatID, Hooks: &Hooks{Interceptor: c.ic}})
		e := apperr.As(err)
		if e == nil || e.Code != apperr.CodeInvalidArgument || e.Details["field"] != c.field {
			t.Fatalf("%s: %v (details %v), want validation.invalid_argument naming %s", c.name, err, e.Details, c.field)
		}
	}
	if _, err := h.gen.Start(context.Background(), Options{ChatID: h.chatID, Hooks: &Hooks{PromptReady: "short"}}); apperr.As(err).Details["field"] != "hooks.promptReady" {
		t.Fatalf("a short token: %v", err)
	}
	if n := len(h.server.Requests()); n != 0 {
		t.Fatalf("%d provider requests after refusals", n)
	}
	h.flush()
	for _, typ := range h.rec.types() {
		if strings.HasPrefix(typ, "generat") {
			t.Fatalf("a refused start published %s", typ)
		}
	}
	storedUnchanged(t, h, before)
	if h.revision() != rev {
		t.Fatalf("revision %d → %d", rev, h.revision())
	}
}

func TestStaleInterceptionIsIgnoredWithANote(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("First.")
	stale := h.revision()
	h.say("Second, written while the interceptors ran.")
	h.server.Push(reply(pt.Text("Noted.")))
	res := mustRun(t, h, Options{Hooks: &Hooks{Interceptor: &Interception{Ms: 3, Chat: &InterceptedChat{Revision: &stale,
		Items: []InterceptedItem{{Ref: ptr(0)}, {Ref: ptr(5)}, {Mes: ptr("INTERCEPTED")}}}}}})
	body := requestText(t, h, 0)
	if strings.Contains(body, "INTERCEPTED") || !strings.Contains(body, "Second, written while the interceptors ran.") {
		t.Fatalf("a stale interception shaped the prompt: %s", body)
	}
	ic := hooksOf(t, h, res.GenerationID).Interceptor
	if ic == nil || ic.Changed || ic.Ms != 3 || !strings.Contains(ic.Ignored, "the chat changed") {
		t.Fatalf("record interceptor %s", jsonOf(ic))
	}
}

func TestPromptReadyAnswerChangesTheRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Tell me of the glade.")
	before := h.messages()
	w := answer(t, h, func(chat hookChat) any {
		last := chat[len(chat)-1]
		last["content"] = last["content"].(string) + " (Answer in verse.)"
		return append(chat, map[string]any{"role": "system", "content": "HOOKED: keep it short."})
	})
	h.server.Push(reply(pt.Text("Green and still.")))
	res := mustRun(t, h, Options{Hooks: &Hooks{PromptReady: testToken}})

	reqs, replies, errs := w.seen(t, 1)
	if len(reqs) != 1 || errs[0] != nil || !replies[0].Accepted || !replies[0].Changed {
		t.Fatalf("requests %d, reply %+v, err %v", len(reqs), replies, errs)
	}
	if reqs[0].GenerationID != res.GenerationID || reqs[0].ChatID != h.chatID || reqs[0].DryRun || strings.Contains(jsonOf(reqs[0].Chat), `"source"`) {
		t.Fatalf("request %s", jsonOf(reqs[0]))
	}
	var sent []map[string]any
	if err := json.Unmarshal([]byte(requestText(t, h, 0)), &sent); err != nil {
		t.Fatal(err)
	}
	if n := len(sent); n < 2 || sent[n-1]["content"] != "HOOKED: keep it short." || sent[n-2]["content"] != "Tell me of the glade. (Answer in verse.)" {
		t.Fatalf("request messages %s", jsonOf(sent))
	}
	storedUnchanged(t, h, before)
	pr := hooksOf(t, h, res.GenerationID).PromptReady
	if pr == nil || !pr.Changed || pr.TimedOut || pr.Error != "" || pr.Ms < 0 {
		t.Fatalf("record promptReady %s", jsonOf(pr))
	}
	// The announcement carries the hooked prompt and says it was hooked.
	ready := h.rec.waitFor(t, events.ChatCompletionPromptReady).Payload.(*events.PromptReadyPayload)
	if !ready.Hooked || !strings.Contains(jsonOf(ready.Chat), "HOOKED: keep it short.") {
		t.Fatalf("CHAT_COMPLETION_PROMPT_READY %s", jsonOf(ready))
	}
	// The sources of untouched messages are kept; the new ones are the hook's.
	snap := jsonOf(ready.Chat)
	if !strings.Contains(snap, `"source":"main"`) || !strings.Contains(snap, `"source":"promptHook"`) {
		t.Fatalf("sources %s", snap)
	}
}

func TestPromptReadyAnswerUnchanged(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	w := answer(t, h, func(chat hookChat) any { return chat }) // the same messages, sent back
	h.server.Push(reply(pt.Text("Hello.")))
	res := mustRun(t, h, Options{Hooks: &Hooks{PromptReady: testToken}})
	if _, replies, _ := w.seen(t, 1); len(replies) != 1 || !replies[0].Accepted || replies[0].Changed {
		t.Fatalf("replies %+v", replies)
	}
	if pr := hooksOf(t, h, res.GenerationID).PromptReady; pr == nil || pr.Changed {
		t.Fatalf("record promptReady %s", jsonOf(pr))
	}
}

func TestPromptReadyTimeoutGoesOnUnmodified(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.gen.hookTimeout = 50 * time.Millisecond
	h.say("Anyone?")
	before := h.messages()
	h.server.Push(reply(pt.Text("Yes.")))
	res := mustRun(t, h, Options{Hooks: &Hooks{PromptReady: testToken}})
	if !strings.Contains(requestText(t, h, 0), "Anyone?") {
		t.Fatal("the prompt did not go")
	}
	pr := hooksOf(t, h, res.GenerationID).PromptReady
	if pr == nil || !pr.TimedOut || pr.Changed || pr.Ms < 50 {
		t.Fatalf("record promptReady %s", jsonOf(pr))
	}
	// The window's late answer is not taken.
	if r, err := h.gen.PromptHookReply(testToken, json.RawMessage(`[{"role":"user","content":"late"}]`), HookReplyOptions{}); err != nil || r.Accepted {
		t.Fatalf("late answer: %+v %v", r, err)
	}
	storedUnchanged(t, h, before)
}

func TestPromptReadyRefusesABadAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	cases := []struct {
		answer any
		field  string
	}{
		{map[string]any{"role": "user"}, "chat"},
		{[]any{map[string]any{"role": "tool", "content": "x"}}, "chat[0].role"},
		{[]any{map[string]any{"role": "user", "content": 7}}, "chat[0].content"},
		{[]any{map[string]any{"role": "user", "content": "x", "name": strings.Repeat("n", maxHookName+1)}}, "chat[0].name"},
		{[]any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": "/api/media/" + strings.Repeat("a", 64) + ".png"}}}}}, "chat[0].content[0]"},
		{[]any{"just text"}, "chat[0]"},
	}
	for i, c := range cases {
		w := answer(t, h, func(hookChat) any { return c.answer })
		h.server.Push(reply(pt.Text("Fine.")))
		token := testToken + string(rune('a'+i))
		res := mustRun(t, h, Options{Hooks: &Hooks{PromptReady: token}})
		w.stop()
		_, _, errs := w.seen(t, 1)
		e := apperr.As(errs[len(errs)-1])
		if e == nil || e.Code != apperr.CodeInvalidArgument || e.Details["field"] != c.field {
			t.Fatalf("answer %s: %v, want a refusal naming %s", jsonOf(c.answer), errs, c.field)
		}
		if !strings.Contains(requestText(t, h, i), `"Hi."`) {
			t.Fatalf("answer %s: the prompt did not go as assembled", jsonOf(c.answer))
		}
		if pr := hooksOf(t, h, res.GenerationID).PromptReady; pr == nil || pr.Changed || pr.Error == "" || pr.TimedOut {
			t.Fatalf("record promptReady %s", jsonOf(pr))
		}
		// Delete the reply so the next case's prompt is alike.
		if _, err := h.chats.DeleteMessages(context.Background(), h.chatID, []int{len(h.messages()) - 1}, chats.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPromptReadyKeepsTheWindowsWarnings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	warn := "Slow Frame (slow-frame): its prompt hook did not answer within 4.5 s; its change was skipped"
	w := answerWith(t, h, func(chat hookChat) any {
		return append(chat, map[string]any{"role": "system", "content": "From the frame that answered."})
	}, HookReplyOptions{Warnings: []string{warn}})
	h.server.Push(reply(pt.Text("Hello.")))
	res := mustRun(t, h, Options{Hooks: &Hooks{PromptReady: testToken}})
	if _, replies, errs := w.seen(t, 1); errs[0] != nil || !replies[0].Changed {
		t.Fatalf("replies %+v %v", replies, errs)
	}
	pr := hooksOf(t, h, res.GenerationID).PromptReady
	if pr == nil || !pr.Changed || len(pr.Warnings) != 1 || pr.Warnings[0] != warn {
		t.Fatalf("record promptReady %s", jsonOf(pr))
	}
	if !strings.Contains(requestText(t, h, 0), "From the frame that answered.") {
		t.Fatal("the change that came with a warning did not go")
	}
}

func TestPromptReadyRefusesBadWarnings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	many := make([]string, maxHookWarnings+1)
	for i := range many {
		many[i] = "skipped"
	}
	cases := []struct {
		warnings []string
		field    string
	}{
		{many, "warnings"},
		{[]string{"fine", ""}, "warnings[1]"},
		{[]string{strings.Repeat("w", maxHookWarning+1)}, "warnings[0]"},
		{[]string{"bad \xff byte"}, "warnings[0]"},
	}
	for i, c := range cases {
		w := answerWith(t, h, func(chat hookChat) any {
			return append(chat, map[string]any{"role": "system", "content": "NOT SENT"})
		}, HookReplyOptions{Warnings: c.warnings})
		h.server.Push(reply(pt.Text("Fine.")))
		res := mustRun(t, h, Options{Hooks: &Hooks{PromptReady: testToken + string(rune('a'+i))}})
		w.stop()
		_, _, errs := w.seen(t, 1)
		e := apperr.As(errs[len(errs)-1])
		if e == nil || e.Code != apperr.CodeInvalidArgument || e.Details["field"] != c.field {
			t.Fatalf("warnings %q: %v, want a refusal naming %s", c.warnings, errs, c.field)
		}
		if strings.Contains(requestText(t, h, i), "NOT SENT") {
			t.Fatalf("warnings %q: a refused answer changed the prompt", c.warnings)
		}
		if pr := hooksOf(t, h, res.GenerationID).PromptReady; pr == nil || pr.Changed || pr.Error == "" || len(pr.Warnings) != 0 {
			t.Fatalf("record promptReady %s", jsonOf(pr))
		}
		if _, err := h.chats.DeleteMessages(context.Background(), h.chatID, []int{len(h.messages()) - 1}, chats.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNoWindowSkipsTheHooks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	h.server.Push(reply(pt.Text("Hello.")), reply(pt.Text("Hello again.")))
	res := mustRun(t, h, Options{})
	if got := jsonOf(hooksOf(t, h, res.GenerationID)); got != `{"skipped":"no window"}` {
		t.Fatalf("record hooks %s", got)
	}
	// A window with neither interceptors nor listeners says nothing more.
	res = mustRun(t, h, Options{Type: "swipe", Hooks: &Hooks{}})
	if got := jsonOf(hooksOf(t, h, res.GenerationID)); got != `{}` {
		t.Fatalf("record hooks %s", got)
	}
	for _, typ := range h.rec.types() {
		if typ == events.PromptHookRequest {
			t.Fatal("a prompt hook request went out without a token")
		}
	}
	ready := h.rec.waitFor(t, events.ChatCompletionPromptReady).Payload.(*events.PromptReadyPayload)
	if ready.Hooked {
		t.Fatal("an unhooked prompt was announced as hooked")
	}
}

func TestDryRunShowsTheHookedPrompt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.say("Hi.")
	before, rev := h.messages(), h.revision()
	w := answer(t, h, func(chat hookChat) any {
		return append(chat, map[string]any{"role": "user", "content": "DRY HOOK"})
	})
	snap, err := h.gen.DryRun(context.Background(), Options{ChatID: h.chatID, Hooks: &Hooks{PromptReady: testToken,
		Interceptor: &Interception{Ms: 1, Chat: &InterceptedChat{Revision: &rev, Items: []InterceptedItem{{Ref: ptr(0)}, {Mes: ptr("Hi, intercepted."), IsUser: true}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	body := jsonOf(snap.ChatCompletionPayload.Messages)
	if !strings.Contains(body, "DRY HOOK") || !strings.Contains(body, "Hi, intercepted.") || strings.Contains(body, `"Hi."`) {
		t.Fatalf("snapshot %s", body)
	}
	if snap.Hooks.PromptReady == nil || !snap.Hooks.PromptReady.Changed || snap.Hooks.Interceptor == nil || !snap.Hooks.Interceptor.Changed {
		t.Fatalf("snapshot hooks %s", jsonOf(snap.Hooks))
	}
	if last := snap.TokenCounts.Parts[len(snap.TokenCounts.Parts)-1]; last.Source != "promptHook" || last.Tokens <= 0 {
		t.Fatalf("token parts %s", jsonOf(snap.TokenCounts.Parts))
	}
	reqs, _, _ := w.seen(t, 1)
	if len(reqs) != 1 || !reqs[0].DryRun || reqs[0].GenerationID != "" {
		t.Fatalf("request %s", jsonOf(reqs))
	}
	storedUnchanged(t, h, before)
	if len(h.messages()) != len(before) || h.revision() != rev || len(h.server.Requests()) != 0 {
		t.Fatal("a dry run wrote or sent something")
	}
}

func TestStopWhileWaitingForTheWindow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.gen.hookTimeout = time.Minute
	h.say("Hi.")
	done := make(chan error, 1)
	go func() {
		_, err := h.gen.Start(context.Background(), Options{ChatID: h.chatID, Hooks: &Hooks{PromptReady: testToken}})
		done <- err
	}()
	req := h.rec.waitFor(t, events.PromptHookRequest).Payload.(*events.PromptHookRequestPayload)
	if !h.gen.Stop(req.GenerationID) {
		t.Fatal("nothing to stop")
	}
	select {
	case err := <-done:
		if apperr.CodeOf(err) != CodeInterrupted {
			t.Fatalf("start after a stop: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the start still waits for the window after a stop")
	}
	if r, _ := h.gen.PromptHookReply(testToken, nil, HookReplyOptions{}); r.Accepted {
		t.Fatal("an answer was taken after the stop")
	}
	if st := h.gen.Current(); st.Generating {
		t.Fatalf("still generating: %+v", st)
	}
}
