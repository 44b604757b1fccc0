package apptest

import (
	"encoding/json"
	"testing"
)

// SwipeMetadataScenarios cover swipe navigation, swipe add/delete and
// metadata (HOST-ABI 3.5).
func SwipeMetadataScenarios() []Scenario {
	return []Scenario{
		{Name: "swipe right", Messages: Three(), Method: "chat.swipe", Args: chatArgs(1, map[string]any{"direction": "right"}),
			WantEvents: []string{"message_swiped"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "result", Decode[map[string]any](t, out), map[string]any{"swipeId": 1})
				Eq(t, "mes", e.StMessages()[1]["mes"], "Second answer.")
				Eq(t, "per-swipe extra", Extra(e.StMessages(), 1)["model"], "m1")
			},
			CheckEvents: func(t *testing.T, e *Env, evs []map[string]any) {
				Eq(t, "payload", []any{evs[0]["index"], evs[0]["swipeId"], evs[0]["previousSwipeId"], evs[0]["action"]}, []any{1, 1, 0, "navigated"})
			}},
		{Name: "swipe to", Messages: Three(), Method: "chat.swipe", Args: chatArgs(1, map[string]any{"to": 1}), WantEvents: []string{"message_swiped"}},
		{Name: "swipe to current is a no-op", Messages: Three(), Method: "chat.swipe", Args: chatArgs(1, map[string]any{"to": 0}), NoOp: true},
		{Name: "swipe left past first", Messages: Three(), Method: "chat.swipe", Args: chatArgs(1, map[string]any{"direction": "left"}), WantErr: "swipe.out_of_range"},
		{Name: "swipe right past last", Messages: Three(), Method: "chat.swipe", Args: chatArgs(0, map[string]any{"direction": "right"}), WantErr: "swipe.out_of_range"},
		{Name: "swipe bad direction", Messages: Three(), Method: "chat.swipe", Args: chatArgs(1, map[string]any{"direction": "up"}), WantErr: "validation.invalid_argument"},
		{Name: "swipe both forms", Messages: Three(), Method: "chat.swipe", Args: chatArgs(1, map[string]any{"direction": "left", "to": 0}), WantErr: "validation.invalid_argument"},
		{Name: "swipe index out of range", Messages: Three(), Method: "chat.swipe", Args: chatArgs(7, map[string]any{"to": 0}), WantErr: "message.index_out_of_range"},
		{Name: "addSwipe without select", Messages: Three(), Method: "chat.addSwipe", Args: chatArgs(1, "Third."), WantEvents: []string{"message_swiped"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "swipeId", Decode[map[string]any](t, out)["swipeId"], 2)
				m := e.StMessages()[1]
				Eq(t, "active unchanged", m["mes"], "First answer.")
				Eq(t, "info aligned", len(m["swipe_info"].([]any)), 3)
			}},
		{Name: "addSwipe select null", Messages: Three(), Method: "chat.addSwipe", Args: chatArgs(1, "Third.", map[string]any{"select": nil}), WantErr: "validation.invalid_argument"},
		{Name: "addSwipe silent null", Messages: Three(), Method: "chat.addSwipe", Args: chatArgs(1, "Third.", map[string]any{"silent": nil}), WantErr: "validation.invalid_argument"},
		{Name: "addSwipe with select", Messages: Three(), Method: "chat.addSwipe", Args: chatArgs(1, "Third.", map[string]any{"select": true}), WantEvents: []string{"message_swiped"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				m := e.StMessages()[1]
				Eq(t, "active", m["mes"], "Third.")
				if _, ok := Extra(e.StMessages(), 1)["reasoning"]; ok {
					t.Error("new swipe inherited another swipe's reasoning")
				}
			}},
		{Name: "deleteSwipe active swipe moves to neighbour", Messages: Three(), Method: "chat.deleteSwipe",
			Prepare: func(e *Env) { e.Must(nil, "chat.swipe", e.ChatID, 1, map[string]any{"to": 1}) },
			Args:    chatArgs(1, 1), WantEvents: []string{"message_swipe_deleted"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				m := e.StMessages()[1]
				Eq(t, "mes", m["mes"], "First answer.")
				Eq(t, "swipe_id", m["swipe_id"], 0)
				Eq(t, "extra of swipe 0", Extra(e.StMessages(), 1)["model"], "m0")
			}},
		{Name: "deleteSwipe before active keeps active swipe", Messages: Three(), Method: "chat.deleteSwipe",
			Prepare: func(e *Env) { e.Must(nil, "chat.swipe", e.ChatID, 1, map[string]any{"to": 1}) },
			Args:    chatArgs(1, 0), WantEvents: []string{"message_swipe_deleted"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				m := e.StMessages()[1]
				Eq(t, "mes", m["mes"], "Second answer.")
				Eq(t, "swipe_id", m["swipe_id"], 0)
				Eq(t, "reasoning stays", Extra(e.StMessages(), 1)["reasoning"], "r1")
			}},
		{Name: "deleteSwipe last swipe", Messages: Three(), Method: "chat.deleteSwipe", Args: chatArgs(0, 0), WantErr: "swipe.last_swipe"},
		{Name: "saveMetadata merges and null removes", Messages: Three(), Method: "chat.saveMetadata",
			Prepare: func(e *Env) { e.Must(nil, "chat.saveMetadata", e.ChatID, map[string]any{"a": 1, "b": 2}) },
			Args:    chatArgs(map[string]any{"b": nil, "c": map[string]any{"d": true}}), WantEvents: []string{"chat_metadata_updated"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "revision", Decode[map[string]any](t, out)["revision"], e.Revision())
				var meta map[string]any
				e.Must(&meta, "chat.getMetadata", e.ChatID)
				Eq(t, "metadata", meta, map[string]any{"a": 1, "c": map[string]any{"d": true}})
			}},
		{Name: "saveMetadata without changes is a no-op", Messages: Three(), Method: "chat.saveMetadata", Args: chatArgs(), NoOp: true},
		{Name: "saveMetadata non-object", Messages: Three(), Method: "chat.saveMetadata", Args: chatArgs([]int{1}), WantErr: "validation.invalid_argument"},
		{Name: "saveMetadata ifRevision conflict has currentRevision", Messages: Three(), Method: "chat.saveMetadata",
			Args: chatArgs(map[string]any{"a": 1}, map[string]any{"ifRevision": 999}), WantErr: "chat.conflict"},
	}
}

