package host_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"reflect"
	"slices"
	"strings"
	"testing"

	"hearth/backend/app/apptest"
	"hearth/backend/events"
)

type personaDTO struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	AvatarURL   *string `json:"avatarUrl"`
	Position    int     `json:"position"`
	Depth       int     `json:"depth"`
	Role        int     `json:"role"`
	IsDefault   bool    `json:"isDefault"`
	IsActive    bool    `json:"isActive"`
}

// personaIDs names the personas a scenario's prepare made.
type personaIDs map[string]string

// personaScenario is one personas.* call against a fresh app with a chat.
type personaScenario struct {
	name    string
	prepare func(e *apptest.Env, ids personaIDs)
	method  string
	args    func(e *apptest.Env, ids personaIDs) []any
	// rawArgs, when set, is sent verbatim (fractions, wrong types).
	rawArgs    func(e *apptest.Env, ids personaIDs) string
	wantErr    string
	wantEvents []string
	check      func(t *testing.T, e *apptest.Env, ids personaIDs, out json.RawMessage, evs []events.Event)
}

// personaState is everything a personas.* call could change: the
// personas, the active one, the one in effect in the chat, and the chat.
func personaState(e *apptest.Env) string {
	var parts []json.RawMessage
	for _, call := range []struct {
		method string
		args   []any
	}{{"personas.list", nil}, {"personas.active", nil}, {"personas.effective", []any{e.ChatID}}} {
		out, err := e.Call(call.method, call.args...)
		if err != nil {
			e.T.Fatalf("%s: %v", call.method, err)
		}
		parts = append(parts, out)
	}
	b, _ := json.Marshal(parts)
	return string(b) + e.Snapshot()
}

func runPersonaScenarios(t *testing.T, scenarios []personaScenario) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			e := apptest.NewEnv(t, nil)
			e.SetupChat()
			ids := personaIDs{}
			if sc.prepare != nil {
				sc.prepare(e, ids)
			}
			e.Events()
			before := personaState(e)
			var out json.RawMessage
			var err error
			if sc.rawArgs != nil {
				out, err = e.CallRaw(sc.method, sc.rawArgs(e, ids))
			} else {
				var args []any
				if sc.args != nil {
					args = sc.args(e, ids)
				}
				out, err = e.Call(sc.method, args...)
			}
			evs := e.Events()
			if got := apptest.Code(err); got != sc.wantErr {
				t.Fatalf("%s: error %q (%v), want %q", sc.method, got, err, sc.wantErr)
			}
			if err != nil {
				if len(evs) != 0 {
					t.Errorf("a failed call published %v", eventTypes(evs))
				}
				if after := personaState(e); after != before {
					t.Errorf("a failed call changed something:\nbefore %s\nafter  %s", before, after)
				}
				return
			}
			if got := eventTypes(evs); !slices.Equal(got, sc.wantEvents) {
				t.Errorf("events %v, want %v", got, sc.wantEvents)
			}
			if sc.check != nil {
				sc.check(t, e, ids, out, evs)
			}
		})
	}
}

