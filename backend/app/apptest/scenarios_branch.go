package apptest

import (
	"encoding/json"
	"testing"
)

// BranchScenarios cover checkpoints, branches and the chat tree (HOST-ABI §3.7).
func BranchScenarios() []Scenario {
	return []Scenario{
		{Name: "checkpoint", Messages: Three(), Method: "chat.createCheckpoint", Args: chatArgs(1), OtherChat: true,
			WantEvents: []string{"message_updated", "chat_created", "chat_branch_created"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				sum := Decode[map[string]any](t, out)
				Eq(t, "kind", sum["kind"], "checkpoint")
				Eq(t, "messages", sum["messageCount"], 2)
				Eq(t, "parent", sum["parentChatId"], e.ChatID)
				Eq(t, "branch point", sum["branchPoint"], 1)
				Eq(t, "bookmark", Extra(e.StMessages(), 1)["bookmark_link"], sum["fileName"])
			}},
		{Name: "checkpoint with a name", Messages: Three(), Method: "chat.createCheckpoint", Args: chatArgs(0, map[string]any{"name": "Before the duel"}),
			OtherChat: true, WantEvents: []string{"message_updated", "chat_created", "chat_branch_created"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "name", Decode[map[string]any](t, out)["fileName"], "Before the duel")
			}},
		{Name: "checkpoint name taken", Messages: Three(),
			Prepare: func(e *Env) { e.Must(nil, "chat.createCheckpoint", e.ChatID, 0, map[string]any{"name": "Mine"}) },
			Method:  "chat.createCheckpoint", Args: chatArgs(1, map[string]any{"name": "Mine"}), WantErr: "chat.name_taken"},
		{Name: "checkpoint bad name", Messages: Three(), Method: "chat.createCheckpoint", Args: chatArgs(1, map[string]any{"name": "a/b"}),
			WantErr: "validation.invalid_argument"},
		{Name: "checkpoint index out of range", Messages: Three(), Method: "chat.createCheckpoint", Args: chatArgs(3), WantErr: "message.index_out_of_range"},
		{Name: "checkpoint index not an integer", Messages: Three(), Method: "chat.createCheckpoint", Args: chatArgs(1.5), WantErr: "validation.invalid_argument"},
		{Name: "checkpoint of an empty chat", Method: "chat.createCheckpoint", Args: chatArgs(0), WantErr: "message.index_out_of_range"},
		{Name: "branch at a swipe", Messages: Three(), Method: "chat.createBranch", Args: chatArgs(1, map[string]any{"swipeId": 1}), OtherChat: true,
			WantEvents: []string{"message_updated", "chat_created", "chat_branch_created"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				sum := Decode[map[string]any](t, out)
				Eq(t, "kind", sum["kind"], "branch")
				var msgs []map[string]any
				e.Must(&msgs, "chat.getStMessages", sum["chatId"])
				Eq(t, "branch swipe", []any{msgs[1]["swipe_id"], msgs[1]["mes"]}, []any{1.0, "Second answer."})
				Eq(t, "per-swipe data follows", msgs[1]["extra"].(map[string]any)["model"], "m1")
				Eq(t, "source swipe", e.StMessages()[1]["swipe_id"], 0.0)
				Eq(t, "source branches", Extra(e.StMessages(), 1)["branches"], []any{sum["fileName"]})
			}},
		{Name: "branch swipe out of range", Messages: Three(), Method: "chat.createBranch", Args: chatArgs(1, map[string]any{"swipeId": 2}),
			WantErr: "swipe.out_of_range"},
		{Name: "branch swipe negative", Messages: Three(), Method: "chat.createBranch", Args: chatArgs(1, map[string]any{"swipeId": -1}),
			WantErr: "swipe.out_of_range"},
		{Name: "branch swipe not an integer", Messages: Three(), Method: "chat.createBranch", Args: chatArgs(1, map[string]any{"swipeId": "1"}),
			WantErr: "validation.invalid_argument"},
		{Name: "branch swipe null (NaN)", Messages: Three(), Method: "chat.createBranch", RawArgs: raw(`1,{"swipeId":null}`),
			WantErr: "validation.invalid_argument"},
		{Name: "branch of an unknown chat", Method: "chat.createBranch", Args: func(e *Env) []any { return []any{"nope", 0} }, WantErr: "chat.not_found"},
		{Name: "tree of an unknown chat", Method: "chat.tree", Args: func(e *Env) []any { return []any{"nope"} }, WantErr: "chat.not_found"},
	}
}
