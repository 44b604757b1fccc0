// Package presets keeps the user's generation presets (prompt.Preset:
// samplers, context size, reply budget, prompt order), which one is
// active, and SillyTavern chat-completion preset import and export. The
// built-in preset "default" (prompt.DefaultPreset) always exists and is
// never stored, so a fresh install and a damaged settings row both
// generate with SillyTavern's defaults.
package presets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
	"hearth/backend/jsonx"
	"hearth/backend/prompt"
)

// Error codes of this package (HOST-ABI §0: stable, dotted).
const (
	// CodeNotFound: no preset has the id.
	CodeNotFound = "preset.not_found"
	// CodeBuiltin: the built-in preset "default" cannot be changed or
	// deleted; save a copy instead.
	CodeBuiltin = "preset.builtin"
)

// DefaultID is the built-in preset's id.
const DefaultID = "default"

// Limits on what a preset holds. They are far above what SillyTavern's
// presets use and keep one preset small enough to read on every
// generation.
const (
	maxName       = 200
	maxStops      = 16
	maxStop       = 200
	maxPrompts    = 200
	maxContent    = 256 << 10
	maxDepth      = 10000
	maxTopK       = 1000
	maxMaxTokens  = 1_000_000
	minMaxContext = 512
	maxMaxContext = 4_000_000
	// maxBody bounds a whole preset as stored, and an imported file.
	maxBody = 4 << 20
)

// efforts are the reasoning efforts a preset may name ("" leaves it to
// the provider).
var efforts = map[string]bool{"": true, "low": true, "medium": true, "high": true}

// roles are the roles a prompt-order item may have ("" means system).
var roles = map[string]bool{"": true, "system": true, "user": true, "assistant": true}

// invalid is a validation error naming the field it is about, so a form
// can point at it.
func invalid(field, format string, args ...any) *apperr.Error {
	return apperr.Invalid("%s "+format, append([]any{field}, args...)...).WithDetails(map[string]any{"field": field})
}

// Decode reads presets.save's argument: a preset object. Fields left out
// take prompt.DefaultPreset's values (samplers left out stay unset, that
// is, the provider's default; prompts left out are the default order);
// an item's missing enabled is true and its missing name its identifier.
// Wrong JSON types are errors naming the field, never coerced.
func Decode(raw []byte) (prompt.Preset, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return prompt.Preset{}, apperr.Invalid("preset must be an object")
	}
	if len(t) > maxBody {
		return prompt.Preset{}, apperr.Invalid("preset is larger than %d MiB", maxBody>>20)
	}
	var in struct {
		ID                  *string         `json:"id"`
		Name                *string         `json:"name"`
		Sampling            json.RawMessage `json:"sampling"`
		MaxContext          *int            `json:"maxContext"`
		Prompts             json.RawMessage `json:"prompts"`
		MergeConsecutive    *bool           `json:"mergeConsecutive"`
		NamesInHistory      *bool           `json:"namesInHistory"`
		ContinuePrefill     *bool           `json:"continuePrefill"`
		ContinueNudge       *string         `json:"continueNudge"`
		ImpersonationPrompt *string         `json:"impersonationPrompt"`
		NewChatPrompt       *string         `json:"newChatPrompt"`
		ExampleSeparator    *string         `json:"exampleSeparator"`
		GroupNudge          *string         `json:"groupNudge"`
		NewGroupChatPrompt  *string         `json:"newGroupChatPrompt"`
	}
	if err := json.Unmarshal(t, &in); err != nil {
		return prompt.Preset{}, jsonError("", err)
	}
	if err := refuseNull(t, "", "maxContext"); err != nil {
		return prompt.Preset{}, err
	}
	p := prompt.DefaultPreset()
	p.ID, p.Name = "", ""
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.ID, in.ID)
	set(&p.Name, in.Name)
	set(&p.ContinueNudge, in.ContinueNudge)
	set(&p.ImpersonationPrompt, in.ImpersonationPrompt)
	set(&p.NewChatPrompt, in.NewChatPrompt)
	set(&p.ExampleSeparator, in.ExampleSeparator)
	set(&p.GroupNudge, in.GroupNudge)
	set(&p.NewGroupChatPrompt, in.NewGroupChatPrompt)
	for dst, v := range map[*bool]*bool{&p.MergeConsecutive: in.MergeConsecutive, &p.NamesInHistory: in.NamesInHistory, &p.ContinuePrefill: in.ContinuePrefill} {
		if v != nil {
			*dst = *v
		}
	}
	if in.MaxContext != nil {
		p.MaxContext = *in.MaxContext
	}
	if !isNull(in.Sampling) {
		if s := bytes.TrimSpace(in.Sampling); s[0] != '{' {
			return prompt.Preset{}, invalid("sampling", "must be an object")
		}
		if err := json.Unmarshal(in.Sampling, &p.Sampling); err != nil {
			return prompt.Preset{}, jsonError("sampling", err)
		}
		if err := refuseNull(in.Sampling, "sampling.", "maxTokens"); err != nil {
			return prompt.Preset{}, err
		}
	}
	if !isNull(in.Prompts) {
		var items []json.RawMessage
		if err := json.Unmarshal(in.Prompts, &items); err != nil {
			return prompt.Preset{}, invalid("prompts", "must be an array of objects")
		}
		if len(items) > maxPrompts {
			return prompt.Preset{}, tooMany(len(items))
		}
		p.Prompts = make([]prompt.Item, len(items))
		for i, raw := range items {
			field := fmt.Sprintf("prompts[%d]", i)
			if s := bytes.TrimSpace(raw); len(s) == 0 || s[0] != '{' {
				return prompt.Preset{}, invalid(field, "must be an object")
			}
			it := prompt.Item{Enabled: true}
			if err := json.Unmarshal(raw, &it); err != nil {
				return prompt.Preset{}, jsonError(field, err)
			}
			if err := refuseNull(raw, field+".", "depth"); err != nil {
				return prompt.Preset{}, err
			}
			p.Prompts[i] = it
		}
	}
	return p, nil
}

