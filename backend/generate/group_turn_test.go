package generate

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/connections"
	"hearth/backend/events"
	"hearth/backend/groups"
	"hearth/backend/jsonx"
	"hearth/backend/prompt"
	pt "hearth/backend/providers/providertest"
)

// speakerOf reads who a stored message is by: name and original_avatar.
func speakerOf(t *testing.T, m *chats.StMessage) (name, avatar, force string) {
	t.Helper()
	_ = json.Unmarshal(m.Fields["original_avatar"], &avatar)
	_ = json.Unmarshal(m.Fields["force_avatar"], &force)
	return m.Name, avatar, force
}

// TestGroupTurnDraftsAndReplies runs real turns: each strategy drafts its
// members, each drafted member replies once in order with its own
// prompt, and the replies land as that member's messages.
func TestGroupTurnDraftsAndReplies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		fields map[string]any
		setup  func(g *groupRig)
		force  func(g *groupRig) string
		want   func(g *groupRig) []string
	}{
		{"list skips the muted", map[string]any{"activation_strategy": groups.List, "disabled_members": []string{"bob"}},
			func(g *groupRig) { g.say("Hello, all.") }, nil,
			func(g *groupRig) []string { return []string{g.ann, g.cid} }},
		{"natural answers a mention", map[string]any{"activation_strategy": groups.Natural},
			func(g *groupRig) { g.say("Cid, what do you say?") }, nil,
			func(g *groupRig) []string { return []string{g.cid} }},
		{"manual drafts nobody after the user", map[string]any{"activation_strategy": groups.Manual},
			func(g *groupRig) { g.say("Anyone?") }, nil,
			func(g *groupRig) []string { return nil }},
		{"pooled takes who has not spoken", map[string]any{"activation_strategy": groups.Pooled, "disabled_members": []string{"bob"}},
			func(g *groupRig) { g.say("Go on."); g.speak(g.ann, "Ann", "I spoke.") }, nil,
			func(g *groupRig) []string { return []string{g.cid} }},
		{"a forced member speaks, muted or not", map[string]any{"activation_strategy": groups.List, "disabled_members": []string{"bob"}},
			func(g *groupRig) { g.say("Bob?") }, func(g *groupRig) string { return g.bob },
			func(g *groupRig) []string { return []string{g.bob} }},
		{"manual with a forced member", map[string]any{"activation_strategy": groups.Manual},
			func(g *groupRig) { g.say("Ann, you.") }, func(g *groupRig) string { return g.ann },
			func(g *groupRig) []string { return []string{g.ann} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := newGroupRig(t, nil)
			fields := map[string]any{}
			for k, v := range c.fields {
				if list, ok := v.([]string); ok && k == "disabled_members" {
					v = []string{map[string]string{"bob": g.bob}[list[0]]}
				}
				fields[k] = v
			}
			if _, err := g.groups.Update(context.Background(), g.groupID, jsonObject(fields)); err != nil {
				t.Fatal(err)
			}
			c.setup(g)
			want := c.want(g)
			before := len(g.messages())
			for i := range want {
				g.push("Reply " + string(rune('A'+i)) + ".")
			}
			o := Options{Type: "normal"}
			if c.force != nil {
				f := c.force(g)
				o.MemberAvatar = &f
			}
			res := mustRun(t, g.harness, o)

			msgs := g.messages()
			if len(msgs) != before+len(want) || len(res.Replies) != len(want) {
				t.Fatalf("%d new messages, %d replies; want %d", len(msgs)-before, len(res.Replies), len(want))
			}
			for i, avatar := range want {
				m := msgs[before+i]
				name, orig, force := speakerOf(t, m)
				card, _ := g.chars.Get(context.Background(), avatar)
				if m.IsUser || name != card.Name() || orig != avatar || force != "/thumbnail?type=avatar&file="+avatar {
					t.Fatalf("reply %d by %q (%q, %q, user %v); want %s", i, name, orig, force, m.IsUser, avatar)
				}
				if m.Mes() != res.Replies[i].Text || *res.Replies[i].Index != before+i {
					t.Fatalf("reply %d: %q at %v, stored %q", i, res.Replies[i].Text, *res.Replies[i].Index, m.Mes())
				}
				// Each member's request was its own prompt.
				body := g.requestText(i)
				if !strings.Contains(body, "[Write the next reply only as "+card.Name()+".]\n") ||
					!strings.HasPrefix(body, "system: Write "+card.Name()+"'s next reply") {
					t.Fatalf("request %d is not %s's prompt:\n%s", i, card.Name(), body)
				}
			}
			if len(want) == 0 {
				if res.Index != nil || res.GenerationID != "" || len(g.server.Requests()) != 0 {
					t.Fatalf("nobody drafted, yet %+v and %d requests", res, len(g.server.Requests()))
				}
				raw, _ := json.Marshal(res)
				if !strings.Contains(string(raw), `"replies":[]`) || !strings.Contains(string(raw), `"index":null`) {
					t.Fatalf("an empty turn's answer %s", raw)
				}
			} else if last := res.Replies[len(want)-1]; res.GenerationID != last.GenerationID || *res.Index != *last.Index {
				t.Fatalf("the answer %+v is not the last reply %+v", res, last)
			}
		})
	}
}

