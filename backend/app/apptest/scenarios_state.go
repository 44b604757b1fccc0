package apptest

import (
	"encoding/json"
	"strings"
	"testing"
)

const stateChanged = "chat_state_changed"

// setState prepares namespace ns of the scenario chat with value.
func setState(ns string, value any) func(e *Env) {
	return func(e *Env) { e.Must(nil, "state.setChatState", e.ChatID, ns, value) }
}

// floorCommit prepares a floor-state commit of next on namespace ns.
func floorCommit(ns string, next any, opts map[string]any) func(e *Env) {
	return func(e *Env) { e.Must(nil, "state.floorUpdate", e.ChatID, ns, next, opts) }
}

// stateValue reads a namespace's value (nil when absent).
func stateValue(t *testing.T, e *Env, ns string) any {
	t.Helper()
	var got *struct {
		Value any `json:"value"`
	}
	e.Must(&got, "state.getChatState", e.ChatID, ns)
	if got == nil {
		return nil
	}
	return got.Value
}

func both(fns ...func(e *Env)) func(e *Env) {
	return func(e *Env) {
		for _, f := range fns {
			f(e)
		}
	}
}

// StateScenarios cover chat state, the floor-state host calls and
// character state (HOST-ABI §4).
func StateScenarios() []Scenario {
	return []Scenario{
		{Name: "set creates at revision 1", Method: "state.setChatState", Args: chatArgs("a", map[string]any{"n": 1}),
			WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "result", Decode[map[string]any](t, out), map[string]any{"ok": true, "revision": 1})
				Eq(t, "value", stateValue(t, e, "a"), map[string]any{"n": 1})
			},
			CheckEvents: func(t *testing.T, e *Env, evs []map[string]any) {
				Eq(t, "payload", []any{evs[0]["namespace"], evs[0]["revision"]}, []any{"a", 1})
			}},
		{Name: "set with matching ifRevision", Prepare: setState("a", 1), Method: "state.setChatState",
			Args: chatArgs("a", 2, map[string]any{"ifRevision": 1}), WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "revision", Decode[map[string]any](t, out)["revision"], 2)
			}},
		{Name: "set with stale ifRevision", Prepare: both(setState("a", 1), setState("a", 2)), Method: "state.setChatState",
			Args: chatArgs("a", 3, map[string]any{"ifRevision": 1}), WantErr: "state.conflict"},
		{Name: "ifRevision 0 on an existing namespace", Prepare: setState("a", 1), Method: "state.setChatState",
			Args: chatArgs("a", 3, map[string]any{"ifRevision": 0}), WantErr: "state.conflict"},
		{Name: "ifRevision 0 creates", Method: "state.setChatState", Args: chatArgs("a", 3, map[string]any{"ifRevision": 0}),
			WantEvents: []string{stateChanged}},
		{Name: "ifRevision must be an integer", Method: "state.setChatState", Args: chatArgs("a", 3, map[string]any{"ifRevision": 1.5}),
			WantErr: "validation.invalid_argument"},
		{Name: "ifRevision null (NaN) is refused, not ignored", Prepare: setState("a", 1), Method: "state.setChatState",
			RawArgs: raw(`"a",3,{"ifRevision":null}`), WantErr: "validation.invalid_argument"},
		{Name: "same value is a no-op", Prepare: setState("a", map[string]any{"x": []int{1, 2}}), Method: "state.setChatState",
			Args: chatArgs("a", map[string]any{"x": []int{1, 2}}), NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "revision", Decode[map[string]any](t, out)["revision"], 1)
			}},
		{Name: "any JSON value", Method: "state.setChatState", Args: chatArgs("b", []any{"x", 2, true}), WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "value", stateValue(t, e, "b"), []any{"x", 2, true})
			}},
		{Name: "null value refused", Method: "state.setChatState", Args: chatArgs("a", nil), WantErr: "validation.invalid_argument"},
		{Name: "reserved floor log", Method: "state.setChatState", Args: chatArgs("fs__floor_log", 1), WantErr: "state.reserved_namespace"},
		{Name: "reserved orphans", Method: "state.setChatState", Args: chatArgs("fs__orphans", 1), WantErr: "state.reserved_namespace"},
		{Name: "reserved on delete", Method: "state.deleteChatState", Args: chatArgs("fs__orphans"), WantErr: "state.reserved_namespace"},
		{Name: "empty namespace", Method: "state.setChatState", Args: chatArgs("", 1), WantErr: "validation.invalid_argument"},
		{Name: "namespace with a space", Method: "state.setChatState", Args: chatArgs("my plugin", 1), WantErr: "validation.invalid_argument"},
		{Name: "namespace too long", Method: "state.setChatState", Args: chatArgs(strings.Repeat("n", 129), 1), WantErr: "validation.invalid_argument"},
		{Name: "namespace of 128 characters", Method: "state.setChatState", Args: chatArgs(strings.Repeat("n", 128), 1), WantEvents: []string{stateChanged}},
		{Name: "namespace not ASCII", Method: "state.setChatState", Args: chatArgs("plügin", 1), WantErr: "validation.invalid_argument"},
		{Name: "namespaces are case-sensitive", Prepare: setState("a", 1), Method: "state.setChatState", Args: chatArgs("A", 2),
			WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "a", stateValue(t, e, "a"), 1)
				Eq(t, "A", stateValue(t, e, "A"), 2)
			}},
		{Name: "unknown chat", Method: "state.setChatState", Args: func(e *Env) []any { return []any{"nope", "a", 1} }, WantErr: "chat.not_found"},
		{Name: "get missing is null", Method: "state.getChatState", Args: chatArgs("a"),
			Check: func(t *testing.T, e *Env, out json.RawMessage) { Eq(t, "result", string(out), "null") }},
		{Name: "batch", Prepare: setState("a", 1), Method: "state.getChatStateBatch", Args: chatArgs([]string{"a", "b"}),
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "result", Decode[map[string]any](t, out), map[string]any{"a": map[string]any{"value": 1, "revision": 1}, "b": nil})
			}},
		{Name: "batch over the cap", Method: "state.getChatStateBatch",
			Args: func(e *Env) []any {
				nss := make([]string, 501)
				for i := range nss {
					nss[i] = "n" + strings.Repeat("x", i%100)
				}
				return []any{e.ChatID, nss}
			}, WantErr: "validation.too_many"},
		{Name: "batch not an array", Method: "state.getChatStateBatch", Args: chatArgs("a"), WantErr: "validation.invalid_argument"},
		{Name: "delete", Prepare: setState("a", 1), Method: "state.deleteChatState", Args: chatArgs("a"), WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "result", Decode[map[string]any](t, out), map[string]any{"ok": true})
				Eq(t, "value", stateValue(t, e, "a"), nil)
			},
			CheckEvents: func(t *testing.T, e *Env, evs []map[string]any) {
				Eq(t, "payload", []any{evs[0]["revision"], evs[0]["deleted"]}, []any{2, true})
			}},
		{Name: "delete missing is a no-op", Method: "state.deleteChatState", Args: chatArgs("a"), NoOp: true},
		{Name: "delete with stale ifRevision", Prepare: both(setState("a", 1), setState("a", 2)), Method: "state.deleteChatState",
			Args: chatArgs("a", map[string]any{"ifRevision": 1}), WantErr: "state.conflict"},
		{Name: "revision keeps counting after a delete", Prepare: both(setState("a", 1), func(e *Env) { e.Must(nil, "state.deleteChatState", e.ChatID, "a") }),
			Method: "state.setChatState", Args: chatArgs("a", 5, map[string]any{"ifRevision": 0}), WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "revision", Decode[map[string]any](t, out)["revision"], 3)
			}},
		{Name: "floor-owned namespace refuses plain writes", Messages: Three(), Prepare: floorCommit("fs", map[string]any{"hp": 1}, nil),
			Method: "state.setChatState", Args: chatArgs("fs", 1), WantErr: "state.floor_owned"},
		{Name: "floor-owned namespace refuses deletes", Messages: Three(), Prepare: floorCommit("fs", map[string]any{"hp": 1}, nil),
			Method: "state.deleteChatState", Args: chatArgs("fs"), WantErr: "state.floor_owned"},
		{Name: "floor-owned namespace refuses update rounds", Messages: Three(), Prepare: floorCommit("fs", map[string]any{"hp": 1}, nil),
			Method: "state.beginUpdate", Args: chatArgs("fs"), WantErr: "state.floor_owned"},
		{Name: "update round on a reserved name", Method: "state.beginUpdate", Args: chatArgs("x__floor_log"), WantErr: "state.reserved_namespace"},

		{Name: "floor commit at the tail", Messages: Three(), Method: "state.floorUpdate", Args: chatArgs("fs", map[string]any{"hp": 10}),
			WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "result", Decode[map[string]any](t, out), map[string]any{"written": true, "revision": 1, "seq": 1})
				Eq(t, "value", stateValue(t, e, "fs"), map[string]any{"hp": 10})
				log := stateValue(t, e, "fs__floor_log").(map[string]any)
				Eq(t, "log", log, map[string]any{"version": 1, "commits": []any{map[string]any{"seq": 1, "floor": 2, "swipeId": 0,
					"ops": []any{map[string]any{"op": "add", "path": "/hp", "value": 10}}}}})
			}},
		{Name: "floor patch testing an array holding null", Messages: Three(), Prepare: floorCommit("fs", map[string]any{"list": []any{nil}}, nil),
			Method: "state.floorPatch", Args: chatArgs("fs", []map[string]any{{"op": "test", "path": "/list", "value": []any{nil}}, {"op": "add", "path": "/list/-", "value": 1}}),
			WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				Eq(t, "value", stateValue(t, e, "fs"), map[string]any{"list": []any{nil, 1}})
			}},
		{Name: "floor commit of no change", Messages: Three(), Prepare: floorCommit("fs", map[string]any{"hp": 10}, nil),
			Method: "state.floorUpdate", Args: chatArgs("fs", map[string]any{"hp": 10}), NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "written", Decode[map[string]any](t, out)["written"], false)
			}},
		{Name: "floor commit on an inactive swipe waits", Messages: Three(), Method: "state.floorUpdate",
			Args: chatArgs("fs", map[string]any{"hp": 10}, map[string]any{"floor": 1, "swipeId": 1}), WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "value", stateValue(t, e, "fs"), map[string]any{})
			}},
		{Name: "floor out of range", Messages: Three(), Method: "state.floorUpdate", Args: chatArgs("fs", map[string]any{}, map[string]any{"floor": 3}),
			WantErr: "message.index_out_of_range"},
		{Name: "floor negative", Messages: Three(), Method: "state.floorUpdate", Args: chatArgs("fs", map[string]any{"a": 1}, map[string]any{"floor": -1}),
			WantErr: "message.index_out_of_range"},
		{Name: "floor not an integer", Messages: Three(), Method: "state.floorUpdate", Args: chatArgs("fs", map[string]any{"a": 1}, map[string]any{"floor": 1.5}),
			WantErr: "validation.invalid_argument"},
		{Name: "swipeId negative", Messages: Three(), Method: "state.floorUpdate", Args: chatArgs("fs", map[string]any{"a": 1}, map[string]any{"swipeId": -1}),
			WantErr: "swipe.out_of_range"},
		{Name: "floor commit on an empty chat", Method: "state.floorUpdate", Args: chatArgs("fs", map[string]any{"a": 1}),
			WantErr: "message.index_out_of_range"},
		{Name: "floor next state not an object", Messages: Three(), Method: "state.floorUpdate", Args: chatArgs("fs", []int{1}),
			WantErr: "validation.invalid_argument"},
		{Name: "floor commit with stale ifRevision", Messages: Three(),
			Prepare: both(floorCommit("fs", map[string]any{"a": 1}, nil), floorCommit("fs", map[string]any{"a": 2}, nil)),
			Method:  "state.floorUpdate", Args: chatArgs("fs", map[string]any{"a": 3}, map[string]any{"ifRevision": 1}), WantErr: "state.conflict"},
		{Name: "floor commit with floor null (NaN)", Messages: Three(), Method: "state.floorUpdate",
			RawArgs: raw(`"fs",{"a":3},{"floor":null}`), WantErr: "validation.invalid_argument"},
		{Name: "floor patch", Messages: Three(), Prepare: floorCommit("fs", map[string]any{"a": 1}, nil), Method: "state.floorPatch",
			Args: chatArgs("fs", []any{map[string]any{"op": "replace", "path": "/a", "value": 2}}), WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "value", stateValue(t, e, "fs"), map[string]any{"a": 2})
			}},
		{Name: "floor patch at the root", Messages: Three(), Prepare: floorCommit("fs", map[string]any{"a": 1}, nil), Method: "state.floorPatch",
			Args: chatArgs("fs", []any{map[string]any{"op": "replace", "path": "", "value": map[string]any{"b": 1}}}), WantEvents: []string{stateChanged},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "value", stateValue(t, e, "fs"), map[string]any{"b": 1})
			}},
		{Name: "floor patch that does not apply", Messages: Three(), Prepare: floorCommit("fs", map[string]any{"a": 1}, nil), Method: "state.floorPatch",
			Args: chatArgs("fs", []any{map[string]any{"op": "replace", "path": "/missing", "value": 2}}), WantErr: "patch.invalid"},
		{Name: "floor patch leaving a non-object", Messages: Three(), Method: "state.floorPatch",
			Args: chatArgs("fs", []any{map[string]any{"op": "replace", "path": "", "value": 3}}), WantErr: "patch.invalid"},
		{Name: "floor patch malformed", Messages: Three(), Method: "state.floorPatch",
			Args: chatArgs("fs", []any{map[string]any{"op": "jump", "path": "/a"}}), WantErr: "patch.invalid"},

		{Name: "character state set and get", Method: "state.setCharacterState",
			Args: func(e *Env) []any { return []any{e.Avatar, "cs", map[string]any{"cfg": true}} },
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				var got any
				e.Must(&got, "state.getCharacterState", e.Avatar, "cs")
				Eq(t, "value", got, map[string]any{"cfg": true})
			}},
		{Name: "character state null deletes", Method: "state.setCharacterState",
			Prepare: func(e *Env) { e.Must(nil, "state.setCharacterState", e.Avatar, "cs", 1) },
			Args:    func(e *Env) []any { return []any{e.Avatar, "cs", nil} },
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				raw, err := e.Call("state.getCharacterState", e.Avatar, "cs")
				if err != nil || string(raw) != "null" {
					t.Fatalf("after delete: %s, %v", raw, err)
				}
			}},
		{Name: "character state unknown avatar", Method: "state.setCharacterState",
			Args: func(e *Env) []any { return []any{"Nobody.png", "cs", 1} }, WantErr: "character.not_found"},
		{Name: "character state bad namespace", Method: "state.setCharacterState",
			Args: func(e *Env) []any { return []any{e.Avatar, "c s", 1} }, WantErr: "validation.invalid_argument"},
	}
}
