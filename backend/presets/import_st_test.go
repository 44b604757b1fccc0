package presets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/prompt"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// importOK maps a file and checks the result would be accepted by Save.
func importOK(t testing.TB, fileName string, raw []byte) (prompt.Preset, []string) {
	t.Helper()
	p, warn, err := FromST(fileName, raw)
	if err != nil {
		t.Fatalf("FromST(%s): %v", fileName, err)
	}
	normalize(&p)
	if err := validate(&p); err != nil {
		t.Fatalf("FromST(%s) made an invalid preset: %v", fileName, err)
	}
	return p, warn
}

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }
func intp(v int) *int        { return &v }

// SillyTavern's own default preset is Hearth's default prompt order
// (its 100001 order, with the persona), with its samplers and budgets;
// its "off" samplers stay unset, and nothing needs a warning.
func TestFromSTDefault(t *testing.T) {
	t.Parallel()
	p, warn := importOK(t, "Default.json", readFixture(t, "st-default.json"))
	if len(warn) != 0 {
		t.Errorf("warnings: %q", warn)
	}
	if p.Name != "Default" || p.ID != "" {
		t.Errorf("name %q id %q", p.Name, p.ID)
	}
	def := prompt.DefaultPreset()
	if !reflect.DeepEqual(p.Prompts, def.Prompts) {
		got, _ := json.MarshalIndent(p.Prompts, "", " ")
		t.Errorf("prompts differ from prompt.DefaultPreset():\n%s", got)
	}
	want := prompt.Sampling{Temperature: f64(1), TopP: f64(1), FrequencyPenalty: f64(0), PresencePenalty: f64(0), MaxTokens: 300, Stop: []string{}}
	if !reflect.DeepEqual(p.Sampling, want) {
		t.Errorf("sampling %+v", p.Sampling)
	}
	if p.MaxContext != 4095 || p.NamesInHistory || p.ContinuePrefill || p.MergeConsecutive {
		t.Errorf("maxContext %d flags %v %v %v", p.MaxContext, p.NamesInHistory, p.ContinuePrefill, p.MergeConsecutive)
	}
	if !strings.HasPrefix(p.ContinueNudge, "[Continue the following message.") || p.ExampleSeparator != "[Example Chat]" || p.NewChatPrompt != "[Start a new Chat]" {
		t.Errorf("texts %q %q %q", p.ContinueNudge, p.ExampleSeparator, p.NewChatPrompt)
	}
}

// A community preset: the 100001 order wins over 100000, definitions fill
// it in, a built-in marker without a definition comes from the default,
// an unknown one is dropped, an unlisted prompt is kept disabled at the
// end, and what Hearth cannot apply is reported.
func TestFromSTRoleplay(t *testing.T) {
	t.Parallel()
	p, warn := importOK(t, `C:\Users\me\Downloads\Slow burn RP v2.json`, readFixture(t, "st-roleplay.json"))
	if p.Name != "Slow burn RP v2" {
		t.Errorf("name %q", p.Name)
	}
	want := prompt.Sampling{Temperature: f64(0.85), TopP: f64(0.95), TopK: intp(40), MinP: f64(0.05), FrequencyPenalty: f64(0.1),
		PresencePenalty: f64(0.2), RepetitionPenalty: f64(1.05), MaxTokens: 800, Stop: []string{}, Seed: i64(1234), ReasoningEffort: "high"}
	if !reflect.DeepEqual(p.Sampling, want) {
		g, _ := json.Marshal(p.Sampling)
		t.Errorf("sampling %s", g)
	}
	if p.MaxContext != 32768 || !p.NamesInHistory || !p.ContinuePrefill {
		t.Errorf("maxContext %d names %v prefill %v", p.MaxContext, p.NamesInHistory, p.ContinuePrefill)
	}
	if p.ImpersonationPrompt != "[Write {{user}}'s next reply.]" || p.NewChatPrompt != "[Start of the roleplay]" ||
		p.ExampleSeparator != "[Example exchange]" || p.ContinueNudge != "[Continue: {{lastChatMessage}}]" {
		t.Errorf("texts %+v", p)
	}
	type row struct {
		id      string
		enabled bool
		role    string
		marker  bool
		inChat  bool
		depth   int
	}
	var got []row
	for _, it := range p.Prompts {
		got = append(got, row{it.Identifier, it.Enabled, it.Role, it.Marker, it.InChat, it.Depth})
	}
	wantRows := []row{
		{"main", true, "system", false, false, 0},
		{"personaDescription", true, "system", true, false, 0},
		{"charDescription", true, "system", true, false, 0},
		{"scenario", false, "system", true, false, 0},
		{"9f0b-ooc-note", true, "system", false, false, 4},
		{"dialogueExamples", true, "system", true, false, 0},
		{"chatHistory", true, "system", true, false, 0},
		{"5c1d2a7e-style-guide", true, "user", false, true, 2},
		{"jailbreak", true, "system", false, false, 0},
		{"b7aa-unused", false, "assistant", false, false, 0},
	}
	if !reflect.DeepEqual(got, wantRows) {
		t.Errorf("prompt order:\n got %v\nwant %v", got, wantRows)
	}
	if p.Prompts[1].Name != "Persona Description" || p.Prompts[7].Content != "[Style: vivid, sensory, third person past tense.]" {
		t.Errorf("items %+v %+v", p.Prompts[1], p.Prompts[7])
	}
	joined := strings.Join(warn, "\n")
	for _, w := range []string{"summary_ext_prompt", "assistant_prefill", "scenario_format"} {
		if !strings.Contains(joined, w) {
			t.Errorf("no warning about %s in %q", w, warn)
		}
	}
	if len(warn) != 3 {
		t.Errorf("warnings %q", warn)
	}
}