func eventTypes(evs []events.Event) []string {
	out := []string{}
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

func decodePersona(t *testing.T, raw json.RawMessage) *personaDTO {
	t.Helper()
	var p *personaDTO
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return p
}

// makePersona saves a persona named name and records its id.
func makePersona(e *apptest.Env, ids personaIDs, name string, extra map[string]any) {
	in := map[string]any{"name": name, "description": name + " is the user."}
	for k, v := range extra {
		in[k] = v
	}
	var p personaDTO
	e.Must(&p, "personas.save", in)
	ids[name] = p.ID
}

func twoPersonas(e *apptest.Env, ids personaIDs) {
	makePersona(e, ids, "Wren", nil)
	makePersona(e, ids, "Ash", nil)
}

func onePNG(t testing.TB) string {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// changedPayload checks the PERSONA_CHANGED payload (the first event).
func changedPayload(t *testing.T, evs []events.Event, want map[string]any) {
	t.Helper()
	b, _ := json.Marshal(evs[0].Payload)
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PERSONA_CHANGED %v, want %v", got, want)
	}
}

func TestPersonasContract(t *testing.T) {
	t.Parallel()
	changed := []string{events.PersonaChanged}
	metaUpdated := []string{events.ChatMetadataUpdated}
	runPersonaScenarios(t, []personaScenario{
		{name: "save creates", method: "personas.save",
			args: func(*apptest.Env, personaIDs) []any {
				return []any{map[string]any{"name": " Wren ", "description": "Keeps the lanterns.", "position": 1,
					"avatar": map[string]any{"base64": onePNG(t), "mime": "image/png"}}}
			},
			wantEvents: changed,
			check: func(t *testing.T, e *apptest.Env, _ personaIDs, out json.RawMessage, evs []events.Event) {
				p := decodePersona(t, out)
				if p.Name != "Wren" || p.Position != 0 || p.Depth != 2 || p.Role != 0 || p.IsActive || p.IsDefault ||
					p.AvatarURL == nil || !strings.HasPrefix(*p.AvatarURL, "/api/persona-avatar/"+p.ID) {
					t.Errorf("saved %+v", p)
				}
				changedPayload(t, evs, map[string]any{"personaId": p.ID, "change": "saved", "activeId": nil, "defaultId": nil})
			}},
		{name: "save updates and keeps the rest", prepare: twoPersonas, method: "personas.save",
			args: func(_ *apptest.Env, ids personaIDs) []any {
				return []any{map[string]any{"id": ids["Wren"], "position": 4, "depth": 0, "role": 1}}
			},
			wantEvents: changed,
			check: func(t *testing.T, _ *apptest.Env, _ personaIDs, out json.RawMessage, _ []events.Event) {
				if p := decodePersona(t, out); p.Name != "Wren" || p.Description != "Wren is the user." || p.Position != 4 || p.Depth != 0 || p.Role != 1 {
					t.Errorf("updated %+v", p)
				}
			}},
		{name: "save without a name", method: "personas.save", wantErr: "validation.invalid_argument",
			args: func(*apptest.Env, personaIDs) []any { return []any{map[string]any{"description": "x"}} }},
		{name: "save a name with a newline", method: "personas.save", wantErr: "validation.invalid_argument",
			args: func(*apptest.Env, personaIDs) []any { return []any{map[string]any{"name": "a\nb"}} }},
		{name: "save position 5", prepare: twoPersonas, method: "personas.save", wantErr: "validation.invalid_argument",
			args: func(_ *apptest.Env, ids personaIDs) []any {
				return []any{map[string]any{"id": ids["Wren"], "name": "Changed", "position": 5}}
			}},
		{name: "save a fractional depth", prepare: twoPersonas, method: "personas.save", wantErr: "validation.invalid_argument",
			rawArgs: func(_ *apptest.Env, ids personaIDs) string { return `[{"id":"` + ids["Wren"] + `","depth":1.5}]` }},
		{name: "save a depth of null (NaN) on update", prepare: twoPersonas, method: "personas.save", wantErr: "validation.invalid_argument",
			rawArgs: func(_ *apptest.Env, ids personaIDs) string { return `[{"id":"` + ids["Wren"] + `","depth":null}]` }},
		{name: "save a position of null (NaN) on update", prepare: twoPersonas, method: "personas.save", wantErr: "validation.invalid_argument",
			rawArgs: func(_ *apptest.Env, ids personaIDs) string { return `[{"id":"` + ids["Wren"] + `","position":null}]` }},
		{name: "save a role of null (NaN) on update", prepare: twoPersonas, method: "personas.save", wantErr: "validation.invalid_argument",
			rawArgs: func(_ *apptest.Env, ids personaIDs) string { return `[{"id":"` + ids["Wren"] + `","role":null}]` }},
		{name: "create with a depth of null (NaN)", method: "personas.save", wantErr: "validation.invalid_argument",
			rawArgs: func(*apptest.Env, personaIDs) string { return `[{"name":"Nan","position":4,"depth":null}]` }},
		{name: "create with position, depth and role left out", method: "personas.save", wantEvents: changed,
			rawArgs: func(*apptest.Env, personaIDs) string { return `[{"name":"Plain"}]` },
			check: func(t *testing.T, _ *apptest.Env, _ personaIDs, out json.RawMessage, _ []events.Event) {
				if p := decodePersona(t, out); p.Position != 0 || p.Depth != 2 || p.Role != 0 {
					t.Errorf("defaults %+v", p)
				}
			}},
		{name: "save a depth as a string", method: "personas.save", wantErr: "validation.invalid_argument",
			rawArgs: func(*apptest.Env, personaIDs) string { return `[{"name":"x","depth":"2"}]` }},
		{name: "save an avatar that is no image", method: "personas.save", wantErr: "validation.invalid_argument",
			args: func(*apptest.Env, personaIDs) []any {
				return []any{map[string]any{"name": "x", "avatar": "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("<html>"))}}
			}},
		{name: "save not an object", method: "personas.save", wantErr: "validation.invalid_argument",
			args: func(*apptest.Env, personaIDs) []any { return []any{"Wren"} }},
		{name: "save to a missing id", method: "personas.save", wantErr: "persona.not_found",
			args: func(*apptest.Env, personaIDs) []any { return []any{map[string]any{"id": "missing", "name": "x"}} }},
		{name: "list", prepare: twoPersonas, method: "personas.list",
			check: func(t *testing.T, _ *apptest.Env, _ personaIDs, out json.RawMessage, _ []events.Event) {
				var list []personaDTO
				_ = json.Unmarshal(out, &list)
				if len(list) != 2 || list[0].Name != "Ash" || list[1].Name != "Wren" {
					t.Errorf("list %+v", list)
				}
			}},
		{name: "get a missing id", method: "personas.get", wantErr: "persona.not_found",
			args: func(*apptest.Env, personaIDs) []any { return []any{"missing"} }},
		{name: "get a number", method: "personas.get", wantErr: "validation.invalid_argument",
			args: func(*apptest.Env, personaIDs) []any { return []any{5} }},
		{name: "setActive", prepare: twoPersonas, method: "personas.setActive",
			args:       func(_ *apptest.Env, ids personaIDs) []any { return []any{ids["Ash"]} },
			wantEvents: changed,
			check: func(t *testing.T, e *apptest.Env, ids personaIDs, out json.RawMessage, evs []events.Event) {
				if p := decodePersona(t, out); p == nil || p.ID != ids["Ash"] || !p.IsActive {
					t.Errorf("setActive returned %+v", p)
				}
				changedPayload(t, evs, map[string]any{"personaId": ids["Ash"], "change": "active", "activeId": ids["Ash"], "defaultId": nil})
				var eff *personaDTO
				e.Must(&eff, "personas.effective", e.ChatID)
				if eff == nil || eff.ID != ids["Ash"] {
					t.Errorf("effective %+v", eff)
				}
			}},
		{name: "setActive null", prepare: func(e *apptest.Env, ids personaIDs) {
			twoPersonas(e, ids)
			e.Must(nil, "personas.setActive", ids["Ash"])
		}, method: "personas.setActive", args: func(*apptest.Env, personaIDs) []any { return []any{nil} }, wantEvents: changed,
			check: func(t *testing.T, e *apptest.Env, _ personaIDs, out json.RawMessage, _ []events.Event) {
				var active *personaDTO
				e.Must(&active, "personas.active")
				if string(out) != "null" || active != nil {
					t.Errorf("setActive(null) %s, active %+v", out, active)
				}
			}},
		{name: "setActive a missing id", method: "personas.setActive", wantErr: "persona.not_found",
			args: func(*apptest.Env, personaIDs) []any { return []any{"missing"} }},
		{name: "setActive a number", method: "personas.setActive", wantErr: "validation.invalid_argument",
			args: func(*apptest.Env, personaIDs) []any { return []any{1} }},
		{name: "setDefault", prepare: twoPersonas, method: "personas.setDefault",
			args: func(_ *apptest.Env, ids personaIDs) []any { return []any{ids["Wren"]} }, wantEvents: changed,
			check: func(t *testing.T, e *apptest.Env, ids personaIDs, out json.RawMessage, _ []events.Event) {
				var eff *personaDTO
				e.Must(&eff, "personas.effective")
				if p := decodePersona(t, out); !p.IsDefault || eff == nil || eff.ID != ids["Wren"] {
					t.Errorf("setDefault %+v, effective %+v", p, eff)
				}
			}},
		{name: "setDefault a missing id", method: "personas.setDefault", wantErr: "persona.not_found",
			args: func(*apptest.Env, personaIDs) []any { return []any{"missing"} }},
		{name: "lockToChat", prepare: twoPersonas, method: "personas.lockToChat",
			args:       func(e *apptest.Env, ids personaIDs) []any { return []any{e.ChatID, ids["Wren"]} },
			wantEvents: metaUpdated,
			check: func(t *testing.T, e *apptest.Env, ids personaIDs, out json.RawMessage, evs []events.Event) {
				var res struct {
					Revision int64       `json:"revision"`
					Persona  *personaDTO `json:"persona"`
				}
				_ = json.Unmarshal(out, &res)
				if res.Revision != e.Revision() || res.Persona == nil || res.Persona.ID != ids["Wren"] {
					t.Errorf("lockToChat %s", out)
				}
				if p, _ := evs[0].Payload.(*events.ChatMetadataUpdatedPayload); p == nil || p.ChatID != e.ChatID {
					t.Errorf("event %+v", p)
				}
				var meta struct {
					Metadata map[string]any `json:"metadata"`
				}
				e.Must(&meta, "chat.get", e.ChatID)
				if meta.Metadata["persona"] != ids["Wren"] {
					t.Errorf("metadata %v", meta.Metadata)
				}
			}},
		{name: "lockToChat null unlocks", prepare: func(e *apptest.Env, ids personaIDs) {
			twoPersonas(e, ids)
			e.Must(nil, "personas.lockToChat", e.ChatID, ids["Wren"])
		}, method: "personas.lockToChat", args: func(e *apptest.Env, _ personaIDs) []any { return []any{e.ChatID, nil} },
			wantEvents: metaUpdated,
			check: func(t *testing.T, e *apptest.Env, _ personaIDs, out json.RawMessage, _ []events.Event) {
				var meta struct {
					Metadata map[string]any `json:"metadata"`
				}
				e.Must(&meta, "chat.get", e.ChatID)
				if _, ok := meta.Metadata["persona"]; ok || !strings.Contains(string(out), `"persona":null`) {
					t.Errorf("unlock %s, metadata %v", out, meta.Metadata)
				}
			}},
		{name: "lockToChat without a persona", prepare: twoPersonas, method: "personas.lockToChat", wantErr: "validation.invalid_argument",
			args: func(e *apptest.Env, _ personaIDs) []any { return []any{e.ChatID} }},
		{name: "lockToChat a missing chat", prepare: twoPersonas, method: "personas.lockToChat", wantErr: "chat.not_found",
			args: func(_ *apptest.Env, ids personaIDs) []any { return []any{"no-such-chat", ids["Wren"]} }},
		{name: "lockToChat a missing persona", method: "personas.lockToChat", wantErr: "persona.not_found",
			args: func(e *apptest.Env, _ personaIDs) []any { return []any{e.ChatID, "missing"} }},
		{name: "lockToChat a number", prepare: twoPersonas, method: "personas.lockToChat", wantErr: "validation.invalid_argument",
			args: func(_ *apptest.Env, ids personaIDs) []any { return []any{7, ids["Wren"]} }},
		{name: "delete clears active, default and locks", prepare: func(e *apptest.Env, ids personaIDs) {
			twoPersonas(e, ids)
			e.Must(nil, "personas.setActive", ids["Wren"])
			e.Must(nil, "personas.setDefault", ids["Wren"])
			e.Must(nil, "personas.lockToChat", e.ChatID, ids["Wren"])
		}, method: "personas.delete", args: func(_ *apptest.Env, ids personaIDs) []any { return []any{ids["Wren"]} },
			wantEvents: []string{events.PersonaChanged, events.ChatMetadataUpdated},
			check: func(t *testing.T, e *apptest.Env, ids personaIDs, _ json.RawMessage, evs []events.Event) {
				changedPayload(t, evs, map[string]any{"personaId": ids["Wren"], "change": "deleted", "activeId": nil, "defaultId": nil})
				var list []personaDTO
				var eff *personaDTO
				e.Must(&list, "personas.list")
				e.Must(&eff, "personas.effective", e.ChatID)
				if len(list) != 1 || list[0].Name != "Ash" || eff != nil {
					t.Errorf("after delete: list %+v, effective %+v", list, eff)
				}
				if p, _ := evs[1].Payload.(*events.ChatMetadataUpdatedPayload); p == nil || p.ChatRevision != (events.ChatRevision{ChatID: e.ChatID, Revision: e.Revision()}) {
					t.Errorf("CHAT_METADATA_UPDATED %+v (revision now %d)", p, e.Revision())
				}
			}},
		{name: "delete a missing id", method: "personas.delete", wantErr: "persona.not_found",
			args: func(*apptest.Env, personaIDs) []any { return []any{"missing"} }},
		{name: "effective of a missing chat", method: "personas.effective", wantErr: "chat.not_found",
			args: func(*apptest.Env, personaIDs) []any { return []any{"no-such-chat"} }},
		{name: "effective with none", method: "personas.effective",
			args: func(e *apptest.Env, _ personaIDs) []any { return []any{e.ChatID} },
			check: func(t *testing.T, _ *apptest.Env, _ personaIDs, out json.RawMessage, _ []events.Event) {
				if string(out) != "null" {
					t.Errorf("effective %s", out)
				}
			}},
	})
}

// Messages made without a name, greetings and appendMessage's user role
// take the name of the persona in effect in their chat.
func TestMessagesTakeThePersonaName(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	ids := personaIDs{}
	twoPersonas(e, ids)
	e.Must(nil, "personas.setActive", ids["Wren"])
	var card map[string]any
	e.Must(&card, "characters.create", map[string]any{"name": "Seraphina", "first_mes": "Welcome, {{user}}."})
	var sum map[string]any
	e.Must(&sum, "chat.create", map[string]any{"avatar": card["avatar"]})
	e.ChatID = sum["chatId"].(string)
	msgs := e.StMessages()
	if msgs[0]["mes"] != "Welcome, Wren." {
		t.Fatalf("greeting %v", msgs[0]["mes"])
	}
	e.Must(nil, "chat.addMessages", e.ChatID, map[string]any{"is_user": true, "mes": "one"})
	e.Must(nil, "personas.lockToChat", e.ChatID, ids["Ash"])
	e.Must(nil, "chat.appendMessage", e.ChatID, map[string]any{"role": "user", "content": "two"})
	msgs = e.StMessages()
	if msgs[1]["name"] != "Wren" || msgs[2]["name"] != "Ash" {
		t.Fatalf("names %v, %v", msgs[1]["name"], msgs[2]["name"])
	}
}

func TestCapabilitiesListPersonas(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	var c struct {
		Namespaces map[string]int `json:"namespaces"`
		Methods    []string       `json:"methods"`
	}
	e.Must(&c, "host.capabilities")
	if c.Namespaces["personas"] != 1 {
		t.Errorf("namespaces %v", c.Namespaces)
	}
	for _, m := range []string{"save", "list", "get", "delete", "setActive", "active", "setDefault", "lockToChat", "effective"} {
		if !slices.Contains(c.Methods, "personas."+m) {
			t.Errorf("personas.%s is not listed", m)
		}
	}
}
