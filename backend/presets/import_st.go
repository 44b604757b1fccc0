package presets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
	"hearth/backend/jsonx"
	"hearth/backend/prompt"
)

// SillyTavern's prompt_order keeps one order per character; these two
// ids are its global orders (100001 is what current versions edit,
// 100000 what older ones did).
const (
	stGlobalOrder = 100001
	stLegacyOrder = 100000
)

// stDefaultDepth is SillyTavern's injection depth for an in-chat prompt
// that names none (DEFAULT_DEPTH).
const stDefaultDepth = 4

// SillyTavern's names_behavior values Hearth tells apart: 1 sends names
// in the completion object's name field, 2 ("content") puts "Name: "
// before each message's text (-1 none and 0 default send none).
const (
	stNamesCompletion = 1
	stNamesContent    = 2
)

// FromST maps a SillyTavern chat-completion preset file onto a preset
// named after fileName. raw is the file's text as a JSON string, or the
// preset object itself. What the file says that Hearth cannot keep as it
// was is reported in the warnings; a file that is not such a preset
// (not JSON, too large or deep, wrong types) is a validation error.
//
// Normalizations, so presets from SillyTavern behave as they did there:
// top_k 0, min_p 0 and repetition_penalty 1 (SillyTavern's "off") and
// seed -1 (random) become unset (the provider's default);
// reasoning_effort "auto" is unset, "min" is "low", "max" is "high";
// names_behavior 2 (content) sets NamesInHistory, the others clear it;
// a prompt's injection_position 1 places it in chat at injection_depth
// (4 when missing); a prompt without a role is a system prompt.
func FromST(fileName string, raw []byte) (prompt.Preset, []string, error) {
	text, err := fileText(raw)
	if err != nil {
		return prompt.Preset{}, nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(text, &top); err != nil || top == nil {
		if t := bytes.TrimSpace(text); len(t) > 0 && t[0] != '{' && json.Valid(t) {
			return prompt.Preset{}, nil, apperr.Invalid("the file holds JSON but not an object: a SillyTavern preset is one")
		}
		return prompt.Preset{}, nil, apperr.Invalid("the file is not valid JSON: %s", jsonMessage(err))
	}
	r := stReader{m: top}
	if !r.looksLikePreset() {
		return prompt.Preset{}, nil, apperr.Invalid("the file is not a SillyTavern chat-completion preset: it has none of temperature, openai_max_context, openai_max_tokens, prompts, prompt_order")
	}
	p := prompt.DefaultPreset()
	p.ID, p.Name = "", nameFromFile(fileName)
	var warn []string
	if err := r.samplers(&p, &warn); err != nil {
		return prompt.Preset{}, nil, err
	}
	if err := r.texts(&p, &warn); err != nil {
		return prompt.Preset{}, nil, err
	}
	items, err := r.prompts(&warn)
	if err != nil {
		return prompt.Preset{}, nil, err
	}
	p.Prompts = items
	if warn == nil {
		warn = []string{}
	}
	return p, warn, nil
}

// fileText is the preset's JSON text: raw itself when it is an object,
// else the string raw holds; bounded in size and depth before parsing.
func fileText(raw []byte) ([]byte, error) {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return nil, apperr.Invalid("json must be the file's text or its object")
		}
		t = bytes.TrimSpace([]byte(s))
	} else if len(t) == 0 || t[0] != '{' {
		return nil, apperr.Invalid("json must be the file's text (a string) or its object")
	}
	if len(t) > maxBody {
		return nil, apperr.Invalid("the file is larger than %d MiB; a preset is far smaller", maxBody>>20).
			WithDetails(map[string]any{"maxBytes": maxBody})
	}
	if err := jsonx.CheckDepth(t, "the file"); err != nil {
		return nil, err
	}
	return t, nil
}

func jsonMessage(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}

// nameFromFile is a preset name from a file name: no folder, no
// extension, no control characters, at most maxName characters.
func nameFromFile(fileName string) string {
	base := fileName
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	base = strings.TrimSuffix(base, path.Ext(base))
	base = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, base)
	base = strings.TrimSpace(truncateRunes(base, maxName))
	if base == "" {
		return "Imported preset"
	}
	return base
}

// truncateRunes cuts s to at most n characters.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// importInvalid says that an imported preset broke a rule, naming the
// SillyTavern key behind the field where there is one.
func importInvalid(err error) error {
	ae := apperr.As(err)
	if ae == nil {
		return err
	}
	msg := "the imported preset is not valid: " + ae.Message
	if field, _ := ae.Details["field"].(string); stKeys[field] != "" {
		msg += " (SillyTavern's " + stKeys[field] + ")"
	}
	return &apperr.Error{Code: ae.Code, Message: msg, Details: ae.Details}
}

