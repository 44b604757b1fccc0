package events

// Event type names use SillyTavern's event_types string values so that
// extensions written for SillyTavern, Luker or Lumiverse recognise them;
// Hearth's own additions follow the same snake_case style.
const (
	AppReady            = "app_ready"
	MessageSent         = "message_sent"
	MessageReceived     = "message_received"
	MessageEdited       = "message_edited"
	MessageUpdated      = "message_updated"
	MessageDeleted      = "message_deleted"
	MessageSwiped       = "message_swiped"
	MessageSwipeDeleted = "message_swipe_deleted"
	ChatChanged         = "chat_id_changed"
	ChatCreated         = "chat_created"
	ChatDeleted         = "chat_deleted"
	CharacterEdited     = "character_edited"
	CharacterDeleted    = "characterDeleted"

	// Hearth additions.
	SwipeEdited          = "swipe_edited"
	ChatRenamed          = "chat_renamed"
	ChatMetadataUpdated  = "chat_metadata_updated"
	ChatPatched          = "chat_patched"
	CharacterCreated     = "character_created"
	ChatBranchCreated    = "chat_branch_created"
	ChatStateChanged     = "chat_state_changed"
	AgentRunEvent        = "agent_run_event"
	WorkspaceFileChanged = "workspace_file_changed"
	AgentProfilesChanged = "agent_profiles_changed"

	// World Info (SillyTavern's names and values).
	WorldInfoUpdated  = "worldinfo_updated"
	WorldInfoSettings = "worldinfo_settings_updated"
	WorldInfoScanDone = "worldinfo_scan_done"

	// Generation (SillyTavern's names and values).
	GenerationStarted         = "generation_started"
	StreamTokenReceived       = "stream_token_received"
	GenerationEnded           = "generation_ended"
	GenerationStopped         = "generation_stopped"
	ChatCompletionPromptReady = "chat_completion_prompt_ready"
	GenerateAfterData         = "generate_after_data"
	PersonaChanged            = "persona_changed"
	PresetChanged             = "oai_preset_changed_after"
	ConnectionsChanged        = "connections_changed"

	// LibraryProgress reports a SillyTavern library import or export
	// (backend/library): {op, phase, done, total, current}.
	LibraryProgress = "library_progress"
)

// TypeNames maps the SillyTavern-style constant names to their values; the
// frontend publishes this map as api.events.types.
var TypeNames = map[string]string{
	"APP_READY":              AppReady,
	"MESSAGE_SENT":           MessageSent,
	"MESSAGE_RECEIVED":       MessageReceived,
	"MESSAGE_EDITED":         MessageEdited,
	"MESSAGE_UPDATED":        MessageUpdated,
	"MESSAGE_DELETED":        MessageDeleted,
	"MESSAGE_SWIPED":         MessageSwiped,
	"MESSAGE_SWIPE_DELETED":  MessageSwipeDeleted,
	"CHAT_CHANGED":           ChatChanged,
	"CHAT_CREATED":           ChatCreated,
	"CHAT_DELETED":           ChatDeleted,
	"CHARACTER_EDITED":       CharacterEdited,
	"CHARACTER_DELETED":      CharacterDeleted,
	"SWIPE_EDITED":           SwipeEdited,
	"CHAT_RENAMED":           ChatRenamed,
	"CHAT_METADATA_UPDATED":  ChatMetadataUpdated,
	"CHAT_PATCHED":           ChatPatched,
	"CHARACTER_CREATED":      CharacterCreated,
	"CHAT_BRANCH_CREATED":    ChatBranchCreated,
	"CHAT_STATE_CHANGED":     ChatStateChanged,
	"AGENT_RUN_EVENT":        AgentRunEvent,
	"WORKSPACE_FILE_CHANGED": WorkspaceFileChanged,
	"AGENT_PROFILES_CHANGED": AgentProfilesChanged,

	"WORLDINFO_UPDATED":          WorldInfoUpdated,
	"WORLDINFO_SETTINGS_UPDATED": WorldInfoSettings,
	"WORLDINFO_SCAN_DONE":        WorldInfoScanDone,

	"GENERATION_STARTED":           GenerationStarted,
	"STREAM_TOKEN_RECEIVED":        StreamTokenReceived,
	"GENERATION_ENDED":             GenerationEnded,
	"GENERATION_STOPPED":           GenerationStopped,
	"CHAT_COMPLETION_PROMPT_READY": ChatCompletionPromptReady,
	"GENERATE_AFTER_DATA":          GenerateAfterData,
	"PERSONA_CHANGED":              PersonaChanged,
	"OAI_PRESET_CHANGED_AFTER":     PresetChanged,
	"CONNECTIONS_CHANGED":          ConnectionsChanged,

	"LIBRARY_PROGRESS": LibraryProgress,
}
