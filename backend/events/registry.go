package events

import "reflect"

// Event type names use SillyTavern's event_types string values so that
// extensions written for SillyTavern, Luker or Lumiverse recognise them;
// Hearth's own additions follow the same snake_case style. Every constant
// here has its entry in registry (a test parses this file to hold that).
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
	GroupUpdated        = "group_updated"
	GroupChatCreated    = "group_chat_created"
	GroupChatDeleted    = "group_chat_deleted"
	GroupWrapperStarted = "group_wrapper_started"
	GroupMemberDrafted  = "group_member_drafted"
	GroupWrapperEnded   = "group_wrapper_finished"

	// Hearth additions.
	SwipeEdited          = "swipe_edited"
	ChatRenamed          = "chat_renamed"
	ChatMetadataUpdated  = "chat_metadata_updated"
	ChatPatched          = "chat_patched"
	CharacterCreated     = "character_created"
	GroupCreated         = "group_created"
	GroupDeleted         = "group_deleted"
	GroupAutoModeChanged = "group_auto_mode_changed"
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
	// PromptHookRequest asks the window that started a generation to run
	// its CHAT_COMPLETION_PROMPT_READY handlers (a Hearth addition).
	PromptHookRequest  = "prompt_hook_request"
	GenerateAfterData  = "generate_after_data"
	PersonaChanged     = "persona_changed"
	PresetChanged      = "oai_preset_changed_after"
	ConnectionsChanged = "connections_changed"

	// LibraryProgress reports a SillyTavern library import or export
	// (backend/library).
	LibraryProgress = "library_progress"

	// Extensions (backend/extensions, EXTENSIONS.md §3).
	ExtensionInstalled = "extension_installed"
	ExtensionRemoved   = "extension_removed"
	ExtensionEnabled   = "extension_enabled"
	ExtensionDisabled  = "extension_disabled"
	ExtensionFailed    = "extension_failed"
	ExtensionSafeMode  = "extension_safe_mode"
	ExtensionGranted   = "extension_granted"
)

// Spec declares one event: everything the transports, the generated
// TypeScript (backend/tools/eventgen) and the extension sandbox need to
// agree on.
type Spec struct {
	// Name is the SillyTavern-style constant name (MESSAGE_RECEIVED), the
	// key of api.events.types.
	Name string
	// Type is the string value on the wire (message_received).
	Type string
	// Payload is the payload's struct type; Publish takes a pointer to it.
	// Its json tags are the payload's keys, exactly as clients get them.
	Payload reflect.Type
	// Permission is the extension permission an event is delivered under.
	Permission Permission
	// Window marks an event each window fires itself (api.events.types
	// lists it, the bus never carries it).
	Window bool
	// Doc says in a few words when the event fires; it goes into the
	// generated TypeScript and docs/API.md.
	Doc string
}

// declare is one registry entry, with P as its payload struct.
func declare[P any](name, typ string, perm Permission, doc string) Spec {
	return Spec{Name: name, Type: typ, Payload: reflect.TypeFor[P](), Permission: perm, Doc: doc}
}

// window is declare for an event a window fires itself.
func window[P any](name, typ string, perm Permission, doc string) Spec {
	s := declare[P](name, typ, perm, doc)
	s.Window = true
	return s
}

