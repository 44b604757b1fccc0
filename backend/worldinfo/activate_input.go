package worldinfo

import "time"

// Insertion strategies: how global and character lore interleave
// (SillyTavern's world_info_insertion_strategy).
const (
	// StrategyEvenly sorts global and character entries together by order.
	StrategyEvenly = 0
	// StrategyCharacterFirst puts character lore before global lore.
	StrategyCharacterFirst = 1
	// StrategyGlobalFirst puts global lore before character lore.
	StrategyGlobalFirst = 2
)

// Settings are the global World Info settings. The JSON names are
// SillyTavern's settings.json keys, so its values can be read as they are.
type Settings struct {
	// Depth is how many of the newest messages are scanned.
	Depth int `json:"world_info_depth"`
	// MinActivations, when above zero, widens the scan a message at a time
	// until that many entries activated (or MinActivationsDepthMax, or the
	// chat's start, is reached).
	MinActivations         int `json:"world_info_min_activations"`
	MinActivationsDepthMax int `json:"world_info_min_activations_depth_max"`
	// Budget is the share of the context, in percent, entries may fill;
	// BudgetCap, when above zero, caps it in tokens.
	Budget    int `json:"world_info_budget"`
	BudgetCap int `json:"world_info_budget_cap"`
	// IncludeNames scans messages as "Name: text".
	IncludeNames bool `json:"world_info_include_names"`
	// Recursive lets activated entries' content activate more entries.
	Recursive bool `json:"world_info_recursive"`
	// MaxRecursionSteps, when above zero, bounds the scan passes.
	MaxRecursionSteps int  `json:"world_info_max_recursion_steps"`
	CaseSensitive     bool `json:"world_info_case_sensitive"`
	MatchWholeWords   bool `json:"world_info_match_whole_words"`
	UseGroupScoring   bool `json:"world_info_use_group_scoring"`
	CharacterStrategy int  `json:"world_info_character_strategy"`
}

// DefaultSettings are SillyTavern's defaults. The zero Settings scans
// nothing (depth 0) and has no budget; start from these instead.
func DefaultSettings() Settings {
	return Settings{Depth: 2, Budget: 25, IncludeNames: true, CharacterStrategy: StrategyCharacterFirst}
}

// Source kinds: where a book is attached. They decide the scan order and
// which duplicate attachment of a book counts.
const (
	// SourceGlobal books are selected for every chat.
	SourceGlobal = "global"
	// SourceCharacter books are the character's primary and extra books.
	SourceCharacter = "character"
	// SourceChat is the book bound to the chat (metadata world_info).
	SourceChat = "chat"
	// SourcePersona is the book bound to the user's persona.
	SourcePersona = "persona"
)

// Source is one attached book.
type Source struct {
	// World is the book's name (its file name without .json).
	World string
	// Kind is one of the Source* constants.
	Kind string
	Book *Book
}

// Message is one scanned chat message.
type Message struct {
	Name string
	Text string
}

// GlobalScanData are chat-independent texts an entry may opt into
// scanning (its Match* flags).
type GlobalScanData struct {
	PersonaDescription   string
	CharacterDescription string
	CharacterPersonality string
	CharacterDepthPrompt string
	Scenario             string
	CreatorNotes         string
}

// EntryRef names one entry of one book.
type EntryRef struct {
	World string
	UID   int
}

