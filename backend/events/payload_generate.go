package events

import "hearth/backend/apperr"

// The payloads of generation events and of the settings a generation runs
// with. Every generation event carries chatId and generationId; none
// carries a chat revision (the reply's own message event does).

// GenerationStartedPayload is GENERATION_STARTED's.
type GenerationStartedPayload struct {
	ChatID       string `json:"chatId"`
	GenerationID string `json:"generationId"`
	Type         string `json:"type" ts:"GenerationType"`
}

// StreamTokenPayload is STREAM_TOKEN_RECEIVED's: Text and Reasoning are
// what streamed since the last one; Reasoning is left out when none did.
type StreamTokenPayload struct {
	ChatID       string `json:"chatId"`
	GenerationID string `json:"generationId"`
	Text         string `json:"text"`
	Reasoning    string `json:"reasoning,omitempty"`
}

// GenerationEndedPayload is GENERATION_ENDED's. A failed generation has
// Error, null Index and SwipeID, and Text when something streamed before
// the failure (so a caller can still save it by hand).
type GenerationEndedPayload struct {
	ChatID       string        `json:"chatId"`
	GenerationID string        `json:"generationId"`
	Index        *int          `json:"index"`
	SwipeID      *int          `json:"swipeId"`
	Error        *apperr.Error `json:"error,omitempty"`
	Text         string        `json:"text,omitempty"`
}

// GenerationStoppedPayload is GENERATION_STOPPED's: Index is where what
// streamed landed, null when nothing did.
type GenerationStoppedPayload struct {
	ChatID       string `json:"chatId"`
	GenerationID string `json:"generationId"`
	Index        *int   `json:"index"`
}

// PromptReadyPayload is CHAT_COMPLETION_PROMPT_READY's: Chat is the
// prompt's messages. A dry run has no GenerationID. Hooked says the
// starting window's eventSource listeners already had the prompt, and
// could change it, through PROMPT_HOOK_REQUEST: windows do not call
// their SillyTavern-style listeners again with this announcement.
type PromptReadyPayload struct {
	ChatID       string `json:"chatId"`
	GenerationID string `json:"generationId,omitempty"`
	Chat         any    `json:"chat" ts:"PayloadMessage[]"`
	DryRun       bool   `json:"dryRun"`
	Hooked       bool   `json:"hooked,omitempty"`
}

// PromptHookRequestPayload is PROMPT_HOOK_REQUEST's: the assembled
// prompt's messages (Chat), for the window that started the generation
// with Token, which runs its CHAT_COMPLETION_PROMPT_READY listeners on
// them and answers with generate.promptHookReply(token, chat). A dry run
// has no GenerationID. Every window receives it; only the one that
// made the token answers.
type PromptHookRequestPayload struct {
	Token        string `json:"token"`
	ChatID       string `json:"chatId"`
	GenerationID string `json:"generationId,omitempty"`
	DryRun       bool   `json:"dryRun"`
	Chat         any    `json:"chat" ts:"PayloadMessage[]"`
}

// GenerateAfterDataPayload is GENERATE_AFTER_DATA's: the chat-completion
// request as sent (SillyTavern's generate_data).
type GenerateAfterDataPayload struct {
	ChatID       string `json:"chatId"`
	GenerationID string `json:"generationId"`
	GenerateData any    `json:"generate_data" ts:"PromptSnapshot['chatCompletionPayload']"`
}

// PresetChangedPayload is OAI_PRESET_CHANGED_AFTER's: the active preset
// after a select, a save of it, or its deletion.
type PresetChangedPayload struct {
	PresetID string `json:"presetId"`
}

// ConnectionsChangedPayload is CONNECTIONS_CHANGED's: the connection saved,
// deleted or selected.
type ConnectionsChangedPayload struct {
	ConnectionID string `json:"connectionId"`
}