func TestFromSTOrderAndDefinitions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		file   string
		ids    []string
		warned []string
	}{
		{"no prompts: the default order", `{"temperature": 0.7}`, idsOf(prompt.DefaultPreset().Prompts), []string{"no prompts"}},
		{"prompts without an order", `{"prompts": [{"identifier": "mine", "content": "x"}, {"identifier": "main", "content": "M"}]}`,
			append(idsOf(prompt.DefaultPreset().Prompts), "mine"), []string{"no prompt_order"}},
		{"100000 when there is no 100001", `{"prompt_order": [{"character_id": 7, "order": [{"identifier": "main"}]}, {"character_id": 100000, "order": [{"identifier": "chatHistory", "enabled": true}]}]}`,
			[]string{"chatHistory"}, nil},
		{"else the first", `{"prompt_order": [{"character_id": 7, "order": [{"identifier": "main", "enabled": true}, {"identifier": "chatHistory", "enabled": true}]}, {"character_id": 8, "order": []}]}`,
			[]string{"main", "chatHistory"}, nil},
		{"no chatHistory: added", `{"prompt_order": [{"character_id": 100001, "order": [{"identifier": "main", "enabled": true}]}]}`,
			[]string{"main", "chatHistory"}, []string{"no chatHistory"}},
		{"duplicates", `{"prompts": [{"identifier": "a", "content": "1"}, {"identifier": "a", "content": "2"}, {"name": "nameless"}], "prompt_order": [{"character_id": 100001, "order": [{"identifier": "a", "enabled": true}, {"identifier": "a", "enabled": false}, {"identifier": "chatHistory", "enabled": true}, {"enabled": true}]}]}`,
			[]string{"a", "chatHistory"}, []string{"defined twice", "names \"a\" twice", "\"nameless\" has no identifier", "entry has no identifier"}},
		{"odd roles and positions", `{"prompts": [{"identifier": "x", "role": "narrator", "injection_position": 2}, {"identifier": "chatHistory", "injection_position": 1}, {"identifier": "z", "forbid_overrides": true}], "prompt_order": [{"character_id": 100001, "order": [{"identifier": "x"}, {"identifier": "chatHistory"}, {"identifier": "z"}]}]}`,
			[]string{"x", "chatHistory", "z"}, []string{"role \"narrator\"", "injection_position 2", "marker \"chatHistory\" cannot be placed in chat", "forbids overrides"}},
		{"effort and names", `{"temperature": 1, "reasoning_effort": "turbo", "names_behavior": 1}`, idsOf(prompt.DefaultPreset().Prompts), []string{"reasoning_effort \"turbo\"", "completion object", "no prompts"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, warn := importOK(t, "x.json", []byte(c.file))
			if got := idsOf(p.Prompts); !reflect.DeepEqual(got, c.ids) {
				t.Errorf("ids %v, want %v", got, c.ids)
			}
			joined := strings.Join(warn, "\n")
			for _, w := range c.warned {
				if !strings.Contains(joined, w) {
					t.Errorf("no warning %q in %q", w, warn)
				}
			}
			if len(warn) != len(c.warned) {
				t.Errorf("warnings %q, want %d", warn, len(c.warned))
			}
		})
	}
}