// PatchScenarios cover RFC 6902 patching (HOST-ABI 3.3 patch).
func PatchScenarios() []Scenario {
	patched := []string{"chat_patched"}
	return []Scenario{
		{Name: "patch replace mes of one message", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "replace", "path": "/messages/1/mes", "value": "P"}}), WantEvents: patched,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "revision", Decode[map[string]any](t, out)["revision"], e.Revision())
				Eq(t, "swipes follow mes", e.StMessages()[1]["swipes"], []string{"P", "Second answer."})
			}},
		{Name: "patch metadata add with passing test", Messages: Three(), Method: "chat.patch",
			Args:       chatArgs([]map[string]any{{"op": "test", "path": "/messages/0/mes", "value": "Hello there."}, {"op": "add", "path": "/metadata/k", "value": 1}}),
			WantEvents: []string{"chat_patched", "chat_metadata_updated"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				var meta map[string]any
				e.Must(&meta, "chat.getMetadata", e.ChatID)
				Eq(t, "k", meta["k"], 1)
			}},
		{Name: "patch failed test changes nothing", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "replace", "path": "/messages/0/mes", "value": "Z"}, {"op": "test", "path": "/messages/1/mes", "value": "nope"}}), WantErr: "patch.test_failed"},
		// The patch library panics comparing arrays that hold null; the
		// call must answer (and the next write go through) all the same.
		{Name: "patch test of an array holding null", Messages: Three(), Method: "chat.patch",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.patch", e.ChatID, []map[string]any{{"op": "add", "path": "/metadata/list", "value": []any{nil, 1}}})
			},
			Args:       chatArgs([]map[string]any{{"op": "test", "path": "/metadata/list", "value": []any{nil, 1}}, {"op": "add", "path": "/metadata/k", "value": 1}}),
			WantEvents: []string{"chat_patched", "chat_metadata_updated"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				e.Must(nil, "chat.patch", e.ChatID, []map[string]any{{"op": "add", "path": "/metadata/next", "value": true}})
				var meta map[string]any
				e.Must(&meta, "chat.getMetadata", e.ChatID)
				Eq(t, "metadata", []any{meta["k"], meta["next"]}, []any{1, true})
			}},
		{Name: "patch failed test of an array holding null changes nothing", Messages: Three(), Method: "chat.patch",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.patch", e.ChatID, []map[string]any{{"op": "add", "path": "/messages/1/extra/list", "value": []any{nil}}})
			},
			Args:    chatArgs([]map[string]any{{"op": "replace", "path": "/messages/0/mes", "value": "Z"}, {"op": "test", "path": "/messages/1/extra/list", "value": []any{"x"}}}),
			WantErr: "patch.test_failed"},
		{Name: "patch bad path", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "replace", "path": "/messages/9/mes", "value": "Z"}}), WantErr: "patch.invalid"},
		{Name: "patch path outside document", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "add", "path": "/other", "value": 1}}), WantErr: "patch.invalid"},
		{Name: "patch __proto__ path", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "add", "path": "/metadata/__proto__/polluted", "value": true}}), WantErr: "patch.invalid"},
		{Name: "patch __proto__ in from", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "copy", "from": "/metadata/__proto__", "path": "/metadata/x"}}), WantErr: "patch.invalid"},
		{Name: "patch unknown op", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "merge", "path": "/metadata/x", "value": 1}}), WantErr: "patch.invalid"},
		{Name: "patch ops not an array", Messages: Three(), Method: "chat.patch", Args: chatArgs(map[string]any{"op": "add"}), WantErr: "patch.invalid"},
		{Name: "patch breaking invariant rejected", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "replace", "path": "/messages/1/swipes", "value": []string{}}}), WantErr: "validation.invalid_argument"},
		{Name: "patch id is read-only", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "replace", "path": "/messages/1/id", "value": "x"}}), WantErr: "patch.invalid"},
		{Name: "patch add message at end", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "add", "path": "/messages/-", "value": map[string]any{"name": "N", "mes": "end", "is_user": false}}}), WantEvents: patched,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				msgs := e.StMessages()
				Eq(t, "len", len(msgs), 4)
				Eq(t, "mes", msgs[3]["mes"], "end")
				Eq(t, "old ids kept", []any{msgs[0]["id"], msgs[1]["id"], msgs[2]["id"]}, e.IDs)
			}},
		{Name: "patch remove middle message keeps ids", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "remove", "path": "/messages/1"}}), WantEvents: patched,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				msgs := e.StMessages()
				Eq(t, "ids", []any{msgs[0]["id"], msgs[1]["id"]}, []string{e.IDs[0], e.IDs[2]})
				Eq(t, "count", func() int { var n int; e.Must(&n, "chat.count", e.ChatID); return n }(), 2)
			}},
		{Name: "patch move message", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "move", "from": "/messages/0", "path": "/messages/2"}}), WantEvents: patched,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				msgs := e.StMessages()
				Eq(t, "ids", []any{msgs[0]["id"], msgs[1]["id"], msgs[2]["id"]}, []string{e.IDs[1], e.IDs[2], e.IDs[0]})
			}},
		{Name: "patch idempotent add retry is a no-op", Messages: Three(), Method: "chat.patch",
			Args: func(e *Env) []any {
				m := e.StMessages()[2]
				delete(m, "id")
				return []any{e.ChatID, []map[string]any{{"op": "add", "path": "/messages/2", "value": m}}}
			}, NoOp: true,
			Check: func(t *testing.T, e *Env, _ json.RawMessage) { Eq(t, "len", len(e.StMessages()), 3) }},
		{Name: "patch with only a test is a no-op", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "test", "path": "/messages/0/is_user", "value": true}}), NoOp: true},
		{Name: "patch ifRevision conflict", Messages: Three(), Method: "chat.patch",
			Args: chatArgs([]map[string]any{{"op": "add", "path": "/metadata/k", "value": 1}}, map[string]any{"ifRevision": 12345}), WantErr: "chat.conflict"},
	}
}

