package host_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/app/apptest"
	"hearth/backend/events"
)

type presetItemDTO struct {
	Identifier string `json:"identifier"`
	Name       string `json:"name"`
	Enabled    bool   `json:"enabled"`
	Role       string `json:"role"`
	Content    string `json:"content"`
	Marker     bool   `json:"marker"`
	InChat     bool   `json:"inChat"`
	Depth      int    `json:"depth"`
}

type presetDTO struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Sampling struct {
		Temperature *float64 `json:"temperature"`
		TopK        *int     `json:"topK"`
		MaxTokens   int      `json:"maxTokens"`
		Stop        []string `json:"stop"`
	} `json:"sampling"`
	MaxContext int             `json:"maxContext"`
	Prompts    []presetItemDTO `json:"prompts"`
}

type presetSummaryDTO struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Builtin bool   `json:"builtin"`
	Active  bool   `json:"active"`
}

// presetEvents are the PresetChanged payloads' ids since the last call.
func presetEvents(e *apptest.Env) []string {
	var ids []string
	for _, ev := range e.Events() {
		if ev.Type == events.PresetChanged {
			ids = append(ids, ev.Payload.(*events.PresetChangedPayload).PresetID)
		}
	}
	return ids
}

// presetSnapshot is everything presets.* could change.
func presetSnapshot(e *apptest.Env) string {
	var parts []json.RawMessage
	list, err := e.Call("presets.list")
	if err != nil {
		e.T.Fatal(err)
	}
	active, err := e.Call("presets.active")
	if err != nil {
		e.T.Fatal(err)
	}
	parts = append(parts, list, active)
	var sums []presetSummaryDTO
	_ = json.Unmarshal(list, &sums)
	for _, s := range sums {
		p, err := e.Call("presets.get", s.ID)
		if err != nil {
			e.T.Fatal(err)
		}
		parts = append(parts, p)
	}
	b, _ := json.Marshal(parts)
	return string(b)
}

func TestPresetsLifecycle(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)

	var caps struct {
		Namespaces map[string]int `json:"namespaces"`
		Methods    []string       `json:"methods"`
	}
	e.Must(&caps, "host.capabilities")
	var methods []string
	for _, m := range caps.Methods {
		if strings.HasPrefix(m, "presets.") {
			methods = append(methods, m)
		}
	}
	apptest.Eq(t, "presets methods", methods, []string{"presets.active", "presets.delete", "presets.export", "presets.get",
		"presets.import", "presets.list", "presets.save", "presets.select"})
	if caps.Namespaces["presets"] != 1 {
		t.Errorf("namespaces %v", caps.Namespaces)
	}

	var list []presetSummaryDTO
	e.Must(&list, "presets.list")
	if len(list) != 1 || list[0].ID != "default" || !list[0].Builtin || !list[0].Active {
		t.Fatalf("fresh list %+v", list)
	}
	var p presetDTO
	e.Must(&p, "presets.get", "default")
	if p.Name != "Default" || len(p.Prompts) != 12 || p.MaxContext != 8192 {
		t.Fatalf("default %+v", p)
	}

	// Fields left out take the defaults; samplers left out stay unset.
	var mine presetDTO
	e.Must(&mine, "presets.save", map[string]any{"name": "Mine", "sampling": map[string]any{"temperature": 0.8, "maxTokens": 400}, "maxContext": 16384})
	if mine.ID == "" || mine.Name != "Mine" || *mine.Sampling.Temperature != 0.8 || mine.Sampling.TopK != nil || mine.Sampling.Stop == nil ||
		len(mine.Prompts) != 12 || mine.MaxContext != 16384 {
		t.Fatalf("saved %+v", mine)
	}
	if ids := presetEvents(e); len(ids) != 0 {
		t.Errorf("saving an inactive preset announced %v", ids)
	}

	var sel presetDTO
	e.Must(&sel, "presets.select", mine.ID)
	if sel.ID != mine.ID {
		t.Fatalf("select returned %+v", sel)
	}
	apptest.Eq(t, "events after select", presetEvents(e), []string{mine.ID})
	var active presetDTO
	e.Must(&active, "presets.active")
	if active.ID != mine.ID {
		t.Fatalf("active %s", active.ID)
	}

	// A whole replace: toggle and reorder items, add one in chat.
	items := mine.Prompts
	items[0], items[1] = items[1], items[0]
	items[2].Enabled = false
	items = append(items, presetItemDTO{Identifier: "style", Name: "Style", Enabled: true, Role: "user", Content: "Be vivid.", InChat: true, Depth: 2})
	e.Must(&mine, "presets.save", map[string]any{"id": mine.ID, "name": "Mine v2", "prompts": items, "maxContext": 16384})
	apptest.Eq(t, "events after saving the active preset", presetEvents(e), []string{mine.ID})
	var got presetDTO
	e.Must(&got, "presets.get", mine.ID)
	apptest.Eq(t, "stored prompts", got.Prompts, items)
	if got.Name != "Mine v2" || got.Sampling.Temperature != nil {
		t.Errorf("whole replace kept %+v", got)
	}

	e.Must(nil, "presets.delete", mine.ID)
	apptest.Eq(t, "events after deleting the active preset", presetEvents(e), []string{"default"})
	e.Must(&active, "presets.active")
	if active.ID != "default" {
		t.Fatalf("active after delete %s", active.ID)
	}
	e.Must(&list, "presets.list")
	if len(list) != 1 {
		t.Fatalf("list after delete %+v", list)
	}
	var none presetDTO
	e.Must(&none, "presets.select", nil)
	if none.ID != "default" {
		t.Errorf("select(null) %+v", none)
	}
	if ids := presetEvents(e); len(ids) != 0 {
		t.Errorf("selecting the already active default announced %v", ids)
	}
}