// stKeys names the SillyTavern key of a preset field.
var stKeys = map[string]string{
	"sampling.temperature": "temperature", "sampling.topP": "top_p", "sampling.topK": "top_k",
	"sampling.minP": "min_p", "sampling.frequencyPenalty": "frequency_penalty",
	"sampling.presencePenalty": "presence_penalty", "sampling.repetitionPenalty": "repetition_penalty",
	"sampling.maxTokens": "openai_max_tokens", "maxContext": "openai_max_context", "sampling.stop": "stop",
	"continueNudge": "continue_nudge_prompt", "impersonationPrompt": "impersonation_prompt",
	"newChatPrompt": "new_chat_prompt", "exampleSeparator": "new_example_chat_prompt",
	"groupNudge": "group_nudge_prompt", "newGroupChatPrompt": "new_group_chat_prompt",
}

// samplers maps the sampler keys and the two budgets.
func (r stReader) samplers(p *prompt.Preset, warn *[]string) error {
	s := &p.Sampling
	floats := []struct {
		key string
		dst **float64
		off *float64 // SillyTavern's "off" value, mapped to unset
	}{
		{"temperature", &s.Temperature, nil},
		{"top_p", &s.TopP, nil},
		{"frequency_penalty", &s.FrequencyPenalty, nil},
		{"presence_penalty", &s.PresencePenalty, nil},
		{"min_p", &s.MinP, ptr(0.0)},
		{"repetition_penalty", &s.RepetitionPenalty, ptr(1.0)},
	}
	for _, f := range floats {
		v, err := r.number(f.key)
		if err != nil {
			return err
		}
		if v != nil && !(f.off != nil && *v == *f.off) {
			*f.dst = v
		}
	}
	topK, err := r.smallInt("top_k")
	if err != nil {
		return err
	}
	if topK != nil && *topK != 0 {
		s.TopK = topK
	}
	if v, err := r.smallInt("openai_max_context"); err != nil {
		return err
	} else if v != nil {
		p.MaxContext = *v
	}
	if v, err := r.smallInt("openai_max_tokens"); err != nil {
		return err
	} else if v != nil {
		s.MaxTokens = *v
	}
	seed, err := r.integer("seed")
	if err != nil {
		return err
	}
	if seed != nil && *seed != -1 {
		s.Seed = seed
	}
	effort, err := r.str("reasoning_effort")
	if err != nil {
		return err
	}
	if effort != nil {
		switch e := strings.ToLower(strings.TrimSpace(*effort)); e {
		case "", "auto":
			s.ReasoningEffort = ""
		case "min", "minimal":
			s.ReasoningEffort = "low"
		case "max":
			s.ReasoningEffort = "high"
		case "low", "medium", "high":
			s.ReasoningEffort = e
		default:
			*warn = append(*warn, fmt.Sprintf("reasoning_effort %q is unknown; the provider's default is used", inputs.Short(*effort)))
		}
	}
	if v := r.raw("stop"); v != nil {
		var stops []string
		if err := json.Unmarshal(v, &stops); err != nil {
			return r.bad("stop", "an array of strings")
		}
		s.Stop = stops
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// texts maps the flags and the utility prompts, and says which of the
// file's formatting settings Hearth does not apply.
func (r stReader) texts(p *prompt.Preset, warn *[]string) error {
	strs := []struct {
		key string
		dst *string
	}{
		{"continue_nudge_prompt", &p.ContinueNudge},
		{"impersonation_prompt", &p.ImpersonationPrompt},
		{"new_chat_prompt", &p.NewChatPrompt},
		{"new_example_chat_prompt", &p.ExampleSeparator},
		{"group_nudge_prompt", &p.GroupNudge},
		{"new_group_chat_prompt", &p.NewGroupChatPrompt},
	}
	for _, s := range strs {
		v, err := r.str(s.key)
		if err != nil {
			return err
		}
		if v != nil {
			*s.dst = *v
		}
	}
	bools := []struct {
		key string
		dst *bool
	}{
		{"continue_prefill", &p.ContinuePrefill},
		{"hearth_merge_consecutive", &p.MergeConsecutive},
	}
	for _, b := range bools {
		v, err := r.boolean(b.key)
		if err != nil {
			return err
		}
		if v != nil {
			*b.dst = *v
		}
	}
	names, err := r.smallInt("names_behavior")
	if err != nil {
		return err
	}
	if names != nil {
		p.NamesInHistory = *names == stNamesContent
		if *names == stNamesCompletion {
			*warn = append(*warn, "names_behavior \"completion object\" is not supported: names are not sent (choose \"message content\" to prefix them)")
		}
	}
	// Settings Hearth does not apply; said only when they would have
	// changed the prompt.
	unsupported := []struct{ key, plain, what string }{
		{"assistant_prefill", "", "assistant_prefill (Claude's prefill) is not supported and was left out"},
		{"assistant_impersonation", "", "assistant_impersonation is not supported and was left out"},
		{"wi_format", "{0}", "wi_format is not applied: world info is sent as written"},
		{"scenario_format", "{{scenario}}", "scenario_format is not applied: the scenario is sent as written"},
		{"personality_format", "{{personality}}", "personality_format is not applied: the personality is sent as written"},
	}
	for _, u := range unsupported {
		var v string
		if raw := r.raw(u.key); raw != nil && json.Unmarshal(raw, &v) == nil && v != "" && v != u.plain {
			*warn = append(*warn, u.what)
		}
	}
	return nil
}
