// Package stcompat is what Hearth knows about SillyTavern's extension
// surface (EXTENSIONS.md §5): the names each of its frontend modules
// exports (st-exports.json, read from SillyTavern's source by
// frontend/scripts/st-exports.mjs), which of them Hearth backs, the
// getContext() members, DOM ids and server paths a page extension may
// rely on. The window's compat runtime is built from the same tables
// (go run ./backend/tools/stcompatgen writes them for the frontend), so
// the compatibility report and what actually runs cannot disagree.
package stcompat

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

//go:embed st-exports.json
var exportsJSON []byte

// Exports is st-exports.json: per module path ("/script.js"), each
// exported name and its binding kind (function, class, let, const).
type Exports struct {
	STVersion string                       `json:"stVersion"`
	Source    string                       `json:"source"`
	Modules   map[string]map[string]string `json:"modules"`
	// Constants are the literal data of each module's exported constant
	// tables (enums such as ARGUMENT_TYPE or world_info_position; helper
	// functions inside them are not data and are left out).
	Constants map[string]map[string]any `json:"constants"`
	// EventTypes is SillyTavern's event_types table. The compat modules'
	// event_types carries all of it (Hearth's own strings win), because
	// extensions test for a key before they listen ('X' in event_types)
	// and refuse to load without it, even for events only some of
	// SillyTavern's modes send.
	EventTypes map[string]string `json:"eventTypes"`
	// ExtensionSettings are the containers SillyTavern's extension_settings
	// starts with: third-party extensions write into some of them (objective,
	// variables) without making them first.
	ExtensionSettings map[string]any `json:"extensionSettings"`
}

// SillyTavern returns the export table. It panics if the embedded file
// is broken, which a test catches before anything ships.
func SillyTavern() Exports {
	var e Exports
	if err := json.Unmarshal(exportsJSON, &e); err != nil {
		panic(fmt.Sprintf("stcompat: st-exports.json: %v", err))
	}
	return e
}

// ModulePaths are the compat modules Hearth serves, sorted.
func ModulePaths() []string {
	return slices.Sorted(maps.Keys(SillyTavern().Modules))
}

// Backed are the exports Hearth implements, per module; every other
// export of a served module exists and throws ext.unsupported naming
// itself when called. Live bindings (chat, this_chid, name2,
// chat_metadata, selected_group, …) follow the window's current chat.
var Backed = map[string][]string{
	"/script.js": {
		"callPopup", "characters", "chat", "chat_metadata", "eventSource", "event_types",
		"extension_prompt_roles", "extension_prompt_types", "generateQuietPrompt",
		"getCurrentChatId", "getRequestHeaders", "is_send_press", "main_api", "name1", "name2", "online_status",
		"reloadCurrentChat", "saveChat", "saveChatConditional", "saveChatDebounced", "saveMetadata",
		"saveSettingsDebounced", "sendSystemMessage", "setExtensionPrompt", "stopGeneration", "substituteParams", "this_chid",
	},
	"/scripts/extensions.js": {
		"extension_settings", "getContext", "renderExtensionTemplate", "renderExtensionTemplateAsync",
		"saveMetadataDebounced", "writeExtensionField",
	},
	"/scripts/group-chats.js":                         {"group_activation_strategy", "group_generation_mode", "groups", "is_group_generating", "selected_group"},
	"/scripts/power-user.js":                          {"chat_styles", "persona_description_positions", "power_user", "send_on_enter_options"},
	"/scripts/world-info.js":                          {"loadWorldInfo", "saveWorldInfo", "scan_state", "wi_anchor_position", "world_info", "world_info_insertion_strategy", "world_info_logic", "world_info_position"},
	"/scripts/utils.js":                               {"debounce", "delay", "escapeHtml", "escapeRegex", "getStringHash", "isFalseBoolean", "isTrueBoolean", "onlyUnique", "regexFromString", "stringFormat", "uuidv4", "waitUntilCondition"},
	"/scripts/popup.js":                               {"POPUP_RESULT", "POPUP_TYPE", "Popup", "callGenericPopup"},
	"/scripts/i18n.js":                                {"addLocaleData", "applyLocale", "getCurrentLocale", "t", "translate"},
	"/scripts/slash-commands.js":                      {"executeSlashCommands", "executeSlashCommandsWithOptions", "registerSlashCommand"},
	"/lib.js":                                         {"DOMPurify", "lodash"},
	"/lib/eventemitter.js":                            {"EventEmitter"},
	"/scripts/slash-commands/SlashCommand.js":         {"SlashCommand"},
	"/scripts/slash-commands/SlashCommandArgument.js": {"ARGUMENT_TYPE", "SlashCommandArgument", "SlashCommandNamedArgument"},
	"/scripts/slash-commands/SlashCommandCommonEnumsProvider.js": {"commonEnumProviders", "enumIcons"},
	"/scripts/slash-commands/SlashCommandEnumValue.js":           {"SlashCommandEnumValue", "enumTypes"},
	"/scripts/slash-commands/SlashCommandParser.js":              {"PARSER_FLAG", "SlashCommandParser"},
}

