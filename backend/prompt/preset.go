package prompt

// Preset is what a generation preset says about the request: samplers,
// budgets, and the prompt order. It is pure data; backend/presets stores
// and validates it, and imports SillyTavern chat-completion presets into it.
type Preset struct {
	ID   string `json:"id"`
	Name string `json:"name"`

	Sampling Sampling `json:"sampling"`
	// MaxContext is the model's context size in tokens; the prompt plus
	// the reply (Sampling.MaxTokens) must fit in it.
	MaxContext int `json:"maxContext"`
	// Prompts are the prompt-order items, in order.
	Prompts []Item `json:"prompts"`
	// MergeConsecutive folds consecutive history messages of the same
	// author into one message.
	MergeConsecutive bool `json:"mergeConsecutive"`
	// NamesInHistory prefixes each history message with "Name: "
	// (SillyTavern's names_behavior "content").
	NamesInHistory bool `json:"namesInHistory"`
	// ContinuePrefill sends a continue as an assistant message to extend
	// (the model continues it) instead of a system nudge.
	ContinuePrefill bool `json:"continuePrefill"`
	// ContinueNudge is the instruction added for a continue without
	// prefill; {{lastChatMessage}} is the text being continued.
	ContinueNudge string `json:"continueNudge"`
	// ImpersonationPrompt is the instruction for type impersonate.
	ImpersonationPrompt string `json:"impersonationPrompt"`
	// NewChatPrompt starts the history ("[Start a new chat]"); empty: none.
	NewChatPrompt string `json:"newChatPrompt"`
	// ExampleSeparator starts each example dialogue ("[Example Chat]").
	ExampleSeparator string `json:"exampleSeparator"`
	// GroupNudge ends the history of a group member's reply, telling the
	// model whose turn it is (SillyTavern's group_nudge_prompt); empty:
	// none. Not sent for impersonate.
	GroupNudge string `json:"groupNudge"`
	// NewGroupChatPrompt starts the history in a group chat instead of
	// NewChatPrompt (SillyTavern's new_group_chat_prompt).
	NewGroupChatPrompt string `json:"newGroupChatPrompt"`
}

// SillyTavern's default group texts (its default_group_nudge_prompt and
// default_new_group_chat_prompt): what a preset holds when it names none.
const (
	DefaultGroupNudge         = "[Write the next reply only as {{char}}.]"
	DefaultNewGroupChatPrompt = "[Start a new group chat. Group members: {{group}}]"
)

// Sampling holds the sampler settings; nil fields are left to the provider.
type Sampling struct {
	Temperature       *float64 `json:"temperature"`
	TopP              *float64 `json:"topP"`
	TopK              *int     `json:"topK"`
	MinP              *float64 `json:"minP"`
	FrequencyPenalty  *float64 `json:"frequencyPenalty"`
	PresencePenalty   *float64 `json:"presencePenalty"`
	RepetitionPenalty *float64 `json:"repetitionPenalty"`
	// MaxTokens is the reply budget in tokens (0: provider default, and
	// nothing reserved from MaxContext).
	MaxTokens       int      `json:"maxTokens"`
	Stop            []string `json:"stop"`
	Seed            *int64   `json:"seed"`
	ReasoningEffort string   `json:"reasoningEffort"` // "", "low", "medium", "high"
}

// Item is one entry of the prompt order. Markers take their text from the
// card, the persona, the chat or world info; other items carry Content.
type Item struct {
	// Identifier names a built-in slot (the Ident* constants) or, for a
	// user-made prompt, any other unique string.
	Identifier string `json:"identifier"`
	Name       string `json:"name"`
	Enabled    bool   `json:"enabled"`
	// Role is "system", "user" or "assistant"; empty means system.
	Role    string `json:"role"`
	Content string `json:"content"`
	// Marker: the text comes from elsewhere (see Identifier).
	Marker bool `json:"marker"`
	// InChat places a non-marker prompt inside the history at Depth
	// (SillyTavern's injection_position 1) instead of at its place in
	// the order.
	InChat bool `json:"inChat"`
	Depth  int  `json:"depth"`
}

// Built-in prompt-order identifiers (SillyTavern's names, so imported
// presets keep their meaning).
const (
	IdentMain               = "main"
	IdentWorldInfoBefore    = "worldInfoBefore"
	IdentPersonaDescription = "personaDescription"
	IdentCharDescription    = "charDescription"
	IdentCharPersonality    = "charPersonality"
	IdentScenario           = "scenario"
	IdentEnhanceDefinitions = "enhanceDefinitions"
	IdentNSFW               = "nsfw"
	IdentWorldInfoAfter     = "worldInfoAfter"
	IdentDialogueExamples   = "dialogueExamples"
	IdentChatHistory        = "chatHistory"
	IdentPostHistory        = "jailbreak"
)

// MarkerIdents are the identifiers whose text comes from elsewhere.
var MarkerIdents = map[string]bool{
	IdentWorldInfoBefore: true, IdentPersonaDescription: true, IdentCharDescription: true,
	IdentCharPersonality: true, IdentScenario: true, IdentWorldInfoAfter: true,
	IdentDialogueExamples: true, IdentChatHistory: true,
}

// DefaultPreset is the preset a fresh install uses: SillyTavern's default
// prompt order and texts, and samplers left to the provider.
func DefaultPreset() Preset {
	item := func(id, name, content string, enabled bool) Item {
		return Item{Identifier: id, Name: name, Enabled: enabled, Role: "system", Content: content, Marker: MarkerIdents[id]}
	}
	return Preset{
		ID:         "default",
		Name:       "Default",
		MaxContext: 8192,
		Sampling:   Sampling{MaxTokens: 512},
		Prompts: []Item{
			item(IdentMain, "Main Prompt", "Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}.", true),
			item(IdentWorldInfoBefore, "World Info (before)", "", true),
			item(IdentPersonaDescription, "Persona Description", "", true),
			item(IdentCharDescription, "Char Description", "", true),
			item(IdentCharPersonality, "Char Personality", "", true),
			item(IdentScenario, "Scenario", "", true),
			item(IdentEnhanceDefinitions, "Enhance Definitions", "If you have more knowledge of {{char}}, add to the character's lore and personality to enhance them but keep the Character Sheet's definitions absolute.", false),
			item(IdentNSFW, "Auxiliary Prompt", "", true),
			item(IdentWorldInfoAfter, "World Info (after)", "", true),
			item(IdentDialogueExamples, "Chat Examples", "", true),
			item(IdentChatHistory, "Chat History", "", true),
			item(IdentPostHistory, "Post-History Instructions", "", true),
		},
		ContinueNudge:       "[Continue your last message without repeating its original content.]",
		ImpersonationPrompt: "[Write your next reply from the point of view of {{user}}, using the chat history so far as a guideline for the writing style of {{user}}. Don't write as {{char}} or system. Don't describe actions of {{char}}.]",
		NewChatPrompt:       "[Start a new Chat]",
		ExampleSeparator:    "[Example Chat]",
		GroupNudge:          DefaultGroupNudge,
		NewGroupChatPrompt:  DefaultNewGroupChatPrompt,
	}
}
