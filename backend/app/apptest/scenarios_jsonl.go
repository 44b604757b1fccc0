package apptest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// jsonlFile is a small SillyTavern chat file with unknown keys in the
// header, chat_metadata, a message, its extra and a swipe_info entry; its
// second message has a swipe_info shorter than its swipes, as
// SillyTavern writes greetings.
func jsonlFile(eol string) string {
	return strings.Join([]string{
		`{"user_name":"Wren","character_name":"Seraphina","create_date":"2025-03-01@18h04m12s","chat_metadata":{"note_prompt":"lanterns","x_meta":{"n":[1,2]}},"x_header":true}`,
		`{"name":"Wren","is_user":true,"is_system":false,"send_date":"2025-03-01T18:05:40.000Z","mes":"Hello.","x_msg":{"a":1},"extra":{"x_extra":"e"}}`,
		`{"name":"Seraphina","is_user":false,"is_system":false,"send_date":"2025-03-01T18:06:00.000Z","mes":"Second.","swipe_id":1,"swipes":["First.","Second."],"swipe_info":[{"send_date":"2025-03-01T18:05:50.000Z","extra":{"model":"m0"},"x_info":0}],"extra":{"model":"m1"}}`,
	}, eol)
}

// importArgs are chat.importJsonl's arguments for the scenario character.
func importArgs(fileName string, text any) func(e *Env) []any {
	return func(e *Env) []any {
		return []any{map[string]any{"avatar": e.Avatar}, map[string]any{"fileName": fileName, "text": text}}
	}
}

// exported is chat.exportJsonl's answer.
type exported struct {
	FileName string `json:"fileName"`
	Text     string `json:"text"`
}

// lines decodes JSONL text line by line.
func lines(t testing.TB, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(text, "\n") {
		out = append(out, Decode[map[string]any](t, json.RawMessage(l)))
	}
	return out
}

