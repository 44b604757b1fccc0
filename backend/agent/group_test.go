package agent_test

import (
	"strings"
	"testing"
)

// TestGroupRunCommitsAsAMember: a run on a group chat commits its reply as
// the member its prompt was built for — the first unmuted member by
// default, generateOptions.memberAvatar when given, the swiped reply's
// speaker for a swipe — with name, original_avatar and force_avatar as a
// group turn's replies carry them.
func TestGroupRunCommitsAsAMember(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	avatars := map[string]string{}
	for _, name := range []string{"Ann", "Bob"} {
		var card struct {
			Avatar string `json:"avatar"`
		}
		r.call(&card, "characters.create", map[string]any{"name": name, "description": "{{char}} is here."})
		avatars[name] = card.Avatar
	}
	var g struct {
		ID string `json:"id"`
	}
	r.call(&g, "groups.create", map[string]any{"members": []string{avatars["Ann"], avatars["Bob"]}, "disabled_members": []string{avatars["Ann"]}})
	var chat struct {
		ChatID string `json:"chatId"`
	}
	r.call(&chat, "chat.create", map[string]any{"groupId": g.ID})
	r.chatID = chat.ChatID
	r.call(nil, "chat.addMessages", r.chatID, []any{map[string]any{"is_user": true, "mes": "Who is there?"}})

	commitRun := func(text string, extra map[string]any) map[string]any {
		t.Helper()
		r.model.Push(
			round("", call{"workspace_write_file", map[string]any{"path": "output/main.md", "content": text}}),
			round("", call{"workspace_commit", map[string]any{}}),
			round("Done.", call{"workspace_finish", map[string]any{"reason": "committed"}}),
		)
		h := r.start(extra)
		r.waitStatus(h.RunID, "completed")
		return r.lastMessage()
	}
	check := func(what string, m map[string]any, name, text string) {
		t.Helper()
		avatar := avatars[name]
		if m["name"] != name || m["original_avatar"] != avatar || m["force_avatar"] != "/thumbnail?type=avatar&file="+avatar || m["mes"] != text || m["is_user"] == true {
			t.Fatalf("%s: the reply is %v, want %s's", what, m, name)
		}
	}

	// Ann is muted: the first unmuted member, Bob, as the dry run's prompt.
	check("a normal run", commitRun("Bob is.", nil), "Bob", "Bob is.")
	if body := r.model.Requests()[len(r.model.Requests())-3].Body; !containsText(body["messages"], "[Write the next reply only as Bob.]") {
		t.Fatal("the run's prompt is not Bob's")
	}
	check("a run as Ann", commitRun("Ann too.", map[string]any{"generateOptions": map[string]any{"memberAvatar": avatars["Ann"]}}), "Ann", "Ann too.")
	check("a swipe of Ann's reply", commitRun("Ann, again.", map[string]any{"generationType": "swipe"}), "Ann", "Ann, again.")

	if _, err := r.invoke("agent.startRunFromLegacyGenerate", map[string]any{"chatId": r.chatID, "generateOptions": map[string]any{"memberAvatar": "Nobody.png"}}); err == nil {
		t.Fatal("a run as someone who is not a member started")
	}
}

// containsText reports whether a chat-completion message list holds a
// message whose content contains s.
func containsText(msgs any, s string) bool {
	list, _ := msgs.([]any)
	for _, m := range list {
		mm, _ := m.(map[string]any)
		if c, _ := mm["content"].(string); c != "" && strings.Contains(c, s) {
			return true
		}
	}
	return false
}
