package prompt

import "time"

// Generation types, as api.generate names them.
const (
	TypeNormal      = "normal"
	TypeRegenerate  = "regenerate"
	TypeSwipe       = "swipe"
	TypeContinue    = "continue"
	TypeImpersonate = "impersonate"
	TypeQuiet       = "quiet"
)

// Input is everything one prompt is made of. Callers fill it from the
// stores; Assemble reads nothing else.
type Input struct {
	Type    string
	Card    Card
	Persona Persona
	Preset  Preset
	// History is the chat to send, oldest first: for regenerate and swipe
	// without the reply being replaced; for continue ending with the
	// message to continue.
	History History
	// UserMessages counts the user's messages in the whole chat (the
	// Author's Note interval counts them).
	UserMessages int
	// ExtensionPrompts are the window's setExtensionPrompt entries, any
	// order (Assemble sorts them by key).
	ExtensionPrompts []ExtensionPrompt
	AuthorNote       AuthorNote
	WorldInfo        WorldInfo
	// QuietPrompt is the instruction of a quiet generation.
	QuietPrompt string
	// Vision says the model accepts images; blind models get a notice
	// naming the media instead.
	Vision bool
	Media  MediaPolicy
	// Model names the model ({{model}}).
	Model string
	// Now is the time {{time}} and {{date}} show.
	Now time.Time
	// Group is set when the prompt is a group member's reply in a group
	// chat (Card is then that member's, or in join modes the members'
	// cards joined); nil for a 1:1 chat.
	Group *Group
}

// Group is what a group chat adds to a member's prompt: the names its
// macros list, and the nudge that ends the history.
type Group struct {
	// Members are the members' names in the group's order, muted ones
	// included ({{group}}, {{charIfNotGroup}}); NotMuted leaves the muted
	// out ({{groupNotMuted}}). {{notChar}} is Members without the speaker
	// (Card.Name), then the user: SillyTavern's definitions.
	Members  []string
	NotMuted []string
}

// Card is the character's side of the prompt.
type Card struct {
	Name        string
	Description string
	Personality string
	Scenario    string
	// MesExample holds the example dialogues, blocks starting with <START>.
	MesExample string
	// SystemPrompt replaces the preset's main prompt when set
	// ({{original}} inside it is the preset's).
	SystemPrompt string
	// PostHistoryInstructions replaces the preset's post-history prompt
	// when set ({{original}} likewise).
	PostHistoryInstructions string
	DepthPrompt             DepthPrompt
}

// DepthPrompt is the card's extensions.depth_prompt: text placed in the
// history at a depth.
type DepthPrompt struct {
	Text  string
	Depth int
	Role  string
}

// Persona description positions (SillyTavern's persona_description_positions).
const (
	PersonaInPrompt  = 0
	PersonaTopAN     = 2
	PersonaBottomAN  = 3
	PersonaAtDepth   = 4
	PersonaNowhere   = 9
	defaultNoteDepth = 4
)

// Persona is the user's side: who {{user}} is.
type Persona struct {
	Name        string
	Description string
	Position    int
	Depth       int
	// Role of an at-depth description: 0 system, 1 user, 2 assistant.
	Role int
	// Lorebook names the persona's bound lorebook ("" for none); the
	// World Info scan reads it, the assembly does not.
	Lorebook string
}

// Message is one history message as the prompt sees it.
type Message struct {
	Name string
	// Role is "user", "assistant" or "system" (narrator messages).
	Role  string
	Text  string
	Media []Media
}

// Media is one attachment of a message.
type Media struct {
	// Kind is "image", "video", "audio" or "file".
	Kind string
	// URL identifies the content; equal URLs are the same content
	// (Hearth's media URLs are content-addressed).
	URL  string
	Name string
	MIME string
}

// History gives the chat's messages lazily, so a 10,000-message chat is
// read only as far back as the budget reaches.
type History interface {
	// Len is the number of messages.
	Len() int
	// At returns message i (0 is the oldest).
	At(i int) (Message, error)
}

// Messages is a History held in memory.
type Messages []Message

// Len implements History.
func (m Messages) Len() int { return len(m) }

// At implements History.
func (m Messages) At(i int) (Message, error) { return m[i], nil }

// Extension prompt positions (SillyTavern's extension_prompt_types).
const (
	PositionNone   = -1
	PositionIn     = 0 // after the main prompt
	PositionInChat = 1 // in the history at depth
	PositionBefore = 2 // before the main prompt
)

// Extension prompt roles.
const (
	RoleSystem    = 0
	RoleUser      = 1
	RoleAssistant = 2
)

// ExtensionPrompt is one setExtensionPrompt entry.
type ExtensionPrompt struct {
	Key      string `json:"key"`
	Value    string `json:"value"`
	Position int    `json:"position"`
	Depth    int    `json:"depth"`
	Scan     bool   `json:"scan"`
	Role     int    `json:"role"`
}

// AuthorNote is the chat's Author's Note (chat metadata note_*).
type AuthorNote struct {
	Prompt   string
	Interval int
	Depth    int
	Position int
	Role     int
}

// WorldInfo is what lorebooks add (backend/worldinfo's activation, placed
// by backend/generate).
type WorldInfo struct {
	Before string
	After  string
	// Depth entries go into the history like extension prompts.
	Depth []ExtensionPrompt
}

// MediaPolicy bounds the media sent with a prompt.
type MediaPolicy struct {
	// Window is how many of the latest messages may show media (0: 10).
	Window int
	// ImageMessages is how many messages with images are rendered as
	// images (0: 3, MEDIA_IMAGE_MESSAGE_LIMIT); older ones get a note.
	ImageMessages int
}
