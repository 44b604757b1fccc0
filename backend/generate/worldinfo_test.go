package generate

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"hearth/backend/chats"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	pt "hearth/backend/providers/providertest"
	"hearth/backend/worldinfo"
)

// TestWorldInfoInARealGeneration: a chat-bound book's entry activated by
// the user's message reaches the request, is kept as the chat's last
// activation with WORLDINFO_SCAN_DONE, and its sticky effect is stored in
// the chat's metadata timedWorldInfo, where the next scan reads it.
func TestWorldInfoInARealGeneration(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	_, err := h.wi.Import(ctx, worldinfo.ImportInput{FileName: "Glade.json", Text: `{"entries":{"0":{"uid":0,"key":["lantern"],"comment":"Lantern",
		"content":"The lantern of the glade never goes out.","sticky":3,"position":1}}}`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.chats.SaveMetadata(ctx, h.chatID, jsonx.Object{"world_info": jsonx.Raw("Glade")}, chats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
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
	done := h.rec.waitFor(t, events.WorldInfoScanDone)
	if done.Payload["chatId"] != h.chatID {
		t.Fatalf("scan done payload %v", done.Payload)
	}
	meta, err := h.chats.Metadata(ctx, h.chatID)
	if err != nil {
		t.Fatal(err)
	}
	timed, err := worldinfo.ParseTimedState(meta[worldinfo.MetadataKey])
	if err != nil || len(timed.Sticky) != 1 {
		t.Fatalf("timedWorldInfo %s, %v", meta[worldinfo.MetadataKey], err)
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
