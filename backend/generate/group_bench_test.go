package generate

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/groups"
	"hearth/backend/internal/chatgen"
	"hearth/backend/jsonx"
	pt "hearth/backend/providers/providertest"
)

// BenchmarkGroupTurn measures issue 38's goal: Hearth's own work per
// member reply in a 5-member group on the 10k chat (≤ 5 ms, the
// provider excluded). Each iteration is one list-strategy turn, all five
// members replying; member-overhead-ms is the turn's time less its
// provider streams, divided by the replies: drafting (the group, the
// members' cards, the chat's tail), each member's prompt, records,
// events and commits. The replies are deleted again, untimed, so every
// turn runs against the same chat (see overhead10k).
func BenchmarkGroupTurn(b *testing.B) {
	h := newHarness(b)
	ctx := context.Background()
	var members []string
	for i := range 5 {
		card, err := h.chars.Create(ctx, jsonx.Object{
			"name": jsonx.Raw(fmt.Sprintf("Member %d", i)), "description": jsonx.Raw("{{char}} is one of {{group}}."),
			"first_mes": jsonx.Raw("Hello, {{user}}."),
		}, characters.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		members = append(members, card.Avatar)
	}
	g, err := h.groups.Create(ctx, jsonx.Object{"name": jsonx.Raw("Five"), "members": jsonx.Raw(members),
		"activation_strategy": jsonx.Raw(groups.List), "allow_self_responses": jsonx.Raw(true)})
	if err != nil {
		b.Fatal(err)
	}
	sum, err := h.chats.Create(ctx, chats.Owner{GroupID: g.ID()}, chats.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	h.chatID = sum.ChatID
	msgs := chatgen.Messages(chatgen.Options{Seed: 1, Messages: 10_000, UserName: "Wren", CharName: "Member 2"})
	for _, batch := range chatgen.Batches(msgs, 500) {
		raws := make([]json.RawMessage, len(batch))
		for i, m := range batch {
			raws[i], _ = json.Marshal(m)
		}
		if _, err := h.chats.AddMessages(ctx, h.chatID, raws, chats.WriteOptions{Silent: true}); err != nil {
			b.Fatal(err)
		}
	}
	if err := h.gen.tok.Warm(); err != nil {
		b.Fatal(err)
	}
	d, err := h.chats.Get(ctx, h.chatID)
	if err != nil {
		b.Fatal(err)
	}
	size := d.MessageCount
	turn := func() (time.Duration, time.Duration) {
		for range members {
			h.server.Push(reply(pt.Text("A short "), pt.Text("reply.")))
		}
		o := Options{ChatID: h.chatID, Type: "normal"}
		t0 := time.Now()
		if err := o.validate(); err != nil {
			b.Fatal(err)
		}
		plan, err := h.gen.planTurn(ctx, &o, true)
		if err != nil {
			b.Fatal(err)
		}
		t, _, err := h.gen.beginTurn(ctx, o, plan)
		if err != nil {
			b.Fatal(err)
		}
		<-t.done
		if t.err != nil || len(t.replies) != len(members) {
			b.Fatalf("turn: %v, %d replies", t.err, len(t.replies))
		}
		return time.Since(t0), t.streamTime
	}
	turn() // the first assembly counts the messages it reaches; later ones find them cached
	var overhead []float64
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if _, err := h.chats.DeleteMessages(ctx, h.chatID, []int{size, size + 1, size + 2, size + 3, size + 4}, chats.DeleteOptions{WriteOptions: chats.WriteOptions{Silent: true}}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		total, stream := turn()
		overhead = append(overhead, float64(total-stream)/1e6/float64(len(members)))
	}
	b.ReportMetric(median(overhead), "member-overhead-ms")
}
