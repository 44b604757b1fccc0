package presets

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/prompt"
)

func TestValidateRefuses(t *testing.T) {
	t.Parallel()
	withItem := func(f func(*prompt.Item)) func(*prompt.Preset) {
		return func(p *prompt.Preset) { f(&p.Prompts[0]) }
	}
	cases := []struct {
		field string
		edit  func(*prompt.Preset)
	}{
		{"name", func(p *prompt.Preset) { p.Name = "" }},
		{"name", func(p *prompt.Preset) { p.Name = strings.Repeat("n", 201) }},
		{"name", func(p *prompt.Preset) { p.Name = "a\nb" }},
		{"sampling.temperature", func(p *prompt.Preset) { p.Sampling.Temperature = f64(2.01) }},
		{"sampling.temperature", func(p *prompt.Preset) { p.Sampling.Temperature = f64(-0.1) }},
		{"sampling.temperature", func(p *prompt.Preset) { p.Sampling.Temperature = f64(math.NaN()) }},
		{"sampling.topP", func(p *prompt.Preset) { p.Sampling.TopP = f64(1.5) }},
		{"sampling.topK", func(p *prompt.Preset) { p.Sampling.TopK = intp(-1) }},
		{"sampling.topK", func(p *prompt.Preset) { p.Sampling.TopK = intp(1001) }},
		{"sampling.minP", func(p *prompt.Preset) { p.Sampling.MinP = f64(1.01) }},
		{"sampling.frequencyPenalty", func(p *prompt.Preset) { p.Sampling.FrequencyPenalty = f64(-2.5) }},
		{"sampling.presencePenalty", func(p *prompt.Preset) { p.Sampling.PresencePenalty = f64(2.5) }},
		{"sampling.repetitionPenalty", func(p *prompt.Preset) { p.Sampling.RepetitionPenalty = f64(3.5) }},
		{"sampling.maxTokens", func(p *prompt.Preset) { p.Sampling.MaxTokens = -1 }},
		{"sampling.maxTokens", func(p *prompt.Preset) { p.Sampling.MaxTokens = 1_000_001; p.MaxContext = 2_000_000 }},
		{"maxContext", func(p *prompt.Preset) { p.MaxContext = 511 }},
		{"maxContext", func(p *prompt.Preset) { p.MaxContext = 4_000_001 }},
		{"maxContext", func(p *prompt.Preset) { p.MaxContext = 1024; p.Sampling.MaxTokens = 1024 }},
		{"sampling.stop", func(p *prompt.Preset) { p.Sampling.Stop = make([]string, 17) }},
		{"sampling.stop[1]", func(p *prompt.Preset) { p.Sampling.Stop = []string{"a", ""} }},
		{"sampling.stop[0]", func(p *prompt.Preset) { p.Sampling.Stop = []string{strings.Repeat("s", 201)} }},
		{"sampling.reasoningEffort", func(p *prompt.Preset) { p.Sampling.ReasoningEffort = "max" }},
		{"continueNudge", func(p *prompt.Preset) { p.ContinueNudge = strings.Repeat("x", maxContent+1) }},
		{"exampleSeparator", func(p *prompt.Preset) { p.ExampleSeparator = strings.Repeat("x", maxContent+1) }},
		{"prompts[0].identifier", withItem(func(it *prompt.Item) { it.Identifier = " " })},
		{"prompts[1].identifier", withItem(func(it *prompt.Item) { it.Identifier = prompt.DefaultPreset().Prompts[1].Identifier })},
		{"prompts[0].name", withItem(func(it *prompt.Item) { it.Name = strings.Repeat("n", 201) })},
		{"prompts[0].role", withItem(func(it *prompt.Item) { it.Role = "narrator" })},
		{"prompts[0].content", withItem(func(it *prompt.Item) { it.Content = strings.Repeat("x", maxContent+1) })},
		{"prompts[0].depth", withItem(func(it *prompt.Item) { it.Depth = 10001 })},
		{"prompts[0].depth", withItem(func(it *prompt.Item) { it.Depth = -1 })},
		{"prompts[1].inChat", func(p *prompt.Preset) { p.Prompts[1].InChat = true }},
		{"prompts", func(p *prompt.Preset) { p.Prompts = p.Prompts[:10] }},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d_%s", i, c.field), func(t *testing.T) {
			t.Parallel()
			p := mine("ok")
			c.edit(&p)
			err := validate(&p)
			ae := apperr.As(err)
			if ae == nil || ae.Code != apperr.CodeInvalidArgument || ae.Details["field"] != c.field {
				t.Fatalf("error %v (details %v), want one about %s", err, detailsOf(ae), c.field)
			}
		})
	}
	p := mine("ok")
	p.Prompts = make([]prompt.Item, 201)
	if err := validate(&p); apperr.CodeOf(err) != apperr.CodeTooMany {
		t.Errorf("201 prompts: %v", err)
	}
}