func jsonObject(m map[string]any) jsonx.Object {
	o := jsonx.Object{}
	for k, v := range m {
		o[k] = jsonx.Raw(v)
	}
	return o
}

// TestGroupTurnEvents: SillyTavern's wrapper events around the members'
// generations, in order, with their payloads.
func TestGroupTurnEvents(t *testing.T) {
	t.Parallel()
	g := newGroupRig(t, map[string]any{"activation_strategy": groups.List})
	g.say("Hello.")
	g.push("One.", "Two.", "Three.")
	mustRun(t, g.harness, Options{Type: "normal"})
	g.rec.waitFor(t, events.GroupWrapperEnded)
	gen := []string{events.GenerationStarted, events.MessageReceived, events.GenerationEnded}
	var want []string
	want = append(want, events.GroupWrapperStarted)
	for _, a := range []string{g.ann, g.bob, g.cid} {
		want = append(append(want, events.GroupMemberDrafted+":"+a), gen...)
	}
	want = append(want, events.GroupWrapperEnded)
	if got := g.groupEvents(); !slices.Equal(got, want) {
		t.Fatalf("events\n%v\nwant\n%v", got, want)
	}
	for _, e := range g.rec.all() {
		switch p := e.Payload.(type) {
		case *events.GroupWrapperPayload:
			if p.ChatID != g.chatID || p.SelectedGroup != g.groupID || p.Type != "normal" {
				t.Fatalf("%s payload %+v", e.Type, p)
			}
			raw, _ := json.Marshal(p)
			if !strings.Contains(string(raw), `"selected_group":"`+g.groupID+`"`) {
				t.Fatalf("%s payload %s", e.Type, raw)
			}
		case *events.GroupMemberDraftedPayload:
			if p.ChatID != g.chatID || p.GroupID != g.groupID || p.Type != "normal" {
				t.Fatalf("%s payload %+v", e.Type, p)
			}
		}
	}
}

// TestGroupTurnActsOnTheSpeaker: swipe, regenerate and continue act on
// the last message, as its speaker, with that member's prompt.
func TestGroupTurnActsOnTheSpeaker(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"swipe", "regenerate", "continue"} {
		t.Run(typ, func(t *testing.T) {
			t.Parallel()
			g := newGroupRig(t, map[string]any{"activation_strategy": groups.List})
			g.say("Hello.")
			g.speak(g.bob, "Bob", "Bob's word.")
			before := g.messages()
			g.push(" More.")
			res := mustRun(t, g.harness, Options{Type: typ})
			msgs := g.messages()
			if len(res.Replies) != 1 || len(msgs) != len(before) {
				t.Fatalf("%d replies, %d messages (was %d)", len(res.Replies), len(msgs), len(before))
			}
			last := msgs[len(msgs)-1]
			name, orig, _ := speakerOf(t, last)
			if name != "Bob" || orig != g.bob {
				t.Fatalf("the last message is by %q (%q)", name, orig)
			}
			switch typ {
			case "swipe":
				if len(last.Swipes) != 2 || last.Mes() != "More." || last.Swipes[0] != "Bob's word." {
					t.Fatalf("swipes %q", last.Swipes)
				}
			case "regenerate":
				if len(last.Swipes) != 1 || last.Mes() != "More." {
					t.Fatalf("regenerated %q", last.Swipes)
				}
			case "continue":
				if last.Mes() != "Bob's word. More." {
					t.Fatalf("continued %q", last.Mes())
				}
			}
			body := g.requestText(0)
			if !strings.Contains(body, "system: Bob is loud.\n") || strings.Contains(body, "is sly") ||
				!strings.Contains(body, "[Write the next reply only as Bob.]") {
				t.Fatalf("the request is not Bob's prompt:\n%s", body)
			}
		})
	}
}

