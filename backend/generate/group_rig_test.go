package generate

import (
	"context"
	"encoding/json"
	"testing"

	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	pt "hearth/backend/providers/providertest"
)

// groupRig is a harness whose chat is a group chat of Ann, Bob and Cid
// (in that order; the harness's Seraphina is no member), seeded with
// their greetings, so the chat ends with Cid's.
type groupRig struct {
	*harness
	groupID string
	ann     string
	bob     string
	cid     string
}

// newGroupRig makes the rig with the group's fields (members are added).
func newGroupRig(t *testing.T, fields map[string]any) *groupRig {
	t.Helper()
	ctx := context.Background()
	g := &groupRig{harness: newHarness(t)}
	mk := func(name, desc string, talk float64) string {
		card, err := g.chars.Create(ctx, jsonx.Object{
			"name": jsonx.Raw(name), "description": jsonx.Raw(desc), "first_mes": jsonx.Raw("I am {{char}}."),
			"extensions": jsonx.Raw(map[string]any{"talkativeness": talk}),
		}, characters.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return card.Avatar
	}
	g.ann = mk("Ann", "{{char}} is kind to {{user}}.", 0)
	g.bob = mk("Bob", "{{char}} is loud.", 0)
	g.cid = mk("Cid", "{{char}} is sly; {{notChar}} know it.", 0)
	obj := jsonx.Object{"name": jsonx.Raw("Trio"), "members": jsonx.Raw([]string{g.ann, g.bob, g.cid})}
	for k, v := range fields {
		obj[k] = jsonx.Raw(v)
	}
	grp, err := g.groups.Create(ctx, obj)
	if err != nil {
		t.Fatal(err)
	}
	g.groupID = grp.ID()
	sum, err := g.chats.Create(ctx, chats.Owner{GroupID: g.groupID}, chats.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g.chatID = sum.ChatID
	return g
}

// speak adds a member's message, as its reply would land.
func (g *groupRig) speak(avatar, name, text string) {
	g.t.Helper()
	raw, _ := json.Marshal(map[string]any{"name": name, "is_user": false, "mes": text, "original_avatar": avatar})
	if _, err := g.chats.AddMessages(context.Background(), g.chatID, []json.RawMessage{raw}, chats.WriteOptions{}); err != nil {
		g.t.Fatal(err)
	}
}

// push queues one scripted reply per text.
func (g *groupRig) push(texts ...string) {
	for _, text := range texts {
		g.server.Push(reply(pt.Text(text)))
	}
}

// groupEvents lists the group and generation events so far, as
// "type" or "type:avatar" for GROUP_MEMBER_DRAFTED.
func (g *groupRig) groupEvents() []string {
	var out []string
	for _, e := range g.rec.all() {
		switch e.Type {
		case events.GroupMemberDrafted:
			out = append(out, e.Type+":"+e.Payload.(*events.GroupMemberDraftedPayload).Avatar)
		case events.GroupWrapperStarted, events.GroupWrapperEnded, events.GenerationStarted, events.GenerationEnded,
			events.GenerationStopped, events.MessageReceived, events.MessageSwiped, events.MessageDeleted, events.MessageUpdated:
			out = append(out, e.Type)
		}
	}
	return out
}

// requestText joins the contents of request i's messages, one a line,
// as "role: content".
func (g *groupRig) requestText(i int) string {
	g.t.Helper()
	reqs := g.server.Requests()
	if i >= len(reqs) {
		g.t.Fatalf("no request %d; %d made", i, len(reqs))
	}
	return promptText(reqs[i].Body["messages"])
}

// promptText renders chat-completion messages one a line, "role: content".
func promptText(msgs any) string {
	raw, _ := json.Marshal(msgs)
	var list []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	_ = json.Unmarshal(raw, &list)
	out := ""
	for _, m := range list {
		out += m.Role + ": " + m.Content + "\n"
	}
	return out
}
