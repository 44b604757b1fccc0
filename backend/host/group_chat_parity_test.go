package host_test

import (
	"testing"

	"hearth/backend/app/apptest"
)

// TestGroupChatHasWhatOneToOneChatsHave: a group chat takes the chat
// routes a character's chat does — messages, chat and floor state,
// checkpoints and branches (which stay in the group), search, undo and
// redo, a JSONL copy back in — with nothing group-specific in the calls.
func TestGroupChatHasWhatOneToOneChatsHave(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat()
	e.Must(nil, "groups.create", map[string]any{"id": "g1", "members": []string{e.Avatar}})
	var chat map[string]any
	e.Must(&chat, "chat.create", map[string]any{"groupId": "g1"}, map[string]any{"fileName": "talk"})
	id := chat["chatId"].(string)
	e.Must(nil, "chat.addMessages", id, []map[string]any{
		{"name": "User", "is_user": true, "mes": "Where is the silver lantern?"},
		{"name": "Ada", "is_user": false, "mes": "東京の夜は静かです。", "original_avatar": e.Avatar},
	})
	var count int
	e.Must(&count, "chat.count", id)
	apptest.Eq(t, "messages", count, 3)

	e.Must(nil, "state.setChatState", id, "mood", map[string]any{"n": 1})
	var st map[string]any
	e.Must(&st, "state.getChatState", id, "mood")
	apptest.Eq(t, "chat state", st["value"], map[string]any{"n": float64(1)})
	e.Must(nil, "state.floorPatch", id, "hp", []map[string]any{{"op": "add", "path": "/hp", "value": 7}})
	var floor map[string]any
	e.Must(&floor, "state.floorGet", id, "hp")
	if v, _ := floor["value"].(map[string]any); v == nil || v["hp"] != float64(7) {
		t.Fatalf("floor state: %v", floor)
	}

	var hits []map[string]any
	e.Must(&hits, "chat.search", id, "lantern")
	if len(hits) != 1 || hits[0]["index"] != float64(1) {
		t.Fatalf("search lantern: %v", hits)
	}
	e.Must(&hits, "chat.search", id, "東京")
	if len(hits) != 1 || hits[0]["index"] != float64(2) {
		t.Fatalf("search 東京: %v", hits)
	}

	var cp, br map[string]any
	e.Must(&cp, "chat.createCheckpoint", id, 1)
	e.Must(&br, "chat.createBranch", id, 2)
	for name, c := range map[string]map[string]any{"checkpoint": cp, "branch": br} {
		apptest.Eq(t, name+" group", c["groupId"], "g1")
		apptest.Eq(t, name+" parent", c["parentChatId"], id)
	}

	e.Must(nil, "chat.deleteMessages", id, []int{2})
	e.Must(&count, "chat.count", id)
	apptest.Eq(t, "after delete", count, 2)
	e.Must(nil, "chat.undo", id)
	e.Must(&count, "chat.count", id)
	apptest.Eq(t, "after undo", count, 3)
	e.Must(nil, "chat.redo", id)
	e.Must(&count, "chat.count", id)
	apptest.Eq(t, "after redo", count, 2)

	var file struct {
		Text string `json:"text"`
	}
	e.Must(&file, "chat.exportJsonl", id)
	var copied map[string]any
	e.Must(&copied, "chat.importJsonl", map[string]any{"groupId": "g1"}, map[string]any{"fileName": "copy", "text": file.Text})
	apptest.Eq(t, "copy group", copied["groupId"], "g1")
	e.Must(&count, "chat.count", copied["chatId"])
	apptest.Eq(t, "copy messages", count, 2)
}