// TestGroupRegenerateAfterUserDrafts: with no member's reply to replace,
// a regenerate is a normal turn (SillyTavern's regenerateGroup drafts
// again), each member writing a new message.
func TestGroupRegenerateAfterUserDrafts(t *testing.T) {
	t.Parallel()
	g := newGroupRig(t, map[string]any{"activation_strategy": groups.List, "allow_self_responses": true})
	g.say("Hello.")
	before := len(g.messages())
	g.push("One.", "Two.", "Three.")
	res := mustRun(t, g.harness, Options{Type: "regenerate"})
	if len(res.Replies) != 3 || len(g.messages()) != before+3 {
		t.Fatalf("%d replies, %d new messages", len(res.Replies), len(g.messages())-before)
	}
}

// TestGroupTurnBadInput: what a caller gets wrong is refused before the
// turn starts: nothing is written, no event sent, no request made.
func TestGroupTurnBadInput(t *testing.T) {
	t.Parallel()
	g := newGroupRig(t, map[string]any{"activation_strategy": groups.List})
	g.say("Hello.")
	g.speak(g.ann, "Ann", "Ann's word.")
	g.rec.waitFor(t, events.MessageReceived)
	cases := []struct {
		name string
		o    Options
		code string
	}{
		{"not a member", Options{Type: "normal", MemberAvatar: ptrTo("nobody.png")}, apperr.CodeInvalidArgument},
		{"an empty avatar", Options{Type: "normal", MemberAvatar: ptrTo("")}, apperr.CodeInvalidArgument},
		{"swipe as another member", Options{Type: "swipe", MemberAvatar: &g.cid}, apperr.CodeInvalidArgument},
		{"continue as another member", Options{Type: "continue", MemberAvatar: &g.bob}, apperr.CodeInvalidArgument},
	}
	for _, c := range cases {
		rev := g.revision()
		seen := len(g.rec.all())
		c.o.ChatID = g.chatID
		_, err := g.gen.Run(context.Background(), c.o)
		if apperr.CodeOf(err) != c.code {
			t.Fatalf("%s: error %v, want %s", c.name, err, c.code)
		}
		g.flush()
		if g.revision() != rev || len(g.rec.all()) != seen || len(g.server.Requests()) != 0 {
			t.Fatalf("%s changed something: revision %d→%d, events %v", c.name, rev, g.revision(), g.rec.types()[seen:])
		}
	}
	// No connection selected: refused before the turn starts.
	if _, err := g.conns.Select(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	rev, seen := g.revision(), len(g.rec.all())
	if _, err := g.gen.Run(context.Background(), Options{ChatID: g.chatID, Type: "normal"}); apperr.CodeOf(err) != CodeNoConnection {
		t.Fatalf("without a connection: %v", err)
	}
	g.flush()
	for _, typ := range g.rec.types()[seen:] {
		if typ != events.ConnectionsChanged { // the deselect's, however late it arrives
			t.Fatalf("without a connection, events %v", g.rec.types()[seen:])
		}
	}
	if g.revision() != rev {
		t.Fatal("without a connection, the chat changed")
	}
	// memberAvatar on a character's chat.
	sum, err := g.chats.Create(context.Background(), chats.Owner{Avatar: g.ann}, chats.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.gen.Run(context.Background(), Options{ChatID: sum.ChatID, MemberAvatar: &g.ann}); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
		t.Fatalf("memberAvatar on a 1:1 chat: %v", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestGroupStopEndsTheTurn: generate.stop during the first member's reply
// keeps what it streamed and drafts nobody after it.
func TestGroupStopEndsTheTurn(t *testing.T) {
	t.Parallel()
	for _, byID := range []bool{false, true} {
		g := newGroupRig(t, map[string]any{"activation_strategy": groups.List})
		g.say("Hello.")
		before := len(g.messages())
		g.server.Push(pt.Script{Chunks: []pt.Chunk{pt.Text("Once upon")}, Stall: true})
		g.push("Never sent.")
		started, err := g.gen.Start(context.Background(), Options{ChatID: g.chatID, Type: "normal"})
		if err != nil {
			t.Fatal(err)
		}
		for {
			if text, _ := g.streamed(); text == "Once upon" {
				break
			}
			g.rec.waitFor(t, events.StreamTokenReceived)
			time.Sleep(5 * time.Millisecond)
		}
		// A second generation in the chat waits for the turn.
		if _, err := g.gen.Start(context.Background(), Options{ChatID: g.chatID, Type: "normal"}); apperr.CodeOf(err) != CodeBusy {
			t.Fatalf("a second start during the turn: %v", err)
		}
		id := ""
		if byID {
			id = started.GenerationID
		}
		if !g.gen.Stop(id) {
			t.Fatal("Stop found nothing running")
		}
		g.rec.waitFor(t, events.GroupWrapperEnded)
		msgs := g.messages()
		if len(msgs) != before+1 || msgs[before].Mes() != "Once upon" || len(g.server.Requests()) != 1 {
			t.Fatalf("after stop: %d new messages, %d requests", len(msgs)-before, len(g.server.Requests()))
		}
		drafted := 0
		for _, e := range g.groupEvents() {
			if strings.HasPrefix(e, events.GroupMemberDrafted) {
				drafted++
			}
		}
		if drafted != 1 {
			t.Fatalf("%d members drafted: %v", drafted, g.groupEvents())
		}
	}
}

// TestGroupMemberOverrides: a member's connection and preset override
// are used for its reply; an override naming a preset that is gone fails
// that member's generation with preset.not_found, recorded, and ends the
// turn, keeping the replies before it.
func TestGroupMemberOverrides(t *testing.T) {
	t.Parallel()
	g := newGroupRig(t, map[string]any{"activation_strategy": groups.List})
	ctx := context.Background()
	other := pt.NewOpenAI()
	t.Cleanup(other.Close)
	name, kind, model, key := "Other", "openai-compatible", "other-model", "sk-other"
	c, err := g.conns.Save(ctx, connections.Input{Name: &name, Provider: &kind, BaseURL: &other.URL, Model: &model, APIKey: &key})
	if err != nil {
		t.Fatal(err)
	}
	short := prompt.DefaultPreset()
	short.ID, short.GroupNudge = "short", "[Only {{char}} now.]"
	g.presets = map[string]prompt.Preset{"short": short}
	overrides := map[string]any{g.bob: map[string]any{"connectionId": c.ID, "presetId": "short"}, g.cid: map[string]any{"presetId": "gone"}}
	if _, err := g.groups.Update(ctx, g.groupID, jsonObject(map[string]any{"hearth": map[string]any{"memberOverrides": overrides}})); err != nil {
		t.Fatal(err)
	}
	g.say("Hello.")
	g.push("Ann here.")
	other.Push(reply(pt.Text("Bob here.")))
	_, err = g.gen.Run(ctx, Options{ChatID: g.chatID, Type: "normal"})
	e := apperr.As(err)
	if e == nil || e.Code != "preset.not_found" || e.Details["memberAvatar"] != g.cid {
		t.Fatalf("error %v", err)
	}
	replies, _ := e.Details["replies"].([]*Result)
	if len(replies) != 2 || replies[1].Text != "Bob here." {
		t.Fatalf("replies kept: %+v", replies)
	}
	if len(g.server.Requests()) != 1 || len(other.Requests()) != 1 {
		t.Fatalf("requests: %d to the active connection, %d to Bob's", len(g.server.Requests()), len(other.Requests()))
	}
	if body := promptText(other.Requests()[0].Body["messages"]); !strings.Contains(body, "[Only Bob now.]") || other.Requests()[0].Body["model"] != "other-model" {
		t.Fatalf("Bob's request did not use his preset and connection:\n%s", body)
	}
	rec, err := g.gen.Record(ctx, e.Details["generationId"].(string))
	if err != nil || rec.Status != StatusFailed || rec.Error == nil || rec.Error.Code != "preset.not_found" {
		t.Fatalf("Cid's record %+v, %v", rec, err)
	}
	msgs := g.messages()
	if _, orig, _ := speakerOf(t, msgs[len(msgs)-1]); orig != g.bob {
		t.Fatalf("the last message is by %q", orig)
	}
	g.rec.waitFor(t, events.GroupWrapperEnded)
}

// TestGroupMemberPrompt holds a member's prompt in swap mode (dryRun with
// memberAvatar) to its expectation: the member's card only, {{char}} the
// member, the group macros, the members' names in the history and the
// nudge last.
func TestGroupMemberPrompt(t *testing.T) {
	t.Parallel()
	g := newGroupRig(t, nil)
	ctx := context.Background()
	if _, err := g.groups.Update(ctx, g.groupID, jsonObject(map[string]any{"disabled_members": []string{g.bob}})); err != nil {
		t.Fatal(err)
	}
	g.preset.Prompts[0].Content = "Write {{char}}'s next reply. Group: {{group}}. Unmuted: {{groupNotMuted}}. Others: {{notChar}}."
	g.say("Hello, everyone.")
	snap, err := g.gen.DryRun(ctx, Options{ChatID: g.chatID, MemberAvatar: &g.cid})
	if err != nil {
		t.Fatal(err)
	}
	want := `system: Write Cid's next reply. Group: Ann, Bob, Cid. Unmuted: Ann, Cid. Others: Ann, Bob, Wren.
system: Wren is a traveler.
system: Cid is sly; Ann, Bob, Wren know it.
system: [Start a new group chat. Group members: Ann, Bob, Cid]
assistant: Ann: I am Ann.
assistant: Bob: I am Bob.
assistant: Cid: I am Cid.
user: Hello, everyone.
system: [Write the next reply only as Cid.]
`
	if got := promptText(snap.ChatCompletionPayload.Messages); got != want {
		t.Fatalf("prompt\n%s\nwant\n%s", got, want)
	}
	// Without memberAvatar a dry run shows the first unmuted member's.
	snap, err = g.gen.DryRun(ctx, Options{ChatID: g.chatID})
	if err != nil {
		t.Fatal(err)
	}
	if got := promptText(snap.ChatCompletionPayload.Messages); !strings.HasPrefix(got, "system: Write Ann's next reply.") {
		t.Fatalf("default dry run:\n%s", got)
	}
	// Impersonate gets no nudge; a dry run sends no group event.
	snap, err = g.gen.DryRun(ctx, Options{ChatID: g.chatID, Type: "impersonate", MemberAvatar: &g.cid})
	if err != nil {
		t.Fatal(err)
	}
	if got := promptText(snap.ChatCompletionPayload.Messages); strings.Contains(got, "[Write the next reply only as") {
		t.Fatalf("impersonate has the nudge:\n%s", got)
	}
	for _, e := range g.rec.all() {
		if strings.HasPrefix(e.Type, "group_wrapper") || e.Type == events.GroupMemberDrafted {
			t.Fatalf("a dry run sent %s", e.Type)
		}
	}
}

// TestGroupJoinPrompt: in the join modes the prompt carries every
// included member's card fields, each wrapped in the join prefix and
// suffix with <FIELDNAME> and {{char}} for that member; muted members
// only in mode 2.
func TestGroupJoinPrompt(t *testing.T) {
	t.Parallel()
	for _, mode := range []int{groups.Join, groups.JoinWithMuted} {
		g := newGroupRig(t, nil)
		ctx := context.Background()
		if _, err := g.groups.Update(ctx, g.groupID, jsonObject(map[string]any{
			"disabled_members": []string{g.bob}, "generation_mode": mode,
			"generation_mode_join_prefix": "<{{char}}'s <fieldname>>", "generation_mode_join_suffix": "</{{char}}>",
		})); err != nil {
			t.Fatal(err)
		}
		g.say("Hello.")
		snap, err := g.gen.DryRun(ctx, Options{ChatID: g.chatID, MemberAvatar: &g.cid})
		if err != nil {
			t.Fatal(err)
		}
		got := promptText(snap.ChatCompletionPayload.Messages)
		want := "system: <Ann's Description>Ann is kind to Wren.</Ann>\n"
		if mode == groups.JoinWithMuted {
			want += "<Bob's Description>Bob is loud.</Bob>\n"
		}
		want += "<Cid's Description>Cid is sly; Ann, Bob, Wren know it.</Cid>\n"
		if !strings.Contains(got, want) || !strings.Contains(got, "system: Write Cid's next reply") {
			t.Fatalf("mode %d prompt\n%s\nwant it to hold\n%s", mode, got, want)
		}
	}
}

// TestGroupImpersonateWritesNothing: impersonate and quiet run one
// generation with a member as {{char}} and write nothing.
func TestGroupImpersonateWritesNothing(t *testing.T) {
	t.Parallel()
	g := newGroupRig(t, map[string]any{"activation_strategy": groups.List})
	g.say("Hello.")
	rev := g.revision()
	g.push("I say hi.", "Quietly.")
	res := mustRun(t, g.harness, Options{Type: "impersonate", MemberAvatar: &g.ann})
	if res.Index != nil || res.Text != "I say hi." || len(res.Replies) != 1 {
		t.Fatalf("impersonate %+v", res)
	}
	q := "Sum up."
	res = mustRun(t, g.harness, Options{Type: "quiet", QuietPrompt: &q})
	if res.Index != nil || res.Text != "Quietly." {
		t.Fatalf("quiet %+v", res)
	}
	if g.revision() != rev {
		t.Fatal("impersonate or quiet wrote to the chat")
	}
	// Quiet speaks as the member who spoke last, before the user's
	// message: Cid, whose greeting came last (SillyTavern's activateSwipe).
	if body := g.requestText(1); !strings.HasPrefix(body, "system: Write Cid's next reply") {
		t.Fatalf("quiet prompt:\n%s", body)
	}
}

// TestGroupQuietSpeaker: a quiet generation speaks as the member who
// wrote the newest member's message, past user and system messages and
// past characters who are no members; when no member has spoken, as an
// unmuted member; memberAvatar overrides both.
func TestGroupQuietSpeaker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := "Sum up."
	quietAs := func(g *groupRig, o Options) string {
		t.Helper()
		n := len(g.server.Requests())
		g.push("Quietly.")
		o.Type, o.QuietPrompt = "quiet", &q
		mustRun(t, g.harness, o)
		body := g.requestText(n)
		name, _, _ := strings.Cut(strings.TrimPrefix(body, "system: Write "), "'s next reply")
		return name
	}

	g := newGroupRig(t, nil)
	g.speak(g.bob, "Bob", "Bob again.")
	g.speak("Zed.png", "Zed", "A stranger speaks.")
	g.say("First.")
	g.say("Second.")
	if got := quietAs(g, Options{}); got != "Bob" {
		t.Fatalf("quiet after the user's messages spoke as %q, want Bob", got)
	}
	if got := quietAs(g, Options{MemberAvatar: &g.ann}); got != "Ann" {
		t.Fatalf("quiet with memberAvatar spoke as %q", got)
	}

	g = newGroupRig(t, nil)
	if _, err := g.chats.DeleteMessages(ctx, g.chatID, []int{0, 1, 2}, chats.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.groups.Update(ctx, g.groupID, jsonObject(map[string]any{"disabled_members": []string{g.ann, g.bob}})); err != nil {
		t.Fatal(err)
	}
	g.say("Anyone?")
	for range 3 {
		if got := quietAs(g, Options{}); got != "Cid" {
			t.Fatalf("quiet where no member spoke spoke as %q, want the one unmuted member", got)
		}
	}
}