// LifecycleScenarios cover chat lifecycle calls (HOST-ABI 3.1).
func LifecycleScenarios() []Scenario {
	return []Scenario{
		{Name: "rename", Messages: Three(), Method: "chat.rename", Args: chatArgs("Renamed chat"), WantEvents: []string{"chat_renamed"}, NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				s := Decode[map[string]any](t, out)
				Eq(t, "fileName", s["fileName"], "Renamed chat")
				Eq(t, "file_name", s["file_name"], "Renamed chat.jsonl")
				var id string
				e.Must(&id, "chat.resolve", map[string]any{"avatar": e.Avatar, "fileName": "Renamed chat.jsonl"})
				Eq(t, "resolve", id, e.ChatID)
			}},
		{Name: "rename to a taken name", Messages: Three(), Method: "chat.rename",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.create", map[string]any{"avatar": e.Avatar}, map[string]any{"fileName": "Other"})
			},
			Args: chatArgs("Other"), WantErr: "chat.name_taken"},
		{Name: "rename to a bad name", Messages: Three(), Method: "chat.rename", Args: chatArgs("a/b"), WantErr: "validation.invalid_argument"},
		{Name: "create with greeting and alternates", Method: "chat.create",
			Prepare: func(e *Env) {
				e.Must(nil, "characters.update", e.Avatar, map[string]any{"alternate_greetings": []string{"Hi {{user}}, I am {{char}}."}})
			},
			Args: func(e *Env) []any {
				return []any{map[string]any{"avatar": e.Avatar}, map[string]any{"fileName": "Second"}}
			},
			WantEvents: []string{"chat_created"}, OtherChat: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				s := Decode[map[string]any](t, out)
				var msgs []map[string]any
				e.Must(&msgs, "chat.getStMessages", s["chatId"])
				Eq(t, "swipes", msgs[0]["swipes"], []string{"Welcome, User.", "Hi User, I am Seraphina."})
				Eq(t, "kind", s["kind"], "main")
				Eq(t, "count", s["messageCount"], 1)
			}},
		{Name: "create for unknown character", Method: "chat.create", Args: func(e *Env) []any { return []any{map[string]any{"avatar": "nobody.png"}} }, WantErr: "character.not_found"},
		{Name: "create with both owners", Method: "chat.create", Args: func(e *Env) []any { return []any{map[string]any{"avatar": e.Avatar, "groupId": "g"}} }, WantErr: "validation.invalid_argument"},
		{Name: "list newest first with preview", Messages: Three(), Method: "chat.list",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.create", map[string]any{"avatar": e.Avatar}, map[string]any{"fileName": "Older"})
				e.Must(nil, "chat.addMessages", e.ChatID, map[string]any{"mes": "latest words"})
			},
			Args: func(e *Env) []any { return []any{map[string]any{"avatar": e.Avatar}} },
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				list := Decode[[]map[string]any](t, out)
				Eq(t, "n", len(list), 2)
				Eq(t, "first", list[0]["chatId"], e.ChatID)
				Eq(t, "preview", list[0]["mes"], "latest words")
				Eq(t, "messageCount", list[0]["messageCount"], 4)
			}},
		{Name: "get includes metadata", Messages: Three(), Method: "chat.get", Args: chatArgs(),
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				d := Decode[map[string]any](t, out)
				Eq(t, "metadata", d["metadata"], map[string]any{})
				Eq(t, "avatar", d["avatar"], e.Avatar)
			}},
		{Name: "get unknown", Method: "chat.get", Args: func(e *Env) []any { return []any{"nope"} }, WantErr: "chat.not_found"},
		{Name: "resolve by id", Method: "chat.resolve", Args: func(e *Env) []any { return []any{map[string]any{"chatId": e.ChatID}} },
			Check: func(t *testing.T, e *Env, out json.RawMessage) { Eq(t, "id", Decode[string](t, out), e.ChatID) }},
		{Name: "resolve unknown file", Method: "chat.resolve", Args: func(e *Env) []any { return []any{map[string]any{"avatar": e.Avatar, "fileName": "nope"}} }, WantErr: "chat.not_found"},
		{Name: "chatId must be a string", Method: "chat.count", Args: func(e *Env) []any { return []any{42} }, WantErr: "validation.invalid_argument"},
	}
}
