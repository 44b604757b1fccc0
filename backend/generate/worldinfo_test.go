package generate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	pt "hearth/backend/providers/providertest"
	"hearth/backend/worldinfo"
)

// bindGlade imports the world file text as the book "Glade" and binds it
// to the harness's chat.
func bindGlade(t *testing.T, h *harness, text string) {
	t.Helper()
	ctx := context.Background()
	if _, err := h.wi.Import(ctx, worldinfo.ImportInput{FileName: "Glade.json", Text: text}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.chats.SaveMetadata(ctx, h.chatID, jsonx.Object{"world_info": jsonx.Raw("Glade")}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestWorldInfoInARealGeneration: a chat-bound book's entry activated by
// the user's message reaches the request, is kept as the chat's last
// activation with WORLDINFO_SCAN_DONE, and its sticky effect is stored in
// the chat's metadata timedWorldInfo, where the next scan reads it.
func TestWorldInfoInARealGeneration(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	bindGlade(t, h, `{"entries":{"0":{"uid":0,"key":["lantern"],"comment":"Lantern",
		"content":"The lantern of the glade never goes out.","sticky":3,"position":1}}}`)
	h.say("Is the lantern lit?")
	h.server.Push(reply(pt.Text("It is.")))
	mustRun(t, h, Options{Type: "normal"})

	reqs := h.server.Requests()
	body, _ := json.Marshal(reqs[len(reqs)-1].Body["messages"])
	if !strings.Contains(string(body), "never goes out") {
		t.Fatalf("the activated entry is not in the request: %s", body)
	}
	last, err := h.wi.LastActivation(ctx, h.chatID)
	if err != nil || last == nil || len(last.Entries) != 1 || last.Entries[0].World != "Glade" || last.Entries[0].Position != "after" {
		t.Fatalf("last activation %+v, %v", last, err)
	}
	done := h.rec.waitFor(t, events.WorldInfoScanDone).Payload.(*events.WorldInfoScanDonePayload)
	if done.ChatID != h.chatID {
		t.Fatalf("scan done payload %+v", done)
	}
	meta, err := h.chats.Metadata(ctx, h.chatID)
	if err != nil {
		t.Fatal(err)
	}
	timed, err := worldinfo.ParseTimedState(meta[worldinfo.MetadataKey])
	if err != nil || len(timed.Sticky) != 1 {
		t.Fatalf("timedWorldInfo %s, %v", meta[worldinfo.MetadataKey], err)
	}

	// The reply keeps, on its swipe, which entries its prompt carried.
	msgs := h.messages()
	var refs struct {
		Hearth struct {
			WorldInfo []struct {
				World string `json:"world"`
				UID   int    `json:"uid"`
			} `json:"worldInfo"`
		} `json:"hearth"`
	}
	raw, _ := json.Marshal(msgs[len(msgs)-1].Extra)
	if err := json.Unmarshal(raw, &refs); err != nil || len(refs.Hearth.WorldInfo) != 1 || refs.Hearth.WorldInfo[0].World != "Glade" {
		t.Fatalf("the reply's extra.hearth.worldInfo: %s, %v", raw, err)
	}

	// Sticky: the next message does not name the lantern, the entry stays.
	h.say("And the river?")
	h.server.Push(reply(pt.Text("Cold.")))
	mustRun(t, h, Options{Type: "normal"})
	reqs = h.server.Requests()
	body, _ = json.Marshal(reqs[len(reqs)-1].Body["messages"])
	if !strings.Contains(string(body), "never goes out") {
		t.Fatalf("a sticky entry dropped out of the next request: %s", body)
	}
}

// TestWorldInfoScanDepthSkipsHidden: the scan reads as deep as the
// settings say, counting only messages the prompt sees: with depth 1 and
// the newest message hidden (is_system), the key in the message before it
// activates; one message further back it does not, unless the entry's own
// scan depth reaches it.
func TestWorldInfoScanDepthSkipsHidden(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	if _, err := h.wi.SaveConfig(ctx, json.RawMessage(`{"world_info_depth":1}`)); err != nil {
		t.Fatal(err)
	}
	bindGlade(t, h, `{"entries":{
		"0":{"uid":0,"key":["lantern"],"content":"The lantern never goes out."},
		"1":{"uid":1,"key":["river"],"content":"The river runs north."},
		"2":{"uid":2,"key":["bridge"],"content":"The bridge is old.","scanDepth":3}}}`)
	h.say("The bridge creaks.")
	h.say("The river is high.")
	h.say("Is the lantern lit?")
	hidden, _ := json.Marshal(map[string]any{"is_user": false, "is_system": true, "name": "Note", "mes": "(an aside)"})
	if _, err := h.chats.AddMessages(ctx, h.chatID, []json.RawMessage{hidden}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	snap, err := h.gen.DryRun(ctx, Options{ChatID: h.chatID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range snap.WorldInfoActivation.Entries {
		got = append(got, fmt.Sprint(e.UID))
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"0", "2"}) {
		t.Fatalf("activated uids %v, want 0 (depth 1 past the hidden message) and 2 (its own depth 3)", got)
	}
}

// TestLastActivationFollowsTheChat: lastActivation is null for a chat not
// generated in yet, chat.not_found for an id of no chat — a misspelt one,
// or a chat deleted after its generations, whose activation goes with it.
func TestLastActivationFollowsTheChat(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	if last, err := h.wi.LastActivation(ctx, h.chatID); err != nil || last != nil {
		t.Fatalf("before any generation: %+v, %v; want null", last, err)
	}
	if _, err := h.wi.LastActivation(ctx, "no-such-chat"); apperr.CodeOf(err) != apperr.CodeChatNotFound {
		t.Fatalf("unknown chat: %v, want chat.not_found", err)
	}
	bindGlade(t, h, `{"entries":{"0":{"uid":0,"key":["lantern"],"content":"The lantern glows."}}}`)
	h.say("Is the lantern lit?")
	h.server.Push(reply(pt.Text("It is.")))
	mustRun(t, h, Options{Type: "normal"})
	if last, err := h.wi.LastActivation(ctx, h.chatID); err != nil || last == nil {
		t.Fatalf("after a generation: %+v, %v; want an activation", last, err)
	}
	if err := h.chats.Delete(ctx, h.chatID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.wi.LastActivation(ctx, h.chatID); apperr.CodeOf(err) != apperr.CodeChatNotFound {
		t.Fatalf("deleted chat: %v, want chat.not_found", err)
	}
	var left int
	if err := h.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM lorebook_activations WHERE chat_id = ?`, h.chatID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d activation rows left for the deleted chat (%v)", left, err)
	}
}
