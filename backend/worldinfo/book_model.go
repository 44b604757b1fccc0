package worldinfo

import "hearth/backend/jsonx"

// Positions an activated entry's content can go to (SillyTavern's
// world_info_position).
const (
	// PositionBefore puts the content before the character definitions.
	PositionBefore = 0
	// PositionAfter puts the content after the character definitions.
	PositionAfter = 1
	// PositionANTop puts the content above the Author's Note.
	PositionANTop = 2
	// PositionANBottom puts the content below the Author's Note.
	PositionANBottom = 3
	// PositionAtDepth puts the content into the history at Depth, as Role.
	PositionAtDepth = 4
	// PositionEMTop puts the content before the example messages.
	PositionEMTop = 5
	// PositionEMBottom puts the content after the example messages.
	PositionEMBottom = 6
	// PositionOutlet keeps the content under OutletName for an
	// {{outlet::name}} macro to place.
	PositionOutlet = 7
	// PositionNone is what a missing or null position reads as: the entry
	// activates (and spends budget) but is placed nowhere, as in
	// SillyTavern.
	PositionNone = -1
)

// PositionName is the name SillyTavern's code gives position p ("before",
// "atDepth", …), or "" for a position it does not know. Activation
// snapshots carry it so a reader need not know the numbers.
func PositionName(p int) string {
	switch p {
	case PositionBefore:
		return "before"
	case PositionAfter:
		return "after"
	case PositionANTop:
		return "ANTop"
	case PositionANBottom:
		return "ANBottom"
	case PositionAtDepth:
		return "atDepth"
	case PositionEMTop:
		return "EMTop"
	case PositionEMBottom:
		return "EMBottom"
	case PositionOutlet:
		return "outlet"
	}
	return ""
}

// Secondary-key logics (SillyTavern's world_info_logic): how an entry's
// secondary keys combine once a primary key matched.
const (
	// LogicAndAny activates when any secondary key matches.
	LogicAndAny = 0
	// LogicNotAll activates when at least one secondary key does not match.
	LogicNotAll = 1
	// LogicNotAny activates when no secondary key matches.
	LogicNotAny = 2
	// LogicAndAll activates when every secondary key matches.
	LogicAndAll = 3
)

// Roles of an at-depth entry (SillyTavern's extension_prompt_roles).
const (
	RoleSystem    = 0
	RoleUser      = 1
	RoleAssistant = 2
)

// Defaults SillyTavern applies when a field is missing.
const (
	// DefaultDepth is the insertion depth of an at-depth entry without one.
	DefaultDepth = 4
	// DefaultWeight is the inclusion-group weight of an entry without one.
	DefaultWeight = 100
	// DefaultOrder is the insertion order of a new entry.
	DefaultOrder = 100
	// MaxScanDepth is the deepest message a scan can reach; deeper scan
	// depths are cut to it.
	MaxScanDepth = 1000
)

// Book is one lorebook: SillyTavern's worlds/<name>.json, whose name is the
// file name. Entries are kept in the order SillyTavern enumerates them
// (numeric uids ascending), which is also the order ties in Order keep.
type Book struct {
	Entries []*Entry
	// Extra holds the book's other top-level fields verbatim:
	// originalData (the character_book a converted book came from), name,
	// extensions, whatever an extension added.
	Extra jsonx.Object

	// order is the top-level key order as read; nil for a new book.
	order []string
}

// CharacterFilter limits an entry to some characters (or excludes them):
// by card file name and by tag id.
type CharacterFilter struct {
	IsExclude bool
	Names     []string
	Tags      []string
}

