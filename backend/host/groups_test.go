package host_test

import (
	"encoding/json"
	"slices"
	"strings"
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
	for _, m := range []string{"groups.list", "characters.list", "chat.list"} {
		var args []any
		if m == "chat.list" {
			args = []any{map[string]any{"groupId": "g1"}}
		}
		out, err := e.Call(m, args...)
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
		{name: "chat.create of a group", method: "chat.create", args: []any{map[string]any{"groupId": "g1"}},
			wantEvents: []string{"chat_created", "group_updated", "group_chat_created"},
			check: func(t *testing.T, e *apptest.Env, out json.RawMessage, _ []events.Event) {
				sum := apptest.Decode[map[string]any](t, out)
				apptest.Eq(t, "group", sum["groupId"], "g1")
				apptest.Eq(t, "greetings (only Seraphina has one)", sum["messageCount"], 1)
				var g map[string]any
				e.Must(&g, "groups.get", "g1")
				apptest.Eq(t, "chat_id", g["chat_id"], sum["fileName"])
				apptest.Eq(t, "chats", g["chats"], []any{"g1", sum["fileName"]})
				var msgs []map[string]any
				e.Must(&msgs, "chat.getStMessages", sum["chatId"])
				apptest.Eq(t, "speaker", msgs[0]["original_avatar"], e.Avatar)
				apptest.Eq(t, "force_avatar", msgs[0]["force_avatar"], "/thumbnail?type=avatar&file="+e.Avatar)
			}},
		{name: "chat.create of an unknown group", method: "chat.create", args: []any{map[string]any{"groupId": "nope"}}, wantErr: "group.not_found"},
		{name: "chat.create of a group with a taken name", method: "chat.create", args: []any{map[string]any{"groupId": "g1"}, map[string]any{"fileName": "x"}},
			prepare: func(e *apptest.Env) {
				e.Must(nil, "chat.create", map[string]any{"groupId": "g1"}, map[string]any{"fileName": "x"})
			},
			wantErr: "chat.name_taken"},
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

// TestGroupChatRoutes walks a group chat through the chat routes: list,
// resolve by { groupId, fileName }, SillyTavern's group chat JSONL, and a
// delete that leaves the group's list.
func TestGroupChatRoutes(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat()
	e.Must(nil, "groups.create", map[string]any{"id": "g1", "members": []string{e.Avatar}})
	var a, b map[string]any
	e.Must(&a, "chat.create", map[string]any{"groupId": "g1"}, map[string]any{"fileName": "a"})
	e.Must(&b, "chat.create", map[string]any{"groupId": "g1"}, map[string]any{"fileName": "b"})
	var list []map[string]any
	e.Must(&list, "chat.list", map[string]any{"groupId": "g1"})
	apptest.Eq(t, "listed", len(list), 2)
	var id string
	e.Must(&id, "chat.resolve", map[string]any{"groupId": "g1", "fileName": "a.jsonl"})
	apptest.Eq(t, "resolved", id, a["chatId"])
	var file struct {
		FileName string `json:"fileName"`
		Text     string `json:"text"`
	}
	e.Must(&file, "chat.exportJsonl", a["chatId"])
	apptest.Eq(t, "file", file.FileName, "a.jsonl")
	header, _, _ := strings.Cut(file.Text, "\n")
	apptest.Eq(t, "header", header, `{"chat_metadata":{},"user_name":"unused","character_name":"unused"}`)
	e.Events()
	e.Must(nil, "chat.delete", b["chatId"])
	apptest.Eq(t, "events", eventTypes(e.Events()), []string{"chat_deleted", "group_updated", "group_chat_deleted"})
	var g map[string]any
	e.Must(&g, "groups.get", "g1")
	apptest.Eq(t, "chat_id", g["chat_id"], "a")
	apptest.Eq(t, "chats", g["chats"], []any{"g1", "a"})
}

// TestGroupAutoModeRoutes: groups.setAutoMode and groups.autoMode answer
// { chatId, on, delaySeconds }; a change sends GROUP_AUTO_MODE_CHANGED,
// no change nothing; bad arguments are refused, changing nothing and
// sending nothing.
func TestGroupAutoModeRoutes(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat()
	e.Must(nil, "groups.create", map[string]any{"id": "g1", "members": []string{e.Avatar}, "auto_mode_delay": 999})
	var chat map[string]any
	e.Must(&chat, "chat.create", map[string]any{"groupId": "g1"})
	chatID := chat["chatId"].(string)
	e.Events()
	state := func() map[string]any {
		var st map[string]any
		e.Must(&st, "groups.autoMode", chatID)
		return st
	}
	off := map[string]any{"chatId": chatID, "on": false, "delaySeconds": 999.0}
	on := map[string]any{"chatId": chatID, "on": true, "delaySeconds": 999.0}
	for _, c := range []struct{ name, method, raw, code string }{
		{"on a string", "groups.setAutoMode", `["` + chatID + `", "yes"]`, "validation.invalid_argument"},
		{"on null", "groups.setAutoMode", `["` + chatID + `", null]`, "validation.invalid_argument"},
		{"on missing", "groups.setAutoMode", `["` + chatID + `"]`, "validation.invalid_argument"},
		{"on 1", "groups.setAutoMode", `["` + chatID + `", 1]`, "validation.invalid_argument"},
		{"chatId a number", "groups.setAutoMode", `[7, true]`, "validation.invalid_argument"},
		{"a character's chat", "groups.setAutoMode", `["` + e.ChatID + `", true]`, "validation.invalid_argument"},
		{"unknown chat", "groups.setAutoMode", `["nope", true]`, "chat.not_found"},
		{"read a character's chat", "groups.autoMode", `["` + e.ChatID + `"]`, "validation.invalid_argument"},
		{"read an unknown chat", "groups.autoMode", `["nope"]`, "chat.not_found"},
		{"read without a chat", "groups.autoMode", `[]`, "validation.invalid_argument"},
	} {
		_, err := e.CallRaw(c.method, c.raw)
		if apptest.Code(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Fatalf("bad calls published %v", eventTypes(evs))
	}
	apptest.Eq(t, "state", state(), off)

	var got map[string]any
	e.Must(&got, "groups.setAutoMode", chatID, false)
	apptest.Eq(t, "off when off", got, off)
	e.Must(&got, "groups.setAutoMode", chatID, true)
	apptest.Eq(t, "on", got, on)
	apptest.Eq(t, "state", state(), on)
	e.Must(&got, "groups.setAutoMode", chatID, true)
	e.Must(&got, "groups.setAutoMode", chatID, false)
	apptest.Eq(t, "off", got, off)
	evs := e.Events()
	if got := eventTypes(evs); !slices.Equal(got, []string{"group_auto_mode_changed", "group_auto_mode_changed"}) {
		t.Fatalf("events %v", got)
	}
	p := evs[1].Payload.(*events.GroupAutoModePayload)
	apptest.Eq(t, "payload", *p, events.GroupAutoModePayload{ChatID: chatID, GroupID: "g1", On: false, DelaySeconds: 999, Reason: "set"})
}
