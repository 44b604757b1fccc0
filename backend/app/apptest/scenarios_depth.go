package apptest

import (
	"encoding/json"
	"strings"
	"testing"

	"hearth/backend/jsonx"
)

// Nested returns a JSON object nested depth levels deep ({"d":{"d":…}}),
// raw so that even depths encoding/json refuses to build can be sent.
func Nested(depth int) json.RawMessage {
	if depth <= 0 {
		return json.RawMessage(`1`)
	}
	return json.RawMessage(strings.Repeat(`{"d":`, depth-1) + `{}` + strings.Repeat(`}`, depth-1))
}

func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// DepthScenarios cover the nesting limit (jsonx.MaxDepth): any argument
// nested deeper is refused before a handler runs, and no write may store a
// value deeper than that, whatever path a patch takes to get there.
func DepthScenarios() []Scenario {
	limit := jsonx.MaxDepth
	fields := func(extDepth int) func(e *Env) string {
		return func(e *Env) string {
			return `[{"name":"Deep","extensions":` + string(Nested(extDepth)) + `}]`
		}
	}
	return []Scenario{
		{Name: "create with a card exactly at the limit", Method: "characters.create", OtherChat: true,
			RawArgs: fields(limit - 1), WantEvents: []string{"character_created"},
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				Eq(t, "stored depth", jsonx.Depth(out), limit)
			}},
		{Name: "create with a card one level past the limit", Method: "characters.create", RawArgs: fields(limit), WantErr: "validation.invalid_argument"},
		{Name: "create with a card nested 9,000 levels", Method: "characters.create", RawArgs: fields(9000), WantErr: "validation.invalid_argument"},
		{Name: "create with a card nested past encoding/json's own limit", Method: "characters.create", RawArgs: fields(12000), WantErr: "validation.invalid_argument"},
		{Name: "update deep-merging extensions past the limit", Method: "characters.update",
			RawArgs: func(e *Env) string { return "[" + quoted(e.Avatar) + `,{"extensions":` + string(Nested(limit)) + "}]" },
			WantErr: "validation.invalid_argument"},
		{Name: "add a message whose extra is past the limit", Method: "chat.addMessages", Messages: Three(),
			RawArgs: func(e *Env) string {
				return "[" + quoted(e.ChatID) + `,{"mes":"deep","extra":` + string(Nested(limit)) + "}]"
			},
			WantErr: "validation.invalid_argument"},
		{Name: "add a message exactly at the limit", Method: "chat.addMessages", Messages: Three(),
			RawArgs: func(e *Env) string {
				return "[" + quoted(e.ChatID) + `,{"mes":"deep","extra":` + string(Nested(limit-1)) + "}]"
			},
			WantEvents: []string{"message_received"},
			Check: func(t *testing.T, e *Env, _ json.RawMessage) {
				out, err := e.Call("chat.getStMessages", e.ChatID, map[string]any{"tail": 1})
				if err != nil {
					t.Fatal(err)
				}
				msgs := Decode[[]map[string]json.RawMessage](t, out)
				Eq(t, "stored extra depth", jsonx.Depth(msgs[0]["extra"]), limit-1)
				// The array around it, and swipe_info's two levels around
				// each swipe's copy of extra, which Hearth adds itself.
				Eq(t, "read depth", jsonx.Depth(out), limit+3)
			}},
		{Name: "update a message's extra past the limit", Method: "chat.updateMessages", Messages: Three(),
			RawArgs: func(e *Env) string {
				return "[" + quoted(e.ChatID) + `,{"index":1,"patch":{"extra":` + string(Nested(limit-1)) + "}}]"
			},
			WantErr: "validation.invalid_argument"},
		{Name: "patch that nests a value below a deep path past the limit", Method: "chat.patch", Messages: Three(),
			RawArgs: func(e *Env) string {
				return "[" + quoted(e.ChatID) + `,[` +
					`{"op":"add","path":"/messages/1/extra/a","value":{}},` +
					`{"op":"add","path":"/messages/1/extra/a/b","value":{}},` +
					`{"op":"add","path":"/messages/1/extra/a/b/c","value":` + string(Nested(limit-3)) + `}]]`
			},
			WantErr: "validation.invalid_argument"},
		{Name: "patch that nests metadata past the limit", Method: "chat.patch", Messages: Three(),
			RawArgs: func(e *Env) string {
				return "[" + quoted(e.ChatID) + `,[` +
					`{"op":"add","path":"/metadata/a","value":{}},` +
					`{"op":"add","path":"/metadata/a/b","value":{}},` +
					`{"op":"add","path":"/metadata/a/b/c","value":` + string(Nested(limit-2)) + `}]]`
			},
			WantErr: "validation.invalid_argument"},
		{Name: "save metadata past the limit", Method: "chat.saveMetadata", Messages: Three(),
			RawArgs: func(e *Env) string { return "[" + quoted(e.ChatID) + `,{"x":` + string(Nested(limit)) + "}]" },
			WantErr: "validation.invalid_argument"},
		{Name: "spindle metadata past the limit", Method: "chat.updateMessage", Messages: Three(),
			RawArgs: func(e *Env) string {
				return "[" + quoted(e.ChatID) + "," + quoted(e.IDs[0]) + `,{"metadata":` + string(Nested(limit-1)) + "}]"
			},
			WantErr: "validation.invalid_argument"},
		{Name: "a read with an argument past the limit", Method: "chat.getMessages",
			RawArgs: func(e *Env) string { return "[" + quoted(e.ChatID) + "," + string(Nested(limit+1)) + "]" },
			WantErr: "validation.invalid_argument"},
	}
}