// registry is the one list of events, in the order docs and the generated
// TypeScript show them.
var registry = []Spec{
	window[AppReadyPayload]("APP_READY", AppReady, PermAny,
		"the window's ABI is ready; a handler registered later still gets it"),

	declare[MessagePayload]("MESSAGE_SENT", MessageSent, PermChatRead,
		"a user message was added"),
	declare[MessageReceivedPayload]("MESSAGE_RECEIVED", MessageReceived, PermChatRead,
		"a message not from the user was added (a reply, a system message); type is the generation type, 'normal' for a call's"),
	declare[MessagePayload]("MESSAGE_EDITED", MessageEdited, PermChatRead,
		"a message's content, swipes or fields were written"),
	declare[MessagePayload]("MESSAGE_UPDATED", MessageUpdated, PermChatRead,
		"a message changed and should be redrawn (after MESSAGE_EDITED, or a continued reply)"),
	declare[MessageDeletedPayload]("MESSAGE_DELETED", MessageDeleted, PermChatRead,
		"messages were deleted; length is the chat's message count after"),
	declare[MessageSwipedPayload]("MESSAGE_SWIPED", MessageSwiped, PermChatRead,
		"a message's active swipe changed, or a swipe was added or generated"),
	declare[MessageSwipeDeletedPayload]("MESSAGE_SWIPE_DELETED", MessageSwipeDeleted, PermChatRead,
		"one swipe of a message was deleted; messageId is the message's index"),
	declare[SwipeEditedPayload]("SWIPE_EDITED", SwipeEdited, PermChatRead,
		"an updateMessage patch set swipes, swipe_id or swipe_dates (after MESSAGE_EDITED)"),

	window[ChatChangedPayload]("CHAT_CHANGED", ChatChanged, PermChatRead,
		"this window's current chat changed; chatId is absent when it closed"),
	declare[ChatCreatedPayload]("CHAT_CREATED", ChatCreated, PermChatRead,
		"a chat was created, imported or branched"),
	declare[ChatDeletedPayload]("CHAT_DELETED", ChatDeleted, PermChatRead,
		"a chat was deleted; avatar or groupId names its owner"),
	declare[ChatRenamedPayload]("CHAT_RENAMED", ChatRenamed, PermChatRead,
		"a chat's file name changed"),
	declare[ChatMetadataUpdatedPayload]("CHAT_METADATA_UPDATED", ChatMetadataUpdated, PermChatRead,
		"a chat's metadata changed; metadata is the whole object after"),
	declare[ChatPatchedPayload]("CHAT_PATCHED", ChatPatched, PermChatRead,
		"RFC 6902 operations were applied to a chat (a patch, an undo, a redo or a revert)"),
	declare[ChatBranchCreatedPayload]("CHAT_BRANCH_CREATED", ChatBranchCreated, PermChatRead,
		"a checkpoint or branch was made from sourceChatId at message index (after CHAT_CREATED)"),

	declare[ChatStateChangedPayload]("CHAT_STATE_CHANGED", ChatStateChanged, PermState,
		"a chat or floor state namespace changed; revision is the namespace's"),

	declare[CharacterPayload]("CHARACTER_CREATED", CharacterCreated, PermCharactersRead,
		"a character was created or imported"),
	declare[CharacterPayload]("CHARACTER_EDITED", CharacterEdited, PermCharactersRead,
		"a character's card changed"),
	declare[CharacterDeletedPayload]("CHARACTER_DELETED", CharacterDeleted, PermCharactersRead,
		"a character was deleted, with its chats when deleteChats"),

	declare[GroupPayload]("GROUP_CREATED", GroupCreated, PermCharactersRead,
		"a group was created"),
	declare[GroupPayload]("GROUP_UPDATED", GroupUpdated, PermCharactersRead,
		"a group changed: an update, or a member character deleted; group is the whole group after (SillyTavern's listeners get no argument)"),
	declare[GroupDeletedPayload]("GROUP_DELETED", GroupDeleted, PermCharactersRead,
		"a group was deleted, with its chats when deleteChats (each with its GROUP_CHAT_DELETED first)"),
	declare[GroupChatPayload]("GROUP_CHAT_CREATED", GroupChatCreated, PermChatRead,
		"a group chat was created, seeded with its members' greetings (after its CHAT_CREATED and GROUP_UPDATED); SillyTavern's listeners get no argument"),
	declare[GroupChatPayload]("GROUP_CHAT_DELETED", GroupChatDeleted, PermChatRead,
		"a group's chat was deleted (after its CHAT_DELETED, and GROUP_UPDATED when the group listed it); SillyTavern's listeners get the file name"),

	declare[GroupWrapperPayload]("GROUP_WRAPPER_STARTED", GroupWrapperStarted, PermGenerate,
		"a group turn started: who speaks is drafted, no member has replied yet (generate.run on a group chat)"),
	declare[GroupMemberDraftedPayload]("GROUP_MEMBER_DRAFTED", GroupMemberDrafted, PermGenerate,
		"a group turn's next member is about to reply; SillyTavern's listeners get its index in getContext().characters"),
	declare[GroupWrapperPayload]("GROUP_WRAPPER_FINISHED", GroupWrapperEnded, PermGenerate,
		"a group turn ended: every drafted member replied, or it was stopped or failed"),
	declare[GroupAutoModePayload]("GROUP_AUTO_MODE_CHANGED", GroupAutoModeChanged, PermGenerate,
		"a group chat's auto mode went on or off: reason set (groups.setAutoMode), user_message, failed (error says why), deleted"),

	declare[WorldInfoUpdatedPayload]("WORLDINFO_UPDATED", WorldInfoUpdated, PermWorldInfoRead,
		"a lorebook was saved, deleted or renamed"),
	declare[WorldInfoSettingsPayload]("WORLDINFO_SETTINGS_UPDATED", WorldInfoSettings, PermWorldInfoRead,
		"the World Info settings or the global selection changed"),
	declare[WorldInfoScanDonePayload]("WORLDINFO_SCAN_DONE", WorldInfoScanDone, PermWorldInfoRead,
		"a generation's lorebook scan finished; activation is what it activated"),

	declare[GenerationStartedPayload]("GENERATION_STARTED", GenerationStarted, PermGenerate,
		"a generation started streaming"),
	declare[StreamTokenPayload]("STREAM_TOKEN_RECEIVED", StreamTokenReceived, PermGenerate,
		"text streamed: text (and reasoning) are the new deltas, batched every 40 ms"),
	declare[GenerationEndedPayload]("GENERATION_ENDED", GenerationEnded, PermGenerate,
		"a generation ended: where its reply landed, or error (index and swipeId null) when it failed"),
	declare[GenerationStoppedPayload]("GENERATION_STOPPED", GenerationStopped, PermGenerate,
		"a generation was stopped; index is where what streamed landed, null when nothing did"),
	declare[PromptReadyPayload]("CHAT_COMPLETION_PROMPT_READY", ChatCompletionPromptReady, PermGenerate,
		"a prompt was assembled (by a generation, or by dryRun without generationId); chat is its messages, hooked when the starting window's listeners already had them"),
	declare[PromptHookRequestPayload]("PROMPT_HOOK_REQUEST", PromptHookRequest, PermNone,
		"the window whose token this is runs its CHAT_COMPLETION_PROMPT_READY listeners on chat and answers with generate.promptHookReply"),
	declare[GenerateAfterDataPayload]("GENERATE_AFTER_DATA", GenerateAfterData, PermGenerate,
		"the request a generation sends to the model"),
	declare[PersonaChangedPayload]("PERSONA_CHANGED", PersonaChanged, PermChatRead,
		"a persona was saved or deleted, or the active or default persona changed"),
	declare[PresetChangedPayload]("OAI_PRESET_CHANGED_AFTER", PresetChanged, PermGenerate,
		"the active preset was selected, saved or deleted; presetId is the active one after"),
	declare[ConnectionsChangedPayload]("CONNECTIONS_CHANGED", ConnectionsChanged, PermGenerate,
		"a connection was saved, deleted or selected"),

	declare[AgentRunEventPayload]("AGENT_RUN_EVENT", AgentRunEvent, PermAgent,
		"an agent run stored an event (its envelope; model_delta coalesced every 30–50 ms)"),
	declare[WorkspaceFileChangedPayload]("WORKSPACE_FILE_CHANGED", WorkspaceFileChanged, PermAgent,
		"a file of a run's workspace changed, by a tool or from outside Hearth"),
	declare[AgentProfilesChangedPayload]("AGENT_PROFILES_CHANGED", AgentProfilesChanged, PermAgent,
		"an agent profile was saved or deleted; list again"),

	declare[LibraryProgressPayload]("LIBRARY_PROGRESS", LibraryProgress, PermNone,
		"a SillyTavern library import or export moved on"),

	declare[ExtensionInstalledPayload]("EXTENSION_INSTALLED", ExtensionInstalled, PermNone,
		"an extension was installed, or updated from its source (updated)"),
	declare[ExtensionRemovedPayload]("EXTENSION_REMOVED", ExtensionRemoved, PermNone,
		"an extension was removed, with its storage when clean"),
	declare[ExtensionPayload]("EXTENSION_ENABLED", ExtensionEnabled, PermNone,
		"an extension was turned on"),
	declare[ExtensionPayload]("EXTENSION_DISABLED", ExtensionDisabled, PermNone,
		"an extension was turned off"),
	declare[ExtensionFailedPayload]("EXTENSION_FAILED", ExtensionFailed, PermNone,
		"an extension failed to load or to run a hook; error says why"),
	declare[ExtensionSafeModePayload]("EXTENSION_SAFE_MODE", ExtensionSafeMode, PermNone,
		"safe mode was turned on or off (active), or for later starts (atStart)"),
	declare[ExtensionGrantedPayload]("EXTENSION_GRANTED", ExtensionGranted, PermNone,
		"an extension's grant changed (a grant or a revoke); granted is what it holds now"),
}

// byType indexes registry by wire value.
var byType = func() map[string]Spec {
	m := make(map[string]Spec, len(registry))
	for _, s := range registry {
		m[s.Type] = s
	}
	return m
}()

// Specs returns every registered event, in registry order.
func Specs() []Spec { return append([]Spec(nil), registry...) }

// Lookup returns the event registered with wire value typ.
func Lookup(typ string) (Spec, bool) {
	s, ok := byType[typ]
	return s, ok
}

// TypeNames maps the SillyTavern-style constant names to their values; the
// frontend publishes this map as api.events.types (host.capabilities).
var TypeNames = func() map[string]string {
	m := make(map[string]string, len(registry))
	for _, s := range registry {
		m[s.Name] = s.Type
	}
	return m
}()
