package events

// The payloads of the library's events: lorebooks, characters, personas,
// the SillyTavern library import and export, and the window's APP_READY.

// WorldInfoUpdatedPayload is WORLDINFO_UPDATED's: OldName is set by a
// rename only.
type WorldInfoUpdatedPayload struct {
	Name    string `json:"name"`
	OldName string `json:"oldName,omitempty"`
	Op      string `json:"op" ts:"'save' | 'delete' | 'rename'"`
}

// WorldInfoSettingsPayload is WORLDINFO_SETTINGS_UPDATED's: the settings
// under SillyTavern's world_info_* names, and globalSelect.
type WorldInfoSettingsPayload struct {
	Settings any `json:"settings" ts:"Record<string, unknown> & { globalSelect: string[] }"`
}

// WorldInfoScanDonePayload is WORLDINFO_SCAN_DONE's. It has no revision:
// the scan reads the chat, it does not change it.
type WorldInfoScanDonePayload struct {
	ChatID           string `json:"chatId"`
	Activation       any    `json:"activation" ts:"WorldInfoActivation"`
	Budget           int    `json:"budget"`
	BudgetOverflowed bool   `json:"budgetOverflowed"`
}

// CharacterPayload is CHARACTER_CREATED's and CHARACTER_EDITED's: the card
// after the change.
type CharacterPayload struct {
	Avatar    string `json:"avatar"`
	Character any    `json:"character" ts:"Character"`
}

// CharacterDeletedPayload is CHARACTER_DELETED's.
type CharacterDeletedPayload struct {
	Avatar      string `json:"avatar"`
	DeleteChats bool   `json:"deleteChats"`
}

// PersonaChangedPayload is PERSONA_CHANGED's: which persona (null for a
// setActive or setDefault to none), what happened to it, and the active
// and default ids after the change, so a window need not ask.
type PersonaChangedPayload struct {
	PersonaID *string `json:"personaId"`
	Change    string  `json:"change" ts:"'saved' | 'deleted' | 'active' | 'default'"`
	ActiveID  *string `json:"activeId"`
	DefaultID *string `json:"defaultId"`
}

// LibraryProgressPayload is LIBRARY_PROGRESS's while a SillyTavern library
// import or export runs: Phase names the kind of item (lorebooks,
// characters, …), Current the item being worked on, relative to the folder
// (empty at a phase's end).
type LibraryProgressPayload struct {
	Op      string `json:"op" ts:"'import' | 'export'"`
	Phase   string `json:"phase"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Current string `json:"current"`
}

// AppReadyPayload is APP_READY's (fired by each window): empty.
type AppReadyPayload struct{}

// ExtensionInstalledPayload is EXTENSION_INSTALLED's: an extension was
// installed, or updated (Updated) from its source again.
type ExtensionInstalledPayload struct {
	ID      string `json:"id"`
	Mode    string `json:"mode" ts:"'sandboxed' | 'page'"`
	Enabled bool   `json:"enabled"`
	Updated bool   `json:"updated"`
}

// ExtensionRemovedPayload is EXTENSION_REMOVED's: Clean when its storage
// went too.
type ExtensionRemovedPayload struct {
	ID    string `json:"id"`
	Clean bool   `json:"clean"`
}

// ExtensionPayload is EXTENSION_ENABLED's and EXTENSION_DISABLED's.
type ExtensionPayload struct {
	ID string `json:"id"`
}

// ExtensionFailedPayload is EXTENSION_FAILED's: the runtime reported that
// the extension failed to load or to run a hook.
type ExtensionFailedPayload struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// ExtensionSafeModePayload is EXTENSION_SAFE_MODE's: whether every
// extension is off now (Active) and whether they start off (AtStart).
type ExtensionSafeModePayload struct {
	Active  bool `json:"active"`
	AtStart bool `json:"atStart"`
}

// ExtensionGrantPayload is EXTENSION_GRANT_CHANGED's: the grant of the
// extension after a grant or revoke that changed it. Windows running its
// frame hold its events back until they have read the grant again, so a
// revoke reaches the events sent after it, not a second later.
type ExtensionGrantPayload struct {
	ID      string   `json:"id"`
	Granted []string `json:"granted" ts:"ExtensionPermission[]"`
}
