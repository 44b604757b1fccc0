package apptest

import (
	"encoding/json"
	"testing"

	"hearth/backend/chats"
)

func chatArgs(rest ...any) func(e *Env) []any {
	return func(e *Env) []any { return append([]any{e.ChatID}, rest...) }
}

func raw(format string) func(e *Env) string {
	return func(e *Env) string {
		b, _ := json.Marshal(e.ChatID)
		return "[" + string(b) + "," + format + "]"
	}
}

// LukerScenarios cover the index-based writes and reads (HOST-ABI 3.2, 3.3).
func LukerScenarios() []Scenario {
	return []Scenario{
		{Name: "addMessages single returns index and emits MESSAGE_SENT", Messages: Three(), Method: "chat.addMessages",
			Args: chatArgs(map[string]any{"name": "User", "is_user": true, "mes": "Hi", "unknown_top": 7}), WantEvents: []string{"message_sent"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "index", Decode[int](t, out), 3)
				m := e.StMessages()[3]
				Eq(t, "mes", m["mes"], "Hi")
				Eq(t, "unknown key kept", m["unknown_top"], 7)
				Eq(t, "swipes", m["swipes"], []string{"Hi"})
			},
			CheckEvents: func(t *testing.T, e *Env, evs []map[string]any) {
				Eq(t, "event index", evs[0]["index"], 3)
			}},
		{Name: "addMessages batch is one revision with one event per message", Method: "chat.addMessages",
			Args: chatArgs([]map[string]any{{"is_user": true, "mes": "a"}, {"mes": "b"}}), WantEvents: []string{"message_sent", "message_received"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "indexes", Decode[[]int](t, out), []int{0, 1})
				msgs := e.StMessages()
				Eq(t, "default assistant name", msgs[1]["name"], "Seraphina")
				Eq(t, "default user name", msgs[0]["name"], "User")
			}},
		{Name: "deleteMessages silent null", Messages: Three(), Method: "chat.deleteMessages",
			Args: chatArgs([]int{0}, map[string]any{"silent": nil}), WantErr: "validation.invalid_argument"},
		{Name: "addMessages silent emits nothing but commits", Method: "chat.addMessages",
			Args: chatArgs(map[string]any{"mes": "quiet"}, map[string]any{"silent": true}),
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "count", len(e.StMessages()), 1)
			}},
		{Name: "addMessages empty swipes rejected", Method: "chat.addMessages", Messages: Three(),
			Args: chatArgs(map[string]any{"mes": "x", "swipes": []string{}}), WantErr: "validation.invalid_argument"},
		{Name: "addMessages batch with one bad message adds none", Method: "chat.addMessages", Messages: Three(),
			Args: chatArgs([]map[string]any{{"mes": "ok"}, {"mes": 5}}), WantErr: "validation.invalid_argument"},
		{Name: "addMessages over the per-call cap adds none", Method: "chat.addMessages", Messages: Three(),
			Args: chatArgs(repeated(chats.MaxMessagesPerCall+1, map[string]any{"mes": "x"})), WantErr: "validation.too_many"},
		{Name: "addMessages swipe_id out of range", Method: "chat.addMessages",
			Args: chatArgs(map[string]any{"swipes": []string{"a", "b"}, "swipe_id": 2}), WantErr: "swipe.out_of_range"},
		{Name: "addMessages swipe_info length mismatch", Method: "chat.addMessages",
			Args: chatArgs(map[string]any{"swipes": []string{"a", "b"}, "swipe_info": []map[string]any{{}}}), WantErr: "validation.invalid_argument"},
		{Name: "addMessages ifRevision conflict", Method: "chat.addMessages", Messages: Three(),
			Args: chatArgs(map[string]any{"mes": "x"}, map[string]any{"ifRevision": 0}), WantErr: "chat.conflict"},
		{Name: "addMessages ifRevision match", Method: "chat.addMessages", Messages: Three(),
			Args: func(e *Env) []any {
				return []any{e.ChatID, map[string]any{"mes": "x"}, map[string]any{"ifRevision": e.Revision()}}
			},
			WantEvents: []string{"message_received"}},
		{Name: "addMessages unknown chat", Method: "chat.addMessages",
			Args: func(e *Env) []any { return []any{"00000000-0000-0000-0000-000000000000", map[string]any{"mes": "x"}} }, WantErr: "chat.not_found"},
		{Name: "updateMessages mes sets active swipe", Messages: Three(), Method: "chat.updateMessages",
			Args: chatArgs(map[string]any{"index": 1, "patch": map[string]any{"mes": "Edited."}}), WantEvents: []string{"message_edited", "message_updated"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				m := e.StMessages()[1]
				Eq(t, "swipes", m["swipes"], []string{"Edited.", "Second answer."})
				Eq(t, "custom key", m["custom_key"], map[string]any{"kept": true})
			}},
		{Name: "updateMessages null swipe", Messages: Three(), Method: "chat.updateMessages",
			RawArgs: func(e *Env) string { return `["` + e.ChatID + `",[{"index":1,"patch":{"swipes":["a",null]}}]]` }, WantErr: "validation.invalid_argument"},
		{Name: "updateMessages batch", Messages: Three(), Method: "chat.updateMessages",
			Args:       chatArgs([]map[string]any{{"index": 0, "patch": map[string]any{"mes": "A"}}, {"index": 2, "patch": map[string]any{"mes": "C", "extra": map[string]any{"model": "x"}}}}),
			WantEvents: []string{"message_edited", "message_updated", "message_edited", "message_updated"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				msgs := e.StMessages()
				Eq(t, "0", msgs[0]["mes"], "A")
				Eq(t, "2", msgs[2]["mes"], "C")
				Eq(t, "extra", Extra(msgs, 2)["model"], "x")
			}},
		{Name: "updateMessages identical patch is a no-op", Messages: Three(), Method: "chat.updateMessages",
			Args: chatArgs(map[string]any{"index": 0, "patch": map[string]any{"mes": "Hello there."}}), NoOp: true},
		// Counted before any entry is decoded: these are not even objects.
		{Name: "updateMessages over the per-call cap changes nothing", Messages: Three(), Method: "chat.updateMessages",
			Args: chatArgs(repeated(chats.MaxMessagesPerCall+1, 1)), WantErr: "validation.too_many"},
		{Name: "updateMessages index out of range", Messages: Three(), Method: "chat.updateMessages",
			Args: chatArgs(map[string]any{"index": 3, "patch": map[string]any{"mes": "x"}}), WantErr: "message.index_out_of_range"},
		{Name: "updateMessages negative index", Messages: Three(), Method: "chat.updateMessages",
			Args: chatArgs(map[string]any{"index": -1, "patch": map[string]any{"mes": "x"}}), WantErr: "message.index_out_of_range"},
		{Name: "updateMessages fractional index", Messages: Three(), Method: "chat.updateMessages",
			RawArgs: raw(`{"index": 1.5, "patch": {"mes": "x"}}`), WantErr: "validation.invalid_argument"},
		{Name: "updateMessages string index", Messages: Three(), Method: "chat.updateMessages",
			RawArgs: raw(`{"index": "1", "patch": {"mes": "x"}}`), WantErr: "validation.invalid_argument"},
		{Name: "updateMessages batch with a bad entry changes nothing", Messages: Three(), Method: "chat.updateMessages",
			Args:    chatArgs([]map[string]any{{"index": 0, "patch": map[string]any{"mes": "A"}}, {"index": 9, "patch": map[string]any{"mes": "B"}}}),
			WantErr: "message.index_out_of_range"},
		{Name: "updateMessages NaN swipe_id (null) rejected", Messages: Three(), Method: "chat.updateMessages",
			RawArgs: raw(`{"index": 1, "patch": {"swipe_id": null}}`), WantErr: "validation.invalid_argument"},
		{Name: "updateMessages swipe_id navigates with per-swipe extra", Messages: Three(), Method: "chat.updateMessages",
			Args: chatArgs(map[string]any{"index": 1, "patch": map[string]any{"swipe_id": 1}}), WantEvents: []string{"message_edited", "message_updated"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				msgs := e.StMessages()
				Eq(t, "mes", msgs[1]["mes"], "Second answer.")
				Eq(t, "reasoning follows swipe", Extra(msgs, 1)["reasoning"], "r1")
			}},
		{Name: "updateMessages read-only id", Messages: Three(), Method: "chat.updateMessages",
			Args: chatArgs(map[string]any{"index": 1, "patch": map[string]any{"id": "other"}}), WantErr: "validation.invalid_argument"},
		{Name: "deleteMessages single returns the message", Messages: Three(), Method: "chat.deleteMessages",
			Args: chatArgs(1), WantEvents: []string{"message_deleted"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "deleted mes", Decode[map[string]any](t, out)["mes"], "First answer.")
				msgs := e.StMessages()
				Eq(t, "remaining", []any{msgs[0]["mes"], msgs[1]["mes"]}, []string{"Hello there.", "Tell me more."})
				Eq(t, "ids kept", []any{msgs[0]["id"], msgs[1]["id"]}, []string{e.IDs[0], e.IDs[2]})
			},
			CheckEvents: func(t *testing.T, e *Env, evs []map[string]any) { Eq(t, "length", evs[0]["length"], 2) }},
		{Name: "deleteMessages batch handles index shifting", Messages: Three(), Method: "chat.deleteMessages",
			Args: chatArgs([]int{2, 0}), WantEvents: []string{"message_deleted"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				del := Decode[[]map[string]any](t, out)
				Eq(t, "order as asked", []any{del[0]["mes"], del[1]["mes"]}, []string{"Tell me more.", "Hello there."})
				msgs := e.StMessages()
				Eq(t, "left", len(msgs), 1)
				Eq(t, "left id", msgs[0]["id"], e.IDs[1])
			}},
		// null is what JSON makes of NaN: an error, never "not given".
		{Name: "deleteMessages swipe null deletes nothing", Messages: Three(), Method: "chat.deleteMessages",
			RawArgs: raw(`1,{"swipe":null}`), WantErr: "validation.invalid_argument"},
		{Name: "addMessages ifRevision null writes nothing", Messages: Three(), Method: "chat.addMessages",
			RawArgs: raw(`{"mes":"x"},{"ifRevision":null}`), WantErr: "validation.invalid_argument"},
		{Name: "deleteMessages out of range", Messages: Three(), Method: "chat.deleteMessages", Args: chatArgs([]int{0, 3}), WantErr: "message.index_out_of_range"},
		{Name: "deleteMessages duplicate index", Messages: Three(), Method: "chat.deleteMessages", Args: chatArgs([]int{1, 1}), WantErr: "validation.invalid_argument"},
		{Name: "deleteMessages swipe", Messages: Three(), Method: "chat.deleteMessages",
			Args: chatArgs(1, map[string]any{"swipe": 0}), WantEvents: []string{"message_swipe_deleted"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				msgs := e.StMessages()
				Eq(t, "swipes", msgs[1]["swipes"], []string{"Second answer."})
				Eq(t, "reasoning of surviving swipe", Extra(msgs, 1)["reasoning"], "r1")
			},
			CheckEvents: func(t *testing.T, e *Env, evs []map[string]any) {
				Eq(t, "ids", []any{evs[0]["messageId"], evs[0]["swipeId"], evs[0]["newSwipeId"]}, []int{1, 0, 0})
			}},
		{Name: "deleteMessages last swipe", Messages: Three(), Method: "chat.deleteMessages", Args: chatArgs(0, map[string]any{"swipe": 0}), WantErr: "swipe.last_swipe"},
		{Name: "deleteMessages swipe out of range", Messages: Three(), Method: "chat.deleteMessages", Args: chatArgs(1, map[string]any{"swipe": 2}), WantErr: "swipe.out_of_range"},
		{Name: "getMessages tail", Messages: Three(), Method: "chat.getMessages", Args: chatArgs(map[string]any{"tail": 2}),
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				got := Decode[[]map[string]any](t, out)
				Eq(t, "ids", []any{got[0]["id"], got[1]["id"]}, e.IDs[1:])
				Eq(t, "role", []any{got[0]["role"], got[1]["role"]}, []string{"assistant", "user"})
				Eq(t, "metadata absent from extra", got[0]["extra"].(map[string]any)["spindle_metadata"], nil)
			}},
		{Name: "getStMessages start/end", Messages: Three(), Method: "chat.getStMessages", Args: chatArgs(map[string]any{"start": 1, "end": 2}),
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				got := Decode[[]map[string]any](t, out)
				Eq(t, "one", len(got), 1)
				Eq(t, "id", got[0]["id"], e.IDs[1])
			}},
		{Name: "getStMessages before/limit", Messages: Three(), Method: "chat.getStMessages", Args: chatArgs(map[string]any{"before": 2, "limit": 5}),
			Check: func(t *testing.T, e *Env, out json.RawMessage) { Eq(t, "n", len(Decode[[]any](t, out)), 2) }},
		{Name: "getStMessages negative start", Messages: Three(), Method: "chat.getStMessages", Args: chatArgs(map[string]any{"start": -1}), WantErr: "message.index_out_of_range"},
		{Name: "getMessages unknown range field", Messages: Three(), Method: "chat.getMessages", Args: chatArgs(map[string]any{"tial": 1}), WantErr: "validation.invalid_argument"},
		{Name: "getStMessages range start after end past the chat", Messages: Three(), Method: "chat.getStMessages", Args: chatArgs(map[string]any{"start": 5, "end": 3}), WantErr: "validation.invalid_argument"},
		{Name: "getStMessages range start after end", Messages: Three(), Method: "chat.getStMessages", Args: chatArgs(map[string]any{"start": 2, "end": 1}), WantErr: "validation.invalid_argument"},
		{Name: "getStMessages range past the end reads to the end", Messages: Three(), Method: "chat.getStMessages", Args: chatArgs(map[string]any{"start": 1, "end": 9}),
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "len", len(Decode[[]map[string]any](t, out)), 2)
			}},
		{Name: "getStMessages range starting past the end is empty", Messages: Three(), Method: "chat.getStMessages", Args: chatArgs(map[string]any{"start": 5}),
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "len", len(Decode[[]map[string]any](t, out)), 0)
			}},
		{Name: "getStMessages mixed range forms", Messages: Three(), Method: "chat.getStMessages", Args: chatArgs(map[string]any{"start": 0, "tail": 1}), WantErr: "validation.invalid_argument"},
		{Name: "getStMessages fractional tail", Messages: Three(), Method: "chat.getStMessages", RawArgs: raw(`{"tail": 0.5}`), WantErr: "validation.invalid_argument"},
		{Name: "count", Messages: Three(), Method: "chat.count", Args: chatArgs(),
			Check: func(t *testing.T, e *Env, out json.RawMessage) { Eq(t, "count", Decode[int](t, out), 3) }},
	}
}

// repeated is a list of n copies of v.
func repeated(n int, v any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}