func idsOf(items []prompt.Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Identifier)
	}
	return out
}

// The in-chat prompt without a depth takes SillyTavern's default depth 4;
// the file may also be given as its text.
func TestFromSTDefaultDepthAndText(t *testing.T) {
	t.Parallel()
	text, _ := json.Marshal(`{"prompts": [{"identifier": "n", "content": "note", "injection_position": 1}], "prompt_order": [{"character_id": 100001, "order": [{"identifier": "chatHistory", "enabled": true}, {"identifier": "n", "enabled": true}]}]}`)
	p, _ := importOK(t, "Note", text)
	if p.Name != "Note" || !p.Prompts[1].InChat || p.Prompts[1].Depth != 4 {
		t.Errorf("%+v", p)
	}
}

func TestFromSTRefusesBadFiles(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, 80) + "1" + strings.Repeat("}", 80)
	huge, _ := json.Marshal(map[string]any{"temperature": 1, "prompts": []map[string]any{{"identifier": "a", "content": strings.Repeat("x", maxBody)}}})
	cases := []struct {
		name, file, want string
	}{
		{"not JSON", `"{temperature: 1"`, "not valid JSON"},
		{"a number", `5`, "text (a string) or its object"},
		{"an array as text", `"[1, 2]"`, "not an object"},
		{"empty object", `{}`, "not a SillyTavern chat-completion preset"},
		{"textgen preset", `{"temp": 0.7, "rep_pen": 1.1}`, "not a SillyTavern chat-completion preset"},
		{"deep", `{"temperature": 1, "x": ` + deep + `}`, "levels deep"},
		{"huge", string(huge), "larger than 4 MiB"},
		{"temperature string", `{"temperature": "hot"}`, "temperature must be a number"},
		{"top_k fraction", `{"temperature": 1, "top_k": 4.5}`, "top_k must be an integer"},
		{"seed string", `{"temperature": 1, "seed": "42"}`, "seed must be an integer"},
		{"prompts object", `{"prompts": {"identifier": "x"}}`, "prompts must be an array of objects"},
		{"prompt not object", `{"prompts": [1]}`, "prompts[0] must be an object"},
		{"content number", `{"prompts": [{"identifier": "x", "content": 5}]}`, "prompts[0].content must be a string"},
		{"order wrong", `{"prompt_order": [{"character_id": 100001, "order": {"a": 1}}]}`, "prompt_order[0].order must be an array of objects"},
		{"enabled string", `{"prompt_order": [{"character_id": 100001, "order": [{"identifier": "main", "enabled": "yes"}]}]}`, "prompt_order[0].order[0].enabled must be a boolean"},
		{"stop wrong", `{"temperature": 1, "stop": "\n"}`, "stop must be an array of strings"},
		{"continue_prefill wrong", `{"temperature": 1, "continue_prefill": 1}`, "continue_prefill must be a boolean"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := FromST("x.json", []byte(c.file))
			if apperr.CodeOf(err) != apperr.CodeInvalidArgument || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// Mapped values out of Hearth's ranges are refused by validation with
// the SillyTavern key named.
func TestImportInvalidNamesTheSTKey(t *testing.T) {
	t.Parallel()
	p, _, err := FromST("x.json", []byte(`{"openai_max_context": 4096, "openai_max_tokens": 8000}`))
	if err != nil {
		t.Fatal(err)
	}
	normalize(&p)
	err = importInvalid(validate(&p))
	if apperr.CodeOf(err) != apperr.CodeInvalidArgument || !strings.Contains(err.Error(), "openai_max_context") || !strings.Contains(err.Error(), "imported preset") {
		t.Fatalf("%v", err)
	}
}

func TestNameFromFile(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Default.json": "Default", "a/b/My preset.v2.json": "My preset.v2", `C:\x\Dark.JSON`: "Dark",
		"": "Imported preset", ".json": "Imported preset", "tab\there.json": "tabhere", "noext": "noext",
		strings.Repeat("é", 300) + ".json": strings.Repeat("é", 200),
	} {
		if got := nameFromFile(in); got != want {
			t.Errorf("nameFromFile(%q) = %q, want %q", in, got, want)
		}
	}
	if got := fileNameFor(`a/b:c*?"<>|`); got != "a_b_c______.json" {
		t.Errorf("fileNameFor = %q", got)
	}
	if got := fileNameFor(".."); got != "preset.json" {
		t.Errorf("fileNameFor(..) = %q", got)
	}
}

// full is a preset that sets every field to a value that is not a
// normalization's input.
func full() prompt.Preset {
	p := prompt.DefaultPreset()
	p.ID, p.Name = "", "Everything set"
	p.Sampling = prompt.Sampling{Temperature: f64(0.7), TopP: f64(0.9), TopK: intp(64), MinP: f64(0.02), FrequencyPenalty: f64(-0.5),
		PresencePenalty: f64(1.25), RepetitionPenalty: f64(1.1), MaxTokens: 1024, Stop: []string{"\nUser:", "</s>"}, Seed: i64(-42), ReasoningEffort: "medium"}
	p.MaxContext = 200000
	p.MergeConsecutive, p.NamesInHistory, p.ContinuePrefill = true, true, true
	p.ContinueNudge, p.ImpersonationPrompt, p.NewChatPrompt, p.ExampleSeparator = "nudge {{lastChatMessage}}", "imp", "", "sep"
	p.Prompts[0].Content = "Main ✓ with \"quotes\" and\nnewlines"
	p.Prompts[3].Enabled = false
	p.Prompts = append(p.Prompts[:2], append([]prompt.Item{{Identifier: "custom-1", Name: "Custom", Enabled: true, Role: "assistant", Content: "c", InChat: true, Depth: 0},
		{Identifier: "custom-2", Name: "Odd marker", Role: "user", Marker: true, Depth: 9}}, p.Prompts[2:]...)...)
	return p
}

// Export then import gives the same preset back.
func TestSTRoundTrip(t *testing.T) {
	t.Parallel()
	d := prompt.DefaultPreset()
	d.ID = ""
	fromFile, _ := importOK(t, "Slow burn RP v2.json", readFixture(t, "st-roleplay.json"))
	for _, p := range []prompt.Preset{d, full(), fromFile} {
		normalize(&p)
		if err := validate(&p); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		raw, err := ToST(p)
		if err != nil {
			t.Fatal(err)
		}
		back, warn := importOK(t, fileNameFor(p.Name), raw)
		if len(warn) != 0 {
			t.Errorf("%s: warnings on re-import: %q", p.Name, warn)
		}
		if !reflect.DeepEqual(back, p) {
			a, _ := json.Marshal(p)
			b, _ := json.Marshal(back)
			t.Errorf("round trip of %s:\n in %s\nout %s", p.Name, a, b)
		}
	}
}

// FuzzImportST: no input panics, every accepted file makes a preset that
// either validates or is refused cleanly, and a valid one survives
// export and re-import unchanged.
func FuzzImportST(f *testing.F) {
	f.Add(readFixture(f, "st-default.json"))
	f.Add(readFixture(f, "st-roleplay.json"))
	f.Add([]byte(`{"temperature": 1e400}`))
	f.Add([]byte(`"{\"prompts\": [{\"identifier\": \"a\", \"injection_position\": 1}]}"`))
	f.Add([]byte(`{"prompt_order": [{"character_id": 100001, "order": [{"identifier": "chatHistory", "enabled": false}]}], "seed": 9007199254740993}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, warn, err := FromST("fuzz.json", data)
		if err != nil {
			if apperr.As(err) == nil {
				t.Fatalf("a non-host error: %v", err)
			}
			return
		}
		if warn == nil {
			t.Fatal("nil warnings")
		}
		normalize(&p)
		if err := validate(&p); err != nil {
			if apperr.As(err) == nil {
				t.Fatalf("a non-host validation error: %v", err)
			}
			return
		}
		raw, err := ToST(p)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := FromST("fuzz.json", raw)
		if err != nil {
			t.Fatalf("re-import: %v", err)
		}
		normalize(&back)
		if !reflect.DeepEqual(back, p) {
			a, _ := json.Marshal(p)
			b, _ := json.Marshal(back)
			t.Fatalf("round trip changed the preset:\n in %s\nout %s", a, b)
		}
	})
}
