package host_test

import (
	"encoding/json"
	"slices"
	"testing"

	"hearth/backend/app/apptest"
	"hearth/backend/events"
)

// groupScenario is one groups.* call against a fresh app with the
// characters Seraphina, Alice and Bob and one group of the three ("g1").
type groupScenario struct {
	name    string
	prepare func(e *apptest.Env)
	method  string
	args    []any
	// rawArgs, when set, is sent verbatim.
	rawArgs    string
	wantErr    string
	wantEvents []string
	check      func(t *testing.T, e *apptest.Env, out json.RawMessage, evs []events.Event)
}

// groupState is everything a groups.* call could change.
func groupState(e *apptest.Env) string {
	var parts []json.RawMessage
	for _, m := range []string{"groups.list", "characters.list"} {
		out, err := e.Call(m)
		if err != nil {
			e.T.Fatalf("%s: %v", m, err)
		}
		parts = append(parts, out)
	}
	b, _ := json.Marshal(parts)
	return string(b)
}

func runGroupScenarios(t *testing.T, scenarios []groupScenario) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			e := apptest.NewEnv(t, nil)
			e.SetupChat()
			for _, name := range []string{"Alice", "Bob"} {
				e.Must(nil, "characters.create", map[string]any{"name": name})
			}
			e.Must(nil, "groups.create", map[string]any{"id": "g1", "name": "Trio", "members": []string{e.Avatar, "Alice.png", "Bob.png"}})
			if sc.prepare != nil {
				sc.prepare(e)
			}
			e.Events()
			before := groupState(e)
			var out json.RawMessage
			var err error
			if sc.rawArgs != "" {
				out, err = e.CallRaw(sc.method, sc.rawArgs)
			} else {
				out, err = e.Call(sc.method, sc.args...)
			}
			evs := e.Events()
			if got := apptest.Code(err); got != sc.wantErr {
				t.Fatalf("%s: error %q (%v), want %q", sc.method, got, err, sc.wantErr)
			}
			if err != nil {
				if len(evs) != 0 {
					t.Errorf("a failed call published %v", eventTypes(evs))
				}
				if after := groupState(e); after != before {
					t.Errorf("a failed call changed something:\nbefore %s\nafter  %s", before, after)
				}
				return
			}
			if got := eventTypes(evs); !slices.Equal(got, sc.wantEvents) {
				t.Errorf("events %v, want %v", got, sc.wantEvents)
			}
			if sc.check != nil {
				sc.check(t, e, out, evs)
			}
		})
	}
}

func TestGroupRoutes(t *testing.T) {
	t.Parallel()
	runGroupScenarios(t, []groupScenario{
		{name: "list", method: "groups.list", wantEvents: []string{},
			check: func(t *testing.T, e *apptest.Env, out json.RawMessage, _ []events.Event) {
				list := apptest.Decode[[]map[string]any](t, out)
				apptest.Eq(t, "ids", len(list), 1)
				apptest.Eq(t, "members", list[0]["members"], []any{e.Avatar, "Alice.png", "Bob.png"})
			}},
		{name: "get", method: "groups.get", args: []any{"g1"}, wantEvents: []string{},
			check: func(t *testing.T, e *apptest.Env, out json.RawMessage, _ []events.Event) {
				g := apptest.Decode[map[string]any](t, out)
				apptest.Eq(t, "name", g["name"], "Trio")
				apptest.Eq(t, "strategy", g["activation_strategy"], 0)
			}},
		{name: "get unknown", method: "groups.get", args: []any{"nope"}, wantErr: "group.not_found"},
		{name: "get without an id", method: "groups.get", rawArgs: `[12]`, wantErr: "validation.invalid_argument"},
		{name: "create", method: "groups.create", args: []any{map[string]any{"members": []string{"Bob.png", "Alice.png"}, "activation_strategy": 1, "x_unknown": "kept"}},
			wantEvents: []string{"group_created"},
			check: func(t *testing.T, e *apptest.Env, out json.RawMessage, evs []events.Event) {
				g := apptest.Decode[map[string]any](t, out)
				apptest.Eq(t, "name", g["name"], "Group: Bob, Alice")
				apptest.Eq(t, "unknown", g["x_unknown"], "kept")
				p := evs[0].Payload.(*events.GroupPayload)
				apptest.Eq(t, "payload id", p.GroupID, g["id"])
			}},
		{name: "create with an unknown member", method: "groups.create", args: []any{map[string]any{"members": []string{"Ghost.png"}}}, wantErr: "character.not_found"},
		{name: "create with fields not an object", method: "groups.create", args: []any{[]string{"Bob.png"}}, wantErr: "validation.invalid_argument"},
		{name: "create without fields", method: "groups.create", wantErr: "validation.invalid_argument"},
		{name: "update", method: "groups.update", args: []any{"g1", map[string]any{"disabled_members": []string{"Bob.png"}, "allow_self_responses": true}},
			wantEvents: []string{"group_updated"},
			check: func(t *testing.T, e *apptest.Env, out json.RawMessage, _ []events.Event) {
				var g map[string]any
				e.Must(&g, "groups.get", "g1")
				apptest.Eq(t, "muted", g["disabled_members"], []any{"Bob.png"})
				apptest.Eq(t, "self", g["allow_self_responses"], true)
			}},
		{name: "update with a bad strategy", method: "groups.update", args: []any{"g1", map[string]any{"activation_strategy": 4}}, wantErr: "validation.invalid_argument"},
		{name: "update without a patch", method: "groups.update", args: []any{"g1"}, wantErr: "validation.invalid_argument"},
		{name: "update unknown", method: "groups.update", args: []any{"nope", map[string]any{"fav": true}}, wantErr: "group.not_found"},
		{name: "delete", method: "groups.delete", args: []any{"g1"}, wantEvents: []string{"group_deleted"},
			check: func(t *testing.T, e *apptest.Env, _ json.RawMessage, _ []events.Event) {
				if _, err := e.Call("groups.get", "g1"); apptest.Code(err) != "group.not_found" {
					t.Errorf("get after delete: %v", err)
				}
			}},
		{name: "delete with chats", method: "groups.delete", args: []any{"g1", map[string]any{"deleteChats": true}}, wantEvents: []string{"group_deleted"}},
		{name: "delete with deleteChats null", method: "groups.delete", args: []any{"g1", map[string]any{"deleteChats": nil}}, wantErr: "validation.invalid_argument"},
		{name: "delete unknown", method: "groups.delete", args: []any{"nope"}, wantErr: "group.not_found"},
		{name: "a character's delete drops it from its groups", method: "characters.delete", args: []any{"Alice.png"},
			wantEvents: []string{"characterDeleted", "group_updated"},
			check: func(t *testing.T, e *apptest.Env, _ json.RawMessage, _ []events.Event) {
				var g map[string]any
				e.Must(&g, "groups.get", "g1")
				apptest.Eq(t, "members", g["members"], []any{e.Avatar, "Bob.png"})
			}},
		{name: "a character's edit leaves its groups alone", method: "characters.update", args: []any{"Alice.png", map[string]any{"name": "Alicia"}},
			wantEvents: []string{"character_edited"},
			check: func(t *testing.T, e *apptest.Env, _ json.RawMessage, _ []events.Event) {
				var g map[string]any
				e.Must(&g, "groups.get", "g1")
				apptest.Eq(t, "members", g["members"], []any{e.Avatar, "Alice.png", "Bob.png"})
			}},
	})
}