// jsonError turns a decoding error into a validation error naming the
// field below prefix.
func jsonError(prefix string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if prefix != "" && field != "" {
			field = prefix + "." + field
		} else if field == "" {
			field = prefix
		}
		if field == "" {
			field = "preset"
		}
		what := "of another type"
		switch te.Type.Kind().String() {
		case "string":
			what = "a string"
		case "bool":
			what = "a boolean"
		case "int", "int64":
			what = "an integer"
		case "float64":
			what = "a number"
		case "slice":
			what = "an array"
		case "struct", "map", "ptr":
			what = "an object"
		}
		return invalid(field, "must be %s", what)
	}
	if prefix == "" {
		prefix = "preset"
	}
	return apperr.Invalid("%s is not valid JSON: %v", prefix, err)
}

// refuseNull refuses null for the plain integer members of the object raw
// named in keys (prefix leads the field's name): null is what JSON makes of
// NaN, and the decoder would read it as left out (the default preset's
// value) or as 0. Samplers that may be null are not named here.
func refuseNull(raw json.RawMessage, prefix string, keys ...string) error {
	if k, ok := jsonx.NullMember(raw, keys...); ok {
		return invalid(prefix+k, "must be an integer, got null (NaN or undefined?)")
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

func tooMany(n int) error {
	return apperr.New(apperr.CodeTooMany, "prompts has %d items; at most %d are allowed", n, maxPrompts).
		WithDetails(map[string]any{"field": "prompts", "max": maxPrompts})
}

// normalize fills what a preset may leave out: a stop list, an item's
// name (its identifier), its role ("" is "system") and the marker flag
// of the built-in markers.
func normalize(p *prompt.Preset) {
	p.Name = strings.TrimSpace(p.Name)
	if p.Sampling.Stop == nil {
		p.Sampling.Stop = []string{}
	}
	for i := range p.Prompts {
		it := &p.Prompts[i]
		if strings.TrimSpace(it.Name) == "" {
			it.Name = it.Identifier
		}
		if it.Role == "" {
			it.Role = "system"
		}
		if prompt.MarkerIdents[it.Identifier] {
			it.Marker = true
		}
	}
}

// validate checks every field of p against the limits above. It refuses,
// never clamps: a value out of range is the caller's mistake to see.
func validate(p *prompt.Preset) error {
	if p.Name == "" || utf8.RuneCountInString(p.Name) > maxName || inputs.HasControl(p.Name) {
		return invalid("name", "must be 1 to %d characters without control characters", maxName)
	}
	s := &p.Sampling
	ranges := []struct {
		field  string
		v      *float64
		lo, hi float64
	}{
		{"sampling.temperature", s.Temperature, 0, 2},
		{"sampling.topP", s.TopP, 0, 1},
		{"sampling.minP", s.MinP, 0, 1},
		{"sampling.frequencyPenalty", s.FrequencyPenalty, -2, 2},
		{"sampling.presencePenalty", s.PresencePenalty, -2, 2},
		{"sampling.repetitionPenalty", s.RepetitionPenalty, 0, 3},
	}
	for _, r := range ranges {
		if r.v != nil && !(*r.v >= r.lo && *r.v <= r.hi) { // also refuses NaN
			return invalid(r.field, "must be between %g and %g (or null for the provider's default), got %g", r.lo, r.hi, *r.v)
		}
	}
	if s.TopK != nil && (*s.TopK < 0 || *s.TopK > maxTopK) {
		return invalid("sampling.topK", "must be between 0 and %d (or null for the provider's default), got %d", maxTopK, *s.TopK)
	}
	if s.MaxTokens < 0 || s.MaxTokens > maxMaxTokens {
		return invalid("sampling.maxTokens", "must be between 0 (the provider's default) and %d, got %d", maxMaxTokens, s.MaxTokens)
	}
	if p.MaxContext < minMaxContext || p.MaxContext > maxMaxContext {
		return invalid("maxContext", "must be between %d and %d tokens, got %d", minMaxContext, maxMaxContext, p.MaxContext)
	}
	if p.MaxContext <= s.MaxTokens {
		return invalid("maxContext", "(%d) must be greater than sampling.maxTokens (%d): the reply has to fit in the context with the prompt", p.MaxContext, s.MaxTokens)
	}
	if len(s.Stop) > maxStops {
		return invalid("sampling.stop", "holds %d strings; at most %d are allowed", len(s.Stop), maxStops)
	}
	for i, stop := range s.Stop {
		if stop == "" || utf8.RuneCountInString(stop) > maxStop {
			return invalid(fmt.Sprintf("sampling.stop[%d]", i), "must be 1 to %d characters", maxStop)
		}
	}
	if !efforts[s.ReasoningEffort] {
		return invalid("sampling.reasoningEffort", "must be \"\", \"low\", \"medium\" or \"high\", got %q", inputs.Short(s.ReasoningEffort))
	}
	texts := []struct {
		field string
		v     string
	}{
		{"continueNudge", p.ContinueNudge}, {"impersonationPrompt", p.ImpersonationPrompt},
		{"newChatPrompt", p.NewChatPrompt}, {"exampleSeparator", p.ExampleSeparator},
		{"groupNudge", p.GroupNudge}, {"newGroupChatPrompt", p.NewGroupChatPrompt},
	}
	for _, t := range texts {
		if len(t.v) > maxContent {
			return invalid(t.field, "is longer than %d KiB", maxContent>>10)
		}
	}
	return validatePrompts(p.Prompts)
}

func validatePrompts(items []prompt.Item) error {
	if len(items) > maxPrompts {
		return tooMany(len(items))
	}
	seen := make(map[string]int, len(items))
	history := 0
	for i, it := range items {
		field := fmt.Sprintf("prompts[%d]", i)
		id := it.Identifier
		if strings.TrimSpace(id) == "" || utf8.RuneCountInString(id) > maxName || inputs.HasControl(id) {
			return invalid(field+".identifier", "must be 1 to %d characters without control characters", maxName)
		}
		if j, dup := seen[id]; dup {
			return invalid(field+".identifier", "%q is also the identifier of prompts[%d]; identifiers must be unique", inputs.Short(id), j)
		}
		seen[id] = i
		if utf8.RuneCountInString(it.Name) > maxName || inputs.HasControl(it.Name) {
			return invalid(field+".name", "must be at most %d characters without control characters", maxName)
		}
		if !roles[it.Role] {
			return invalid(field+".role", "must be \"system\", \"user\" or \"assistant\", got %q", inputs.Short(it.Role))
		}
		if len(it.Content) > maxContent {
			return invalid(field+".content", "is longer than %d KiB", maxContent>>10)
		}
		if it.Depth < 0 || it.Depth > maxDepth {
			return invalid(field+".depth", "must be between 0 and %d, got %d", maxDepth, it.Depth)
		}
		if it.InChat && it.Marker {
			return invalid(field+".inChat", "cannot be set on %q: a marker's text has its own place", inputs.Short(id))
		}
		if id == prompt.IdentChatHistory {
			history++
		}
	}
	if history == 0 {
		return invalid("prompts", "must include the %q item (where the chat's messages go); add it back to the prompt order", prompt.IdentChatHistory)
	}
	return nil
}