// Data are the backed exports whose value is SillyTavern's own constant
// table as its source writes it (Exports.Constants): enums an extension
// passes back to SillyTavern's functions or compares with, served as they
// are. Each is in Backed too.
var Data = map[string][]string{
	"/scripts/group-chats.js": {"group_activation_strategy", "group_generation_mode"},
	"/scripts/power-user.js":  {"chat_styles", "persona_description_positions", "send_on_enter_options"},
	"/scripts/world-info.js": {"scan_state", "wi_anchor_position", "world_info_insertion_strategy", "world_info_logic",
		"world_info_position"},
	"/scripts/slash-commands/SlashCommandArgument.js":            {"ARGUMENT_TYPE"},
	"/scripts/slash-commands/SlashCommandCommonEnumsProvider.js": {"enumIcons"},
	"/scripts/slash-commands/SlashCommandEnumValue.js":           {"enumTypes"},
	"/scripts/slash-commands/SlashCommandParser.js":              {"PARSER_FLAG"},
}

// ContextMembers are the getContext() members Hearth backs (HOST-ABI §9
// and the page tier's additions).
var ContextMembers = []string{
	"addLocaleData", "addMessages", "addOneMessage", "appendChatMessages", "appendMediaToMessage", "callGenericPopup",
	"characterId", "characters", "chat", "chatId", "chatMetadata", "chat_metadata", "clearChat", "closeCurrentChat",
	"createFloorState", "deleteCharacterChat", "deleteChatState", "deleteLastMessage", "deleteMessage",
	"deleteMessages", "doNewChat", "ensureMessageMediaIsArray", "eventSource", "eventTypes", "event_types",
	"extensionPrompts", "extensionSettings", "generate", "generateQuietPrompt",
	"getCharacterState", "getChatState", "getChatStateBatch", "getCurrentChatId", "getCurrentLocale", "getMediaDisplay",
	"getMediaIndex", "getMessage", "getMessageCount", "getPastCharacterChats", "getRequestHeaders",
	"groupId", "groups", "loadWorldInfo", "maxContext", "name1", "name2", "onlineStatus", "online_status",
	"openCharacterChat", "patchChatMessages", "POPUP_RESULT", "POPUP_TYPE", "printMessages",
	"reloadCurrentChat", "renameChat", "renderExtensionTemplateAsync", "saveChat", "saveChatMetadata",
	"saveMetadata", "saveMetadataDebounced", "saveSettingsDebounced", "saveWorldInfo", "scrollChatToBottom",
	"scrollOnMediaLoad", "selected_group", "sendSystemMessage", "setCharacterState", "setExtensionPrompt", "stopGeneration",
	"substituteParams", "swipe", "t", "translate", "updateChatState", "updateMessageBlock", "updateMessages",
	"uuidv4", "writeExtensionField",
}

// DOMIDs are the SillyTavern element ids Hearth's window provides to page
// extensions (EXTENSIONS.md §5's mount points).
var DOMIDs = []string{"chat", "extensionsMenu", "extensions_settings", "extensions_settings2", "send_textarea"}
