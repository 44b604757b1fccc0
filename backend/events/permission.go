package events

// Permission is the extension permission (EXTENSIONS.md §2) that an event
// is delivered under: a sandboxed extension hears an event only if its
// grant holds the event's permission. Hearth's own UI hears everything.
type Permission string

// The permissions events are delivered under. A reading permission covers
// the events of its domain, so an extension that may read something also
// hears when it changes.
const (
	// PermChatRead covers messages, chats and their metadata. Persona
	// changes come under it too: the persona is the user side of every
	// chat (getContext().name1), and the event carries ids only.
	PermChatRead Permission = "chat.read"
	// PermState covers chat and floor state.
	PermState Permission = "state"
	// PermCharactersRead covers character cards.
	PermCharactersRead Permission = "characters.read"
	// PermWorldInfoRead covers lorebooks, their settings and what a scan
	// activated.
	PermWorldInfoRead Permission = "worldinfo.read"
	// PermGenerate covers generations and what they run with (the
	// prompt, the active preset and connection): an extension allowed to
	// start one and to dry-run a prompt sees them anyway.
	PermGenerate Permission = "generate"
	// PermAgent covers agent runs, their workspaces and profiles.
	PermAgent Permission = "agent"
	// PermAny: every extension hears the event, whatever it was granted.
	PermAny Permission = "any"
	// PermNone: no extension hears the event, only Hearth's own UI (it
	// reports something no extension API reaches, such as the library
	// import of the settings screen).
	PermNone Permission = "none"
)

// Permissions lists every Permission an event may declare.
func Permissions() []Permission {
	return []Permission{PermChatRead, PermState, PermCharactersRead, PermWorldInfoRead, PermGenerate, PermAgent, PermAny, PermNone}
}
