package presets

import (
	"encoding/json"
	"fmt"
	"strings"

	"hearth/backend/prompt"
)

// stExport is the SillyTavern chat-completion preset that ToST writes,
// in SillyTavern's key order. Samplers Hearth leaves unset are left out
// (SillyTavern then keeps its own value), except the three whose "off"
// value SillyTavern has (top_k 0, min_p 0, repetition_penalty 1) and
// the seed (-1, random).
type stExport struct {
	Temperature          *float64      `json:"temperature,omitempty"`
	FrequencyPenalty     *float64      `json:"frequency_penalty,omitempty"`
	PresencePenalty      *float64      `json:"presence_penalty,omitempty"`
	TopP                 *float64      `json:"top_p,omitempty"`
	TopK                 int           `json:"top_k"`
	MinP                 float64       `json:"min_p"`
	RepetitionPenalty    float64       `json:"repetition_penalty"`
	OpenAIMaxContext     int           `json:"openai_max_context"`
	OpenAIMaxTokens      int           `json:"openai_max_tokens"`
	NamesBehavior        int           `json:"names_behavior"`
	ImpersonationPrompt  string        `json:"impersonation_prompt"`
	NewChatPrompt        string        `json:"new_chat_prompt"`
	NewGroupChatPrompt   string        `json:"new_group_chat_prompt"`
	NewExampleChatPrompt string        `json:"new_example_chat_prompt"`
	ContinueNudgePrompt  string        `json:"continue_nudge_prompt"`
	GroupNudgePrompt     string        `json:"group_nudge_prompt"`
	ContinuePrefill      bool          `json:"continue_prefill"`
	Seed                 int64         `json:"seed"`
	ReasoningEffort      string        `json:"reasoning_effort"`
	Stop                 []string      `json:"stop,omitempty"`
	Prompts              []stPromptOut `json:"prompts"`
	PromptOrder          []stOrderOut  `json:"prompt_order"`
	// MergeConsecutive has no SillyTavern key; SillyTavern ignores
	// this one, and Hearth reads it back.
	MergeConsecutive bool `json:"hearth_merge_consecutive"`
}

type stPromptOut struct {
	Identifier        string `json:"identifier"`
	Name              string `json:"name"`
	SystemPrompt      bool   `json:"system_prompt"`
	Role              string `json:"role"`
	Content           string `json:"content"`
	Marker            bool   `json:"marker"`
	InjectionPosition int    `json:"injection_position"`
	InjectionDepth    int    `json:"injection_depth"`
}

type stOrderOut struct {
	CharacterID int               `json:"character_id"`
	Order       []stOrderEntryOut `json:"order"`
}

type stOrderEntryOut struct {
	Identifier string `json:"identifier"`
	Enabled    bool   `json:"enabled"`
}

// ToST writes p as a SillyTavern chat-completion preset (one global
// prompt order, character_id 100001), so it can go back to SillyTavern;
// FromST of the result gives p again, up to the normalizations FromST
// documents (an explicit top_k 0, min_p 0, repetition_penalty 1 or
// seed -1 comes back unset).
func ToST(p prompt.Preset) (json.RawMessage, error) {
	s := p.Sampling
	out := stExport{
		Temperature: s.Temperature, FrequencyPenalty: s.FrequencyPenalty, PresencePenalty: s.PresencePenalty, TopP: s.TopP,
		RepetitionPenalty: 1, Seed: -1,
		OpenAIMaxContext: p.MaxContext, OpenAIMaxTokens: s.MaxTokens,
		ImpersonationPrompt: p.ImpersonationPrompt, NewChatPrompt: p.NewChatPrompt,
		NewExampleChatPrompt: p.ExampleSeparator, ContinueNudgePrompt: p.ContinueNudge,
		NewGroupChatPrompt: p.NewGroupChatPrompt, GroupNudgePrompt: p.GroupNudge,
		ContinuePrefill: p.ContinuePrefill, ReasoningEffort: s.ReasoningEffort,
		Stop: s.Stop, MergeConsecutive: p.MergeConsecutive,
		Prompts: []stPromptOut{}, PromptOrder: []stOrderOut{{CharacterID: stGlobalOrder, Order: []stOrderEntryOut{}}},
	}
	if s.TopK != nil {
		out.TopK = *s.TopK
	}
	if s.MinP != nil {
		out.MinP = *s.MinP
	}
	if s.RepetitionPenalty != nil {
		out.RepetitionPenalty = *s.RepetitionPenalty
	}
	if s.Seed != nil {
		out.Seed = *s.Seed
	}
	if out.ReasoningEffort == "" {
		out.ReasoningEffort = "auto"
	}
	if p.NamesInHistory {
		out.NamesBehavior = stNamesContent
	}
	defaults := defaultsByID()
	for _, it := range p.Prompts {
		_, builtin := defaults[it.Identifier]
		pos := 0
		if it.InChat {
			pos = 1
		}
		out.Prompts = append(out.Prompts, stPromptOut{
			Identifier: it.Identifier, Name: it.Name, SystemPrompt: builtin, Role: it.Role, Content: it.Content,
			Marker: it.Marker, InjectionPosition: pos, InjectionDepth: it.Depth,
		})
		out.PromptOrder[0].Order = append(out.PromptOrder[0].Order, stOrderEntryOut{Identifier: it.Identifier, Enabled: it.Enabled})
	}
	raw, err := json.MarshalIndent(out, "", "    ")
	if err != nil {
		return nil, fmt.Errorf("export preset: %w", err)
	}
	return raw, nil
}

// fileNameFor is the file name an exported preset is offered under:
// its name with the characters file systems refuse replaced.
func fileNameFor(name string) string {
	safe := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	if safe == "" || strings.Trim(safe, ".") == "" {
		safe = "preset"
	}
	return safe + ".json"
}