// JsonlScenarios cover SillyTavern JSONL import and export (HOST-ABI §3.8).
func JsonlScenarios() []Scenario {
	return []Scenario{
		{Name: "export a chat", Messages: Three(), Method: "chat.exportJsonl", Args: func(e *Env) []any { return []any{e.ChatID} }, NoOp: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				file := Decode[exported](t, out)
				var sum map[string]any
				e.Must(&sum, "chat.get", e.ChatID)
				Eq(t, "fileName", file.FileName, sum["fileName"].(string)+".jsonl")
				got := lines(t, file.Text)
				Eq(t, "lines", len(got), 4)
				Eq(t, "header names", []any{got[0]["user_name"], got[0]["character_name"]}, []any{"User", "Seraphina"})
				Eq(t, "header metadata", got[0]["chat_metadata"], map[string]any{})
				st := e.StMessages()
				for i, m := range st {
					delete(m, "id")
					Eq(t, fmt.Sprintf("line %d", i+2), got[i+1], m)
				}
			}},
		{Name: "export an unknown chat", Method: "chat.exportJsonl", Args: func(e *Env) []any { return []any{"no-such-chat"} }, WantErr: "chat.not_found"},
		{Name: "export without a chatId", Method: "chat.exportJsonl", WantErr: "validation.invalid_argument"},
		{Name: "import a file with unknown keys", Method: "chat.importJsonl", Args: importArgs("Imported.jsonl", jsonlFile("\n")),
			WantEvents: []string{"chat_created"}, OtherChat: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				sum := Decode[map[string]any](t, out)
				Eq(t, "summary", []any{sum["fileName"], sum["file_name"], sum["messageCount"], sum["revision"], sum["kind"], sum["avatar"]},
					[]any{"Imported", "Imported.jsonl", 2, 0, "main", e.Avatar})
				id := sum["chatId"].(string)
				var st []map[string]any
				e.Must(&st, "chat.getStMessages", id)
				CheckInvariants(t, st)
				Eq(t, "unknown message key", st[0]["x_msg"], map[string]any{"a": 1})
				Eq(t, "unknown extra key", Extra(st, 0)["x_extra"], "e")
				info := st[1]["swipe_info"].([]any)
				Eq(t, "given swipe_info entry kept", info[0].(map[string]any)["x_info"], 0)
				Eq(t, "active swipe's entry built from the message", info[1].(map[string]any)["extra"], map[string]any{"model": "m1"})
				var meta map[string]any
				e.Must(&meta, "chat.getMetadata", id)
				Eq(t, "metadata", meta, map[string]any{"note_prompt": "lanterns", "x_meta": map[string]any{"n": []any{1, 2}}})
				var file exported
				e.Must(&file, "chat.exportJsonl", id)
				got, want := lines(t, file.Text), lines(t, jsonlFile("\n"))
				Eq(t, "exported header", got[0], want[0])
				for k, v := range want[1] { // plus the swipe fields derived from mes
					Eq(t, "exported first message's "+k, got[1][k], v)
				}

				// A bad file names its line, over every transport.
				_, err := e.Call("chat.importJsonl", map[string]any{"avatar": e.Avatar},
					map[string]any{"fileName": "Broken", "text": jsonlFile("\n") + "\n\n{\"mes\": oops}"})
				ae := apperr.As(err)
				if ae == nil || ae.Code != apperr.CodeInvalidArgument || fmt.Sprint(ae.Details["line"]) != "5" || !strings.Contains(ae.Message, "line 5") {
					t.Errorf("bad line 5: %v (details %v)", err, ae)
				}
				var list []any
				e.Must(&list, "chat.list", map[string]any{"avatar": e.Avatar})
				Eq(t, "chats after the bad import", len(list), 2)
			}},
		{Name: "import its own export", Messages: Three(), Method: "chat.importJsonl",
			Args: func(e *Env) []any {
				var file exported
				e.Must(&file, "chat.exportJsonl", e.ChatID)
				return importArgs("Copy", file.Text)(e)
			},
			WantEvents: []string{"chat_created"}, OtherChat: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				id := Decode[map[string]any](t, out)["chatId"].(string)
				var st []map[string]any
				e.Must(&st, "chat.getStMessages", id)
				orig := e.StMessages()
				for i := range orig {
					if st[i]["id"] == orig[i]["id"] {
						t.Errorf("message %d kept the source's id %v", i, st[i]["id"])
					}
					delete(st[i], "id")
					delete(orig[i], "id")
				}
				Eq(t, "messages", st, orig)
			}},
		{Name: "import CRLF with a BOM and no header", Method: "chat.importJsonl",
			Args:       importArgs("Headerless", "\uFEFF"+strings.SplitN(jsonlFile("\r\n"), "\r\n", 2)[1]+"\r\n"),
			WantEvents: []string{"chat_created"}, OtherChat: true,
			Check: func(t *testing.T, e *Env, out json.RawMessage) {
				sum := Decode[map[string]any](t, out)
				Eq(t, "messages", sum["messageCount"], 2)
				var meta map[string]any
				e.Must(&meta, "chat.getMetadata", sum["chatId"])
				Eq(t, "metadata", meta, map[string]any{})
			}},
		{Name: "import with a taken name", Messages: Three(), Method: "chat.importJsonl",
			Prepare: func(e *Env) {
				e.Must(nil, "chat.create", map[string]any{"avatar": e.Avatar}, map[string]any{"fileName": "Taken"})
			},
			Args: importArgs("Taken.jsonl", jsonlFile("\n")), WantErr: "chat.name_taken"},
		{Name: "import bad JSON on line 3", Method: "chat.importJsonl",
			Args:    importArgs("Bad", strings.Join([]string{`{"chat_metadata":{}}`, `{"mes":"ok"}`, `{"mes":`}, "\n")),
			WantErr: "validation.invalid_argument"},
		{Name: "import a line that is not an object", Method: "chat.importJsonl",
			Args: importArgs("Bad", `{"chat_metadata":{}}`+"\n[1,2]"), WantErr: "validation.invalid_argument"},
		{Name: "import a swipe_id out of range", Method: "chat.importJsonl",
			Args: importArgs("Bad", `{"mes":"a","swipes":["a"],"swipe_id":3}`), WantErr: "validation.invalid_argument"},
		{Name: "import a message nested past the limit", Method: "chat.importJsonl",
			Args:    importArgs("Bad", `{"mes":"a","extra":`+string(Nested(jsonx.MaxDepth))+`}`),
			WantErr: "validation.invalid_argument"},
		{Name: "import an empty file", Method: "chat.importJsonl", Args: importArgs("Bad", "\r\n"), WantErr: "validation.invalid_argument"},
		{Name: "import without text", Method: "chat.importJsonl", Args: importArgs("Bad", nil), WantErr: "validation.invalid_argument"},
		{Name: "import text that is not a string", Method: "chat.importJsonl", Args: importArgs("Bad", map[string]any{}), WantErr: "validation.invalid_argument"},
		{Name: "import a bad file name", Method: "chat.importJsonl", Args: importArgs("a/b", jsonlFile("\n")), WantErr: "validation.invalid_argument"},
		{Name: "import for an unknown character", Method: "chat.importJsonl",
			Args: func(e *Env) []any {
				return []any{map[string]any{"avatar": "nobody.png"}, map[string]any{"text": jsonlFile("\n")}}
			},
			WantErr: "character.not_found"},
		{Name: "import without an owner", Method: "chat.importJsonl",
			Args: func(e *Env) []any { return []any{map[string]any{}, map[string]any{"text": jsonlFile("\n")}} }, WantErr: "validation.invalid_argument"},
	}
}