func detailsOf(ae *apperr.Error) map[string]any {
	if ae == nil {
		return nil
	}
	return ae.Details
}

// The edges of every range are allowed.
func TestValidateAcceptsEdges(t *testing.T) {
	t.Parallel()
	p := mine(strings.Repeat("é", 200))
	p.Sampling = prompt.Sampling{Temperature: f64(2), TopP: f64(0), TopK: intp(1000), MinP: f64(1), FrequencyPenalty: f64(-2),
		PresencePenalty: f64(2), RepetitionPenalty: f64(3), MaxTokens: 1_000_000, Stop: make([]string, 16), Seed: i64(math.MinInt64), ReasoningEffort: "high"}
	for i := range p.Sampling.Stop {
		p.Sampling.Stop[i] = strings.Repeat("s", 200)
	}
	p.MaxContext = 4_000_000
	p.Prompts[0].Depth = 10000
	p.Prompts[0].Content = strings.Repeat("x", maxContent)
	if err := validate(&p); err != nil {
		t.Fatal(err)
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	p, err := Decode([]byte(`{"name": "Mine", "sampling": {"temperature": 0.5, "topK": null}, "prompts": [{"identifier": "chatHistory"}, {"identifier": "x", "enabled": false, "content": "c"}], "newChatPrompt": ""}`))
	if err != nil {
		t.Fatal(err)
	}
	d := prompt.DefaultPreset()
	if p.ID != "" || p.Name != "Mine" || *p.Sampling.Temperature != 0.5 || p.Sampling.TopK != nil || p.Sampling.MaxTokens != d.Sampling.MaxTokens ||
		p.MaxContext != d.MaxContext || p.NewChatPrompt != "" || p.ContinueNudge != d.ContinueNudge {
		t.Errorf("decoded %+v", p)
	}
	if !p.Prompts[0].Enabled || p.Prompts[1].Enabled || p.Prompts[1].Content != "c" {
		t.Errorf("items %+v", p.Prompts)
	}
	// Samplers may be null (not sent); the plain integers are refused
	// null above but may be left out.
	p, err = Decode([]byte(`{"name": "x", "sampling": {"temperature": null, "topP": null, "topK": null, "minP": null, "frequencyPenalty": null, "presencePenalty": null, "repetitionPenalty": null, "seed": null}, "prompts": [{"identifier": "chatHistory"}]}`))
	if err != nil || p.Sampling.Temperature != nil || p.Sampling.TopK != nil || p.Sampling.Seed != nil ||
		p.Sampling.MaxTokens != d.Sampling.MaxTokens || p.MaxContext != d.MaxContext || p.Prompts[0].Depth != 0 {
		t.Errorf("nullable samplers: %+v %v", p, err)
	}
	// Prompts left out are the default order.
	p, err = Decode([]byte(`{"name": "x", "id": "abc"}`))
	if err != nil || p.ID != "abc" || !reflect.DeepEqual(p.Prompts, d.Prompts) {
		t.Errorf("%+v %v", p, err)
	}

	for in, want := range map[string]string{
		`[]`:                                 "preset must be an object",
		`{"name": 5}`:                        "name must be a string",
		`{"sampling": 5}`:                    "sampling must be an object",
		`{"sampling": {"temperature": "1"}}`: "sampling.temperature must be a number",
		`{"sampling": {"topK": 1.5}}`:        "sampling.topK must be an integer",
		`{"sampling": {"stop": "x"}}`:        "sampling.stop must be an array",
		`{"maxContext": "8k"}`:               "maxContext must be an integer",
		`{"prompts": {}}`:                    "prompts must be an array of objects",
		`{"prompts": [1]}`:                   "prompts[0] must be an object",
		`{"prompts": [{"enabled": 1}]}`:      "prompts[0].enabled must be a boolean",
		`{"prompts": [{}, {"depth": "3"}]}`:  "prompts[1].depth must be an integer",
		`{"maxContext": null}`:               "maxContext must be an integer, got null",
		`{"sampling": {"maxTokens": null}}`:  "sampling.maxTokens must be an integer, got null",
		`{"prompts": [{}, {"depth": null}]}`: "prompts[1].depth must be an integer, got null",
		`{"continuePrefill": "yes"}`:         "continuePrefill must be a boolean",
		`{"name": "x", "prompts": [` + strings.Repeat(`{},`, 200) + `{}]}`: "at most 200",
	} {
		if _, err := Decode([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%.60s) = %v, want %q", in, err, want)
		}
	}
}
