package apptest

import (
	"encoding/json"
	"testing"
)

// UndoScenarios cover chat.undo and chat.redo: an editor's history over
// the chat journal, shared by every window of the chat; and
// chat.undoStatus, what they would act on next.
func UndoScenarios() []Scenario {
	patched := []string{"chat_patched"}
	withMetadata := []string{"chat_patched", "chat_metadata_updated"}
	edit := func(index int, mes string) func(e *Env) {
		return func(e *Env) {
			e.Must(nil, "chat.updateMessages", e.ChatID, map[string]any{"index": index, "patch": map[string]any{"mes": mes}})
		}
	}
	then := func(steps ...func(e *Env)) func(e *Env) {
		return func(e *Env) {
			for _, s := range steps {
				s(e)
			}
		}
	}
	undo := func(e *Env) { e.Must(nil, "chat.undo", e.ChatID) }
	// Chats made by a Prepare (a greeting is no write), one per scenario:
	// scenarios run in parallel.
	var fresh, freshForStatus map[string]any
	// step checks a step's result: the new revision, the revision it acted
	// on (the write the Prepare made last but back of the given count), and
	// the write's method.
	step := func(key, method string) func(t *testing.T, e *Env, out json.RawMessage) map[string]any {
		return func(t *testing.T, e *Env, out json.RawMessage) map[string]any {
			res := Decode[map[string]any](t, out)
			Eq(t, "revision", res["revision"], e.Revision())
			Eq(t, "method", res["method"], method)
			if _, ok := res[key].(float64); !ok {
				t.Errorf("result %v has no %s", res, key)
			}
			return res
		}
	}
	payload := func(key, method string) func(t *testing.T, e *Env, evs []map[string]any) {
		return func(t *testing.T, e *Env, evs []map[string]any) {
			Eq(t, "CHAT_PATCHED method", evs[0]["method"], method)
			if _, ok := evs[0][key].(float64); !ok {
				t.Errorf("CHAT_PATCHED %v has no %s", evs[0], key)
			}
			if _, ok := evs[0]["ops"].([]any); !ok {
				t.Errorf("CHAT_PATCHED %v has no ops", evs[0])
			}
		}
	}
	return []Scenario{
		{Name: "undo an edit", Messages: Three(), Prepare: edit(1, "Edited."), Method: "chat.undo", Args: chatArgs(), WantEvents: patched,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				res := step("undoneRevision", "updateMessages")(t, e, out)
				Eq(t, "undone", res["undoneRevision"], e.Revision()-1)
				msgs := e.StMessages()
				Eq(t, "mes", msgs[1]["mes"], "First answer.")
				Eq(t, "swipes", msgs[1]["swipes"], []string{"First answer.", "Second answer."})
				Eq(t, "id", msgs[1]["id"], e.IDs[1])
			},
			CheckEvents: payload("undoneRevision", "updateMessages")},
		{Name: "redo an undone edit", Messages: Three(), Prepare: then(edit(1, "Edited."), undo), Method: "chat.redo", Args: chatArgs(),
			WantEvents: patched,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				res := step("redoneRevision", "updateMessages")(t, e, out)
				Eq(t, "redone", res["redoneRevision"], e.Revision()-2)
				Eq(t, "mes", e.StMessages()[1]["mes"], "Edited.")
			},
			CheckEvents: payload("redoneRevision", "updateMessages")},
		{Name: "undo walks back past undone writes", Messages: Three(), Prepare: then(edit(0, "A"), edit(2, "B"), undo),
			Method: "chat.undo", Args: chatArgs(), WantEvents: patched,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				res := step("undoneRevision", "updateMessages")(t, e, out)
				Eq(t, "undone", res["undoneRevision"], e.Revision()-3)
				msgs := e.StMessages()
				Eq(t, "messages", []any{msgs[0]["mes"], msgs[2]["mes"]}, []string{"Hello there.", "Tell me more."})
			}},
		{Name: "undo a middle delete restores the message and its id", Messages: Three(),
			Prepare: func(e *Env) { e.Must(nil, "chat.deleteMessages", e.ChatID, 1) },
			Method:  "chat.undo", Args: chatArgs(), WantEvents: patched,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				step("undoneRevision", "deleteMessages")(t, e, out)
				msgs := e.StMessages()
				Eq(t, "ids", []any{msgs[0]["id"], msgs[1]["id"], msgs[2]["id"]}, e.IDs)
				Eq(t, "per-swipe data", msgs[1]["swipe_info"].([]any)[1].(map[string]any)["extra"], map[string]any{"reasoning": "r1", "model": "m1"})
				Eq(t, "unknown key", msgs[1]["custom_key"], map[string]any{"kept": true})
			}},
		{Name: "undo an add", Messages: Three(),
			Prepare: func(e *Env) { e.Must(nil, "chat.addMessages", e.ChatID, map[string]any{"mes": "added"}) },
			Method:  "chat.undo", Args: chatArgs(), WantEvents: patched,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				step("undoneRevision", "addMessages")(t, e, out)
				Eq(t, "length", len(e.StMessages()), 3)
			}},
		{Name: "undo a swipe brings the swipe's own data back", Messages: Three(),
			Prepare: func(e *Env) { e.Must(nil, "chat.swipe", e.ChatID, 1, map[string]any{"to": 1}) },
			Method:  "chat.undo", Args: chatArgs(), WantEvents: patched,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				step("undoneRevision", "swipe")(t, e, out)
				msgs := e.StMessages()
				Eq(t, "swipe", []any{msgs[1]["swipe_id"], msgs[1]["mes"], Extra(msgs, 1)["reasoning"]}, []any{0, "First answer.", "r0"})
			}},
		{Name: "undo deleteSwipe", Messages: Three(),
			Prepare: func(e *Env) { e.Must(nil, "chat.deleteSwipe", e.ChatID, 1, 0) },
			Method:  "chat.undo", Args: chatArgs(), WantEvents: patched,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				step("undoneRevision", "deleteSwipe")(t, e, out)
				msgs := e.StMessages()
				Eq(t, "swipes", msgs[1]["swipes"], []string{"First answer.", "Second answer."})
				Eq(t, "active", msgs[1]["swipe_id"], 0)
			}},
		{Name: "undo saveMetadata", Messages: Three(),
			Prepare: func(e *Env) { e.Must(nil, "chat.saveMetadata", e.ChatID, map[string]any{"mood": "calm"}) },
			Method:  "chat.undo", Args: chatArgs(), WantEvents: withMetadata,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				step("undoneRevision", "saveMetadata")(t, e, out)
				var meta map[string]any
				e.Must(&meta, "chat.getMetadata", e.ChatID)
				if _, ok := meta["mood"]; ok {
					t.Errorf("metadata %v still has mood", meta)
				}
			},
			CheckEvents: func(t *testing.T, e *Env, evs []map[string]any) {
				Eq(t, "CHAT_METADATA_UPDATED", evs[1]["metadata"], map[string]any{})
			}},
		{Name: "undo a patch that set a null value", Messages: Three(),
			Prepare: func(e *Env) {
				e.Must(nil, "chat.patch", e.ChatID, []map[string]any{{"op": "add", "path": "/metadata/gone", "value": nil}})
			},
			Method: "chat.undo", Args: chatArgs(), WantEvents: withMetadata,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				step("undoneRevision", "patch")(t, e, out)
				var meta map[string]any
				e.Must(&meta, "chat.getMetadata", e.ChatID)
				Eq(t, "metadata", meta, map[string]any{})
			}},
		{Name: "undo with ifRevision", Messages: Three(), Prepare: edit(1, "Edited."), Method: "chat.undo",
			Args: func(e *Env) []any { return []any{e.ChatID, map[string]any{"ifRevision": e.Revision()}} }, WantEvents: patched},
		{Name: "undo with a stale ifRevision", Messages: Three(), Prepare: edit(1, "Edited."), Method: "chat.undo",
			Args: func(e *Env) []any { return []any{e.ChatID, map[string]any{"ifRevision": e.Revision() - 1}} }, WantErr: "chat.conflict"},
		{Name: "undo in a chat without history", Method: "chat.undo", WantErr: "undo.nothing",
			Prepare: func(e *Env) { e.Must(&fresh, "chat.create", map[string]any{"avatar": e.Avatar}) },
			Args:    func(e *Env) []any { return []any{fresh["chatId"]} }},
		{Name: "redo with nothing undone", Messages: Three(), Prepare: edit(1, "Edited."), Method: "chat.redo", Args: chatArgs(), WantErr: "undo.nothing"},
		{Name: "redo after a new write", Messages: Three(), Prepare: then(edit(1, "Edited."), undo, edit(2, "New.")),
			Method: "chat.redo", Args: chatArgs(), WantErr: "undo.nothing"},
		{Name: "undo of an unknown chat", Method: "chat.undo", Args: func(e *Env) []any { return []any{"nope"} }, WantErr: "chat.not_found"},
		{Name: "undo chatId not a string", Method: "chat.undo", Args: func(e *Env) []any { return []any{7} }, WantErr: "validation.invalid_argument"},
		{Name: "undo without chatId", Method: "chat.undo", WantErr: "validation.invalid_argument"},
		{Name: "redo options not an object", Messages: Three(), Method: "chat.redo", Args: chatArgs("x"), WantErr: "validation.invalid_argument"},
		{Name: "undo ifRevision not an integer", Messages: Three(), Prepare: edit(1, "Edited."), Method: "chat.undo",
			RawArgs: raw(`{"ifRevision":1.5}`), WantErr: "validation.invalid_argument"},
		{Name: "undoStatus names the next undo and redo", Messages: Three(), Prepare: then(edit(1, "Edited."), edit(2, "Again."), undo),
			Method: "chat.undoStatus", Args: chatArgs(), NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				res := Decode[map[string]any](t, out)
				Eq(t, "revision", res["revision"], e.Revision())
				Eq(t, "undo", res["undo"], map[string]any{"revision": e.Revision() - 2, "method": "updateMessages"})
				Eq(t, "redo", res["redo"], map[string]any{"revision": e.Revision() - 1, "method": "updateMessages"})
			}},
		{Name: "undoStatus of a chat without history", Method: "chat.undoStatus", NoOp: true,
			Prepare: func(e *Env) { e.Must(&freshForStatus, "chat.create", map[string]any{"avatar": e.Avatar}) },
			Args:    func(e *Env) []any { return []any{freshForStatus["chatId"]} },
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				res := Decode[map[string]any](t, out)
				Eq(t, "status", []any{res["undo"], res["redo"]}, []any{nil, nil})
			}},
		{Name: "undoStatus of an unknown chat", Method: "chat.undoStatus", Args: func(e *Env) []any { return []any{"nope"} }, WantErr: "chat.not_found"},
		{Name: "undoStatus chatId not a string", Method: "chat.undoStatus", Args: func(e *Env) []any { return []any{7} }, WantErr: "validation.invalid_argument"},
		{Name: "undo ifRevision null (NaN)", Messages: Three(), Prepare: edit(1, "Edited."), Method: "chat.undo",
			RawArgs: raw(`{"ifRevision":null}`), WantErr: "validation.invalid_argument"},
	}
}