// Entry is one lorebook entry with every field SillyTavern writes. Fields
// a file lacks read as SillyTavern reads them (a missing depth is
// DefaultDepth, a missing position PositionNone); use NewEntry for a fresh
// entry with SillyTavern's template values. Unknown fields live in Extra
// and are written back unchanged, in their original place.
type Entry struct {
	UID          int
	Key          []string
	KeySecondary []string
	// Comment is the entry's title (the "memo").
	Comment string
	Content string
	// Constant entries activate without a key match.
	Constant bool
	// Vectorized entries are left to the vector-storage extension.
	Vectorized bool
	// Selective makes the secondary keys count.
	Selective      bool
	SelectiveLogic int
	AddMemo        bool
	// Order sorts activated entries: higher comes later in the text and
	// wins budget and inclusion-group ties first.
	Order    int
	Position int
	Disable  bool
	// IgnoreBudget entries enter even after the token budget ran out.
	IgnoreBudget bool
	// ExcludeRecursion entries are not activated by other entries' text.
	ExcludeRecursion bool
	// PreventRecursion entries' text does not activate other entries.
	PreventRecursion bool

	// The Match* flags add chat-independent texts to what the entry scans.
	MatchPersonaDescription   bool
	MatchCharacterDescription bool
	MatchCharacterPersonality bool
	MatchCharacterDepthPrompt bool
	MatchScenario             bool
	MatchCreatorNotes         bool

	// DelayUntilRecursion keeps the entry out of the first scan; above 1 it
	// names the recursion level it waits for (true in a file reads as 1).
	DelayUntilRecursion int
	// Probability is the percent chance the entry enters once activated,
	// when UseProbability is set.
	Probability    float64
	UseProbability bool
	// Depth and Role place a PositionAtDepth entry.
	Depth int
	Role  int
	// OutletName names the outlet of a PositionOutlet entry.
	OutletName string
	// Group lists the inclusion groups (comma-separated) the entry
	// competes in: one entry per group enters.
	Group         string
	GroupOverride bool
	GroupWeight   float64
	// ScanDepth, CaseSensitive, MatchWholeWords and UseGroupScoring
	// override the global settings; nil uses them.
	ScanDepth       *int
	CaseSensitive   *bool
	MatchWholeWords *bool
	UseGroupScoring *bool
	AutomationID    string
	// Sticky keeps the entry active for that many messages after it
	// activated, Cooldown keeps it out for that many after, Delay keeps it
	// out until the chat has that many messages.
	Sticky   int
	Cooldown int
	Delay    int
	// Triggers limits the entry to these generation types ("normal",
	// "continue", …); empty allows all.
	Triggers        []string
	DisplayIndex    int
	CharacterFilter *CharacterFilter
	// Extensions is the card entry's extensions object on a book converted
	// from a character_book, kept so the way back loses nothing.
	Extensions jsonx.Object
	// Extra holds fields this package does not know, verbatim.
	Extra jsonx.Object

	// key is the entries-object key the entry was read under, origUID its
	// uid then; orig holds the raw values of the known fields as read and
	// order the field order, nil for an entry made in Go.
	key     string
	origUID int
	orig    jsonx.Object
	order   []string
}

// NewEntry returns an entry with SillyTavern's template values (what its
// editor creates): selective, order 100, probability 100, depth 4.
func NewEntry(uid int) *Entry {
	return &Entry{
		UID:            uid,
		Key:            []string{},
		KeySecondary:   []string{},
		Selective:      true,
		Order:          DefaultOrder,
		Probability:    100,
		UseProbability: true,
		Depth:          DefaultDepth,
		GroupWeight:    DefaultWeight,
		Triggers:       []string{},
	}
}

// absentEntry returns an entry as SillyTavern sees one whose file has no
// fields: the values a missing field reads as.
func absentEntry() *Entry {
	return &Entry{
		Position:    PositionNone,
		Depth:       DefaultDepth,
		GroupWeight: DefaultWeight,
	}
}

// mapKey is the key the entry is written under in the entries object:
// the key it was read under while its uid is unchanged, else its uid.
func (e *Entry) mapKey() string {
	if e.key != "" && e.UID == e.origUID {
		return e.key
	}
	return itoa(e.UID)
}
