package generate

import (
	"context"
	"testing"
	"time"

	pt "hearth/backend/providers/providertest"
)

// TestReplyLandsWithItsRecord: a reply and its generation's record are
// one transaction. They were two, the reply's and then the record's, and
// the crash soak (`make soak`) killed the server between them in 3 of 200
// kills: after the restart the reply was in the chat and generate.status
// said the generation failed with generate.interrupted, so a caller that
// went by the status would have asked again. Here a reader that sees the
// reply (reading the chat first, the record after) must never find the
// record still running.
func TestReplyLandsWithItsRecord(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	for i := range 30 {
		h.server.Push(reply(pt.Text("Reply "), pt.Text("number "), pt.Text("landed.")))
		before, err := h.chats.Count(ctx, h.chatID)
		if err != nil {
			t.Fatal(err)
		}
		started, err := h.gen.Start(ctx, Options{ChatID: h.chatID, Type: "normal"})
		if err != nil {
			t.Fatal(err)
		}
		for {
			n, err := h.chats.Count(ctx, h.chatID)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := h.gen.Record(ctx, started.GenerationID)
			if err != nil {
				t.Fatal(err)
			}
			if n > before && rec.Status == StatusRunning {
				t.Fatalf("generation %d: its reply is in the chat while its record still says running", i)
			}
			if rec.Status != StatusRunning {
				// The reply may have landed after the count above.
				if n, err = h.chats.Count(ctx, h.chatID); err != nil {
					t.Fatal(err)
				}
				if rec.Status != StatusEnded || n != before+1 {
					t.Fatalf("generation %d: %s with %d messages, %d before", i, rec.Status, n, before)
				}
				break
			}
		}
		// The run lets go of the chat just after its record ends.
		deadline := time.Now().Add(10 * time.Second)
		for h.gen.Current().Generating {
			if time.Now().After(deadline) {
				t.Fatalf("generation %d still holds the chat", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
}