// Input is everything one activation reads.
type Input struct {
	Settings Settings
	Sources  []Source
	// Messages are the chat as the prompt sees it, oldest first: hidden
	// and system messages left out, the reply being swiped dropped. Only
	// the newest MaxScanDepth are ever scanned, so a long chat may pass
	// just its tail.
	Messages []Message
	// ChatLength is the number of messages in the whole chat as above
	// (timed effects and min activations count it); when smaller than
	// len(Messages), len(Messages) is used.
	ChatLength int
	Global     GlobalScanData
	// Inject are extra scan sources: the extension prompts marked for
	// scanning (the Author's Note when its scan option is on, …), already
	// macro-expanded.
	Inject []string
	// MaxContext is the context size in tokens the budget is a share of.
	MaxContext int
	// Tokens counts the tokens of a text. Required.
	Tokens func(text string) int
	// Rand returns a number in [0, 1) for probability and inclusion-group
	// rolls; nil uses math/rand/v2.
	Rand func() float64
	// Substitute expands macros ({{char}}, {{user}}, …) in keys and in
	// activated content; nil leaves text as is.
	Substitute func(text string) string
	// Trigger is the generation type ("normal", "continue", "impersonate",
	// "swipe", "regenerate", "quiet"), matched against entries' Triggers;
	// "" is "normal".
	Trigger string
	// CharacterFile is the card's file name without extension, matched
	// against entries' CharacterFilter names.
	CharacterFile string
	// CharacterTags are the character's tag ids for CharacterFilter tags;
	// nil means there is no single character (a group chat) and tag
	// filters do not apply.
	CharacterTags []string
	// Force activates these entries whatever their keys (SillyTavern's
	// WORLDINFO_FORCE_ACTIVATE).
	Force []EntryRef
	// Timed is the chat's stored timedWorldInfo.
	Timed TimedState
	// DryRun computes the activation without advancing timed effects:
	// sticky and cooldown neither apply nor get set, as in SillyTavern.
	DryRun bool
	// Deadline bounds the whole scan; zero is ActivationDeadline. Past it
	// the scan matches no more keys and the result is CutShort.
	Deadline time.Duration
	// Clock reads the time the deadline is measured on; nil is time.Now.
	// A test drives it to cut a scan at a chosen key.
	Clock func() time.Time
}

// Activated is one entry that entered the prompt.
type Activated struct {
	World string
	UID   int
	// DisplayName is the entry's comment, or its keys when it has none.
	DisplayName string
	Constant    bool
	// Content is the text as placed (decorators removed, macros expanded).
	Content string
	// Position is the entry's position and PositionName its name.
	Position     int
	PositionName string
	Order        int
	// Depth and Role are set for PositionAtDepth, OutletName for
	// PositionOutlet.
	Depth      int
	Role       int
	OutletName string
}

// DepthEntry is the text of the at-depth entries that share a depth and
// role, joined by newlines.
type DepthEntry struct {
	Depth   int
	Role    int
	Content string
}

// Result is what one activation produced: the text per position, the
// activated entries and the timed state to store.
type Result struct {
	// Before and After go around the character definitions.
	Before string
	After  string
	// ANTop and ANBottom go around the Author's Note (see AuthorNote).
	ANTop    []string
	ANBottom []string
	// EMTop and EMBottom go before and after the example messages, one
	// example block per item.
	EMTop    []string
	EMBottom []string
	// Outlets holds the outlet entries' texts by outlet name.
	Outlets map[string][]string
	// Depth lists the at-depth texts by depth and role.
	Depth []DepthEntry
	// Activated lists the entries in the order they activated.
	Activated []Activated
	// Timed is the state to store in chat metadata timedWorldInfo.
	Timed TimedState
	// Budget is the token budget the activation had; BudgetOverflowed
	// tells that entries were left out for it.
	Budget           int
	BudgetOverflowed bool
	// Warnings say, in words, what the scan could not do: keys it could
	// not use (a regex Go cannot run, one that took too long, one past its
	// book's cap), books it did not find, a deadline it ran into.
	Warnings []string
	// DisabledKeys lists the regex keys the scan did not run, by book,
	// entry and key, for the lorebook editor (at most maxReportedKeys).
	DisabledKeys []DisabledKey
	// CutShort tells that the scan ran past its deadline and stopped
	// matching keys: entries it had not checked by then did not activate.
	CutShort bool
}

// AuthorNote wraps the Author's Note text with the AN-positioned entries
// as SillyTavern does: top entries, the note, bottom entries, each block
// on its own line.
func (r *Result) AuthorNote(note string) string {
	s := joinLines(r.ANTop) + "\n" + note + "\n" + joinLines(r.ANBottom)
	if len(s) > 0 && s[0] == '\n' {
		s = s[1:]
	}
	if len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s
}

// Outlet is the text of the named outlet ({{outlet::name}}).
func (r *Result) Outlet(name string) string { return joinLines(r.Outlets[name]) }