// Refused calls: the right code, nothing changed, no event.
func TestPresetsRefusalsChangeNothing(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	var p presetDTO
	e.Must(&p, "presets.save", map[string]any{"name": "Kept", "sampling": map[string]any{"temperature": 1}})
	e.Must(nil, "presets.select", p.ID)
	e.Events()
	before := presetSnapshot(e)

	noHistory := []map[string]any{{"identifier": "main", "content": "x"}}
	cases := []struct {
		method string
		args   []any
		code   string
		msg    string
	}{
		{"presets.save", []any{map[string]any{"id": "default", "name": "Default"}}, "preset.builtin", "save a copy"},
		{"presets.delete", []any{"default"}, "preset.builtin", "cannot be deleted"},
		{"presets.save", nil, "validation.invalid_argument", "preset is required"},
		{"presets.save", []any{"nope"}, "validation.invalid_argument", "preset must be an object"},
		{"presets.save", []any{map[string]any{"name": ""}}, "validation.invalid_argument", "name must be"},
		{"presets.save", []any{map[string]any{"id": p.ID, "name": "x", "sampling": map[string]any{"temperature": 2.5}}}, "validation.invalid_argument", "sampling.temperature"},
		{"presets.save", []any{map[string]any{"id": p.ID, "name": "x", "sampling": map[string]any{"topK": "40"}}}, "validation.invalid_argument", "sampling.topK must be an integer"},
		{"presets.save", []any{map[string]any{"id": p.ID, "name": "x", "sampling": map[string]any{"maxTokens": 9000}, "maxContext": 8192}}, "validation.invalid_argument", "maxContext"},
		{"presets.save", []any{map[string]any{"id": p.ID, "name": "x", "prompts": noHistory}}, "validation.invalid_argument", "chatHistory"},
		// null is what JSON makes of NaN: refused for the plain integers,
		// never read as the default (the preset is the active one).
		{"presets.save", []any{map[string]any{"id": p.ID, "name": "Kept", "maxContext": nil}}, "validation.invalid_argument", "maxContext must be an integer, got null"},
		{"presets.save", []any{map[string]any{"id": p.ID, "name": "Kept", "sampling": map[string]any{"maxTokens": nil}}}, "validation.invalid_argument", "sampling.maxTokens must be an integer, got null"},
		{"presets.save", []any{map[string]any{"id": p.ID, "name": "Kept", "prompts": []map[string]any{{"identifier": "chatHistory"}, {"identifier": "x", "inChat": true, "depth": nil}}}}, "validation.invalid_argument", "prompts[1].depth must be an integer, got null"},
		{"presets.save", []any{map[string]any{"id": p.ID, "name": "x", "prompts": []map[string]any{{"identifier": "chatHistory"}, {"identifier": "chatHistory"}}}}, "validation.invalid_argument", "unique"},
		{"presets.save", []any{map[string]any{"id": p.ID, "name": "x", "prompts": []map[string]any{{"identifier": "chatHistory", "role": "narrator"}}}}, "validation.invalid_argument", "role"},
		{"presets.save", []any{map[string]any{"id": "missing", "name": "x"}}, "preset.not_found", "missing"},
		{"presets.get", []any{"missing"}, "preset.not_found", ""},
		{"presets.get", []any{5}, "validation.invalid_argument", "id must be a string"},
		{"presets.delete", []any{"missing"}, "preset.not_found", ""},
		{"presets.export", []any{"missing"}, "preset.not_found", ""},
		{"presets.select", []any{"missing"}, "preset.not_found", ""},
		{"presets.select", []any{7}, "validation.invalid_argument", "string or null"},
		{"presets.import", []any{"text"}, "validation.invalid_argument", "import must be an object"},
		{"presets.import", []any{map[string]any{"fileName": "x.json"}}, "validation.invalid_argument", "json is required"},
		{"presets.import", []any{map[string]any{"fileName": "x.json", "json": "not json"}}, "validation.invalid_argument", "not valid JSON"},
		{"presets.import", []any{map[string]any{"fileName": "x.json", "json": 12}}, "validation.invalid_argument", "text (a string) or its object"},
		{"presets.import", []any{map[string]any{"fileName": "x.json", "json": map[string]any{"temperature": "hot"}}}, "validation.invalid_argument", "temperature must be a number"},
		{"presets.import", []any{map[string]any{"fileName": "x.json", "json": map[string]any{"openai_max_context": 100}}}, "validation.invalid_argument", "openai_max_context"},
		{"presets.import", []any{map[string]any{"fileName": "x.json", "json": strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70)}}, "validation.invalid_argument", "levels deep"},
		{"presets.import", []any{map[string]any{"fileName": 3, "json": map[string]any{"temperature": 1}}}, "validation.invalid_argument", "fileName must be a string"},
	}
	for _, c := range cases {
		_, err := e.Call(c.method, c.args...)
		if apptest.Code(err) != c.code || (c.msg != "" && !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("%s %v: %v, want %s containing %q", c.method, c.args, err, c.code, c.msg)
		}
	}
	if after := presetSnapshot(e); after != before {
		t.Errorf("refused calls changed presets:\n%s\n%s", before, after)
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Errorf("refused calls published %v", evs)
	}
}

