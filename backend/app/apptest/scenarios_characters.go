package apptest

import (
	"encoding/base64"
	"encoding/json"
	"testing"
)

// tinyPNG is a valid 1x1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

func avatarArgs(rest ...any) func(e *Env) []any {
	return func(e *Env) []any { return append([]any{e.Avatar}, rest...) }
}

// CharacterScenarios cover api.characters (the minimal set of this release).
func CharacterScenarios() []Scenario {
	return []Scenario{
		{Name: "create fills V2 defaults and a unique avatar", Method: "characters.create", OtherChat: true,
			Args: func(e *Env) []any {
				return []any{map[string]any{"name": "Seraphina", "tags": []string{"fantasy"}, "custom_field": 1}}
			},
			WantEvents: []string{"character_created"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				c := Decode[map[string]any](t, out)
				Eq(t, "avatar", c["avatar"], "Seraphina1.png")
				Eq(t, "defaults", []any{c["description"], c["first_mes"], c["alternate_greetings"]}, []any{"", "", []any{}})
				Eq(t, "unknown kept", c["custom_field"], 1)
				var list []map[string]any
				e.Must(&list, "characters.list")
				Eq(t, "listed", len(list), 2)
			}},
		{Name: "create with image", Method: "characters.create", OtherChat: true,
			Args: func(e *Env) []any {
				return []any{map[string]any{"name": "Pic"}, map[string]any{"image": "data:image/png;base64," + base64.StdEncoding.EncodeToString(tinyPNG)}}
			},
			WantEvents: []string{"character_created"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				c := Decode[map[string]any](t, out)
				path, err := e.App.Characters.ImagePath(t.Context(), c["avatar"].(string))
				if err != nil || path == "" {
					t.Errorf("image path = %q, %v", path, err)
				}
				Eq(t, "hasImage", c["hasImage"], true)
				var list []map[string]any
				e.Must(&list, "characters.list")
				for _, l := range list {
					Eq(t, "listed hasImage of "+l["name"].(string), l["hasImage"], l["avatar"] == c["avatar"])
				}
			}},
		{Name: "create without name", Method: "characters.create", Args: func(e *Env) []any { return []any{map[string]any{"description": "x"}} }, WantErr: "validation.invalid_argument"},
		{Name: "create with wrong field type", Method: "characters.create", Args: func(e *Env) []any { return []any{map[string]any{"name": "A", "tags": "x"}} }, WantErr: "validation.invalid_argument"},
		{Name: "create with a non-image", Method: "characters.create",
			Args: func(e *Env) []any {
				return []any{map[string]any{"name": "A"}, map[string]any{"image": base64.StdEncoding.EncodeToString([]byte("<svg onload=alert(1)>"))}}
			}, WantErr: "validation.invalid_argument"},
		{Name: "update merges, extensions deep", Method: "characters.update", OtherChat: true,
			Prepare: func(e *Env) {
				e.Must(nil, "characters.update", e.Avatar, map[string]any{"extensions": map[string]any{"a": map[string]any{"x": 1, "y": 2}, "keep": true}})
			},
			Args: avatarArgs(map[string]any{"description": "new", "extensions": map[string]any{"a": map[string]any{"y": 3}}}), WantEvents: []string{"character_edited"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				c := Decode[map[string]any](t, out)
				Eq(t, "description", c["description"], "new")
				Eq(t, "extensions", c["extensions"], map[string]any{"a": map[string]any{"x": 1, "y": 3}, "keep": true})
				Eq(t, "avatar unchanged", c["avatar"], e.Avatar)
			}},
		{Name: "update unknown", Method: "characters.update", Args: func(e *Env) []any { return []any{"ghost.png", map[string]any{"name": "x"}} }, WantErr: "character.not_found"},
		{Name: "update empty name", Method: "characters.update", Args: avatarArgs(map[string]any{"name": " "}), WantErr: "validation.invalid_argument"},
		{Name: "delete keeps chats unless asked", Method: "characters.delete", OtherChat: true, Messages: Three(),
			Args: avatarArgs(), WantEvents: []string{"characterDeleted"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				var n int
				e.Must(&n, "chat.count", e.ChatID)
				Eq(t, "chat kept", n, 3)
			}},
		{Name: "delete with chats", Method: "characters.delete", OtherChat: true, Messages: Three(),
			Args: avatarArgs(map[string]any{"deleteChats": true}), WantEvents: []string{"characterDeleted"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				if _, err := e.Call("chat.count", e.ChatID); Code(err) != "chat.not_found" {
					t.Errorf("chat survived: %v", err)
				}
			}},
		{Name: "delete unknown", Method: "characters.delete", Args: func(e *Env) []any { return []any{"ghost.png"} }, WantErr: "character.not_found"},
	}
}
