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
		"getCurrentChatId", "getRequestHeaders", "main_api", "name1", "name2", "online_status",
		"reloadCurrentChat", "saveChat", "saveChatConditional", "saveChatDebounced", "saveMetadata",
		"saveSettingsDebounced", "sendSystemMessage", "setExtensionPrompt", "substituteParams", "this_chid",
	},
	"/scripts/extensions.js": {
		"extension_settings", "getContext", "renderExtensionTemplate", "renderExtensionTemplateAsync",
		"saveMetadataDebounced", "writeExtensionField",
	},
	"/scripts/group-chats.js":    {"groups", "is_group_generating", "selected_group"},
	"/scripts/power-user.js":     {"power_user"},
	"/scripts/world-info.js":     {"loadWorldInfo", "saveWorldInfo", "world_info"},
	"/scripts/utils.js":          {"debounce", "delay", "uuidv4"},
	"/scripts/popup.js":          {"POPUP_RESULT", "POPUP_TYPE", "callGenericPopup"},
	"/scripts/i18n.js":           {"addLocaleData", "applyLocale", "getCurrentLocale", "t", "translate"},
	"/scripts/slash-commands.js": {},
	"/lib.js":                    {"DOMPurify", "lodash"},
}

// ContextMembers are the getContext() members Hearth backs (HOST-ABI §9
// and the page tier's additions).
var ContextMembers = []string{
	"addLocaleData", "addMessages", "addOneMessage", "appendChatMessages", "appendMediaToMessage", "callGenericPopup",
	"characterId", "characters", "chat", "chatMetadata", "chat_metadata", "clearChat", "closeCurrentChat",
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