// Import a SillyTavern file as its text, export it, import that again:
// the same preset, under the next free name.
func TestPresetsImportExport(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	raw, err := os.ReadFile(filepath.Join("..", "presets", "testdata", "st-roleplay.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Preset   json.RawMessage `json:"preset"`
		Warnings []string        `json:"warnings"`
	}
	e.Must(&res, "presets.import", map[string]any{"fileName": "Slow burn.json", "json": string(raw)})
	var p presetDTO
	_ = json.Unmarshal(res.Preset, &p)
	if p.Name != "Slow burn" || p.MaxContext != 32768 || *p.Sampling.TopK != 40 || len(res.Warnings) != 3 {
		t.Fatalf("import %+v warnings %q", p, res.Warnings)
	}
	if ids := presetEvents(e); len(ids) != 0 {
		t.Errorf("import announced %v", ids)
	}
	var ex struct {
		FileName string          `json:"fileName"`
		JSON     json.RawMessage `json:"json"`
	}
	e.Must(&ex, "presets.export", p.ID)
	if ex.FileName != "Slow burn.json" || !strings.Contains(string(ex.JSON), `"prompt_order"`) {
		t.Fatalf("export %s %s", ex.FileName, ex.JSON)
	}
	var again struct {
		Preset   json.RawMessage `json:"preset"`
		Warnings []string        `json:"warnings"`
	}
	e.Must(&again, "presets.import", map[string]any{"fileName": ex.FileName, "json": ex.JSON})
	var q map[string]any
	var orig map[string]any
	_ = json.Unmarshal(again.Preset, &q)
	_ = json.Unmarshal(res.Preset, &orig)
	if q["name"] != "Slow burn (2)" || len(again.Warnings) != 0 {
		t.Fatalf("re-import %v %q", q["name"], again.Warnings)
	}
	delete(q, "id")
	delete(q, "name")
	delete(orig, "id")
	delete(orig, "name")
	apptest.Eq(t, "export → import", q, orig)
	var list []presetSummaryDTO
	e.Must(&list, "presets.list")
	if len(list) != 3 || list[1].Name != "Slow burn" || list[2].Name != "Slow burn (2)" {
		t.Errorf("list %+v", list)
	}
}
