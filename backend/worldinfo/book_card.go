package worldinfo

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"hearth/backend/jsonx"
)

// FromCharacterBook converts a card's embedded data.character_book (the V2
// card spec's lorebook) into a world book, as SillyTavern's
// convertCharacterBook does when a card's lore is imported: each card
// entry becomes an entry keyed by its id (its index when it has none),
// SillyTavern's own settings come from the entry's extensions, and the
// card book itself is kept under originalData (with the ids it was given).
// name is the card book's name, "" when it has none; SillyTavern then
// names the world "<character>'s Lorebook".
func FromCharacterBook(raw json.RawMessage) (book *Book, name string, err error) {
	if len(raw) > MaxBookBytes {
		return nil, "", invalid("character_book", "is %d bytes; at most %d are allowed", len(raw), MaxBookBytes)
	}
	if d := jsonx.Depth(raw); d > jsonx.MaxDepth {
		return nil, "", invalid("character_book", "nests %d levels deep; at most %d are allowed", d, jsonx.MaxDepth)
	}
	top, err := decodeMembers(raw, "character_book")
	if err != nil {
		return nil, "", err
	}
	var items []json.RawMessage
	entriesAt := -1
	for i, m := range top {
		switch m.key {
		case "name":
			_ = json.Unmarshal(m.value, &name)
		case "entries":
			entriesAt = i
			if m.value[0] != '[' || json.Unmarshal(m.value, &items) != nil {
				return nil, "", invalid("character_book.entries", "must be an array")
			}
		}
	}
	if entriesAt < 0 {
		return nil, "", invalid("character_book.entries", "is missing")
	}
	if len(items) > MaxEntries {
		return nil, "", invalid("character_book.entries", "has %d entries; at most %d are allowed", len(items), MaxEntries)
	}

	byUID := make(map[int]int, len(items))
	var converted []*Entry
	originals := make([]byte, 0, len(raw))
	originals = append(originals, '[')
	for i, it := range items {
		path := "character_book.entries[" + itoa(i) + "]"
		ms, err := decodeMembers(it, path)
		if err != nil {
			return nil, "", err
		}
		if !hasMember(ms, "id") {
			ms = append(ms, jsMember{key: "id", value: []byte(itoa(i))})
		}
		e, err := cardEntryToWorld(ms, i, path)
		if err != nil {
			return nil, "", err
		}
		if i > 0 {
			originals = append(originals, ',')
		}
		originals = appendJSObject(originals, ms)
		// A repeated id replaces the earlier entry in its place, as an
		// assignment to the same object key does.
		if at, dup := byUID[e.UID]; dup {
			converted[at] = e
			continue
		}
		byUID[e.UID] = len(converted)
		converted = append(converted, e)
	}
	originals = append(originals, ']')
	top[entriesAt].value = originals

	sortEntriesJS(converted)
	book = &Book{Entries: converted, order: []string{"entries", "originalData"}}
	book.Extra = jsonx.Object{"originalData": appendJSObject(nil, top)}
	if err := book.Validate(); err != nil {
		return nil, "", err
	}
	return book, name, nil
}

// cardEntryToWorld maps one character_book entry (its members ms, at
// index i) onto a world entry, SillyTavern's template filling the rest.
func cardEntryToWorld(ms []jsMember, i int, path string) (*Entry, error) {
	top := make(map[string][]byte, len(ms))
	for _, m := range ms {
		top[m.key] = m.value
	}
	var ext jsonx.Object
	if raw, ok := top["extensions"]; ok && !isNull(raw) {
		if err := decObject(&ext, raw, path+".extensions"); err != nil {
			return nil, err
		}
	}
	e := NewEntry(0)
	e.Extensions = ext
	if e.Extensions == nil {
		e.Extensions = jsonx.Object{}
	}
	e.DisplayIndex = i
	e.Probability = 100
	e.Position = PositionAfter
	if pos, ok := top["position"]; ok && string(pos) == `"before_char"` {
		e.Position = PositionBefore
	}
	e.Selective = false

	// From the card entry itself; a missing or null value keeps the default.
	plain := []struct{ from, to string }{
		{"id", "uid"}, {"keys", "key"}, {"secondary_keys", "keysecondary"}, {"comment", "comment"},
		{"content", "content"}, {"constant", "constant"}, {"selective", "selective"}, {"insertion_order", "order"},
	}
	for _, p := range plain {
		if err := setFrom(e, p.to, top[p.from], path+"."+p.from); err != nil {
			return nil, err
		}
	}
	var enabled bool
	if err := decBool(&enabled, top["enabled"], path+".enabled"); err != nil {
		return nil, err
	}
	e.Disable = !enabled
	e.AddMemo = e.Comment != ""

	// From the extensions SillyTavern writes there.
	for _, p := range cardExtensionFields {
		if err := setFrom(e, p.world, ext[p.card], path+".extensions."+p.card); err != nil {
			return nil, err
		}
	}
	if e.Triggers == nil {
		e.Triggers = []string{}
	}
	if e.Key == nil {
		e.Key = []string{}
	}
	if e.KeySecondary == nil {
		e.KeySecondary = []string{}
	}
	return e, nil
}

// cardExtensionFields pairs a character_book entry's extensions key with
// the world entry field it carries (both directions).
var cardExtensionFields = []struct{ card, world string }{
	{"position", "position"},
	{"exclude_recursion", "excludeRecursion"},
	{"display_index", "displayIndex"},
	{"probability", "probability"},
	{"useProbability", "useProbability"},
	{"depth", "depth"},
	{"selectiveLogic", "selectiveLogic"},
	{"outlet_name", "outletName"},
	{"group", "group"},
	{"group_override", "groupOverride"},
	{"group_weight", "groupWeight"},
	{"prevent_recursion", "preventRecursion"},
	{"delay_until_recursion", "delayUntilRecursion"},
	{"scan_depth", "scanDepth"},
	{"match_whole_words", "matchWholeWords"},
	{"use_group_scoring", "useGroupScoring"},
	{"case_sensitive", "caseSensitive"},
	{"automation_id", "automationId"},
	{"role", "role"},
	{"vectorized", "vectorized"},
	{"sticky", "sticky"},
	{"cooldown", "cooldown"},
	{"delay", "delay"},
	{"match_persona_description", "matchPersonaDescription"},
	{"match_character_description", "matchCharacterDescription"},
	{"match_character_personality", "matchCharacterPersonality"},
	{"match_character_depth_prompt", "matchCharacterDepthPrompt"},
	{"match_scenario", "matchScenario"},
	{"match_creator_notes", "matchCreatorNotes"},
	{"triggers", "triggers"},
	{"ignore_budget", "ignoreBudget"},
}

// setFrom decodes raw into the world field named field, unless raw is
// missing or null (SillyTavern's `??` keeps the default then).
func setFrom(e *Entry, field string, raw []byte, path string) error {
	if raw == nil || isNull(raw) {
		return nil
	}
	return entryFields[fieldIndex[field]].decode(e, raw, path)
}

// sortEntriesJS orders entries as JavaScript enumerates an object keyed
// by their uids: uids that are array indexes ascending, the rest after in
// their current order.
func sortEntriesJS(entries []*Entry) {
	sort.SliceStable(entries, func(i, j int) bool {
		a, aok := arrayIndex(itoa(entries[i].UID))
		b, bok := arrayIndex(itoa(entries[j].UID))
		if aok && bok {
			return a < b
		}
		return aok && !bok
	})
}

func hasMember(ms []jsMember, key string) bool {
	for _, m := range ms {
		if m.key == key {
			return true
		}
	}
	return false
}

// ToCharacterBook converts a world book into a card's character_book, as
// SillyTavern does when it exports a card with its lorebook: entries in
// uid order with SillyTavern's settings under each entry's extensions
// (over whatever extensions the entry carried from a card). name becomes
// the book's name.
func ToCharacterBook(name string, b *Book) (json.RawMessage, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	out := []byte(`{"entries":[`)
	for i, e := range b.Entries {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendJSObject(out, worldEntryToCard(e))
	}
	out = append(out, `],"name":`...)
	out = appendJSString(out, name)
	out = append(out, `,"extensions":{}}`...)
	return out, nil
}

// worldEntryToCard maps a world entry onto a character_book entry.
func worldEntryToCard(e *Entry) []jsMember {
	v := entryValues(e)
	var ms []jsMember
	add := func(key string, value []byte) {
		if value != nil {
			ms = append(ms, jsMember{key: key, value: value})
		}
	}
	add("id", v.get("uid"))
	add("keys", v.get("key"))
	add("secondary_keys", v.get("keysecondary"))
	add("comment", v.get("comment"))
	add("content", v.get("content"))
	add("constant", v.get("constant"))
	add("selective", v.get("selective"))
	add("insertion_order", v.get("order"))
	add("enabled", strconv.AppendBool(nil, !e.Disable))
	if e.Position == PositionBefore {
		add("position", []byte(`"before_char"`))
	} else {
		add("position", []byte(`"after_char"`))
	}
	add("use_regex", []byte("true"))

	var ext []jsMember
	if raw := v.get("extensions"); raw != nil {
		ext, _ = decodeMembers(raw, "extensions")
	}
	or := func(field, fallback string) []byte {
		if raw := v.get(field); raw != nil {
			return raw
		}
		return []byte(fallback)
	}
	for _, p := range cardExtensionFields {
		var value []byte
		switch p.card {
		case "position", "exclude_recursion", "display_index":
			value = v.get(p.world)
		case "probability", "group_weight", "scan_depth", "match_whole_words", "case_sensitive", "sticky", "cooldown", "delay":
			value = or(p.world, "null")
		case "depth":
			value = or(p.world, itoa(DefaultDepth))
		case "selectiveLogic", "role":
			value = or(p.world, "0")
		case "outlet_name", "group", "automation_id":
			value = or(p.world, `""`)
		case "triggers":
			value = or(p.world, "[]")
		default:
			value = or(p.world, "false")
		}
		if value != nil {
			ext = append(ext, jsMember{key: p.card, value: value})
		}
	}
	add("extensions", appendJSObject(nil, ext))
	return ms
}

// fieldValues gives an entry's fields as JSON the way JavaScript would
// read them off the object: nil for a field the entry does not have or
// holds null.
type fieldValues map[string][]byte

func (v fieldValues) get(name string) []byte { return v[name] }

// entryValues collects the entry's set fields.
func entryValues(e *Entry) fieldValues {
	v := fieldValues{}
	for _, m := range e.members() {
		if _, known := fieldIndex[m.key]; known && !bytes.Equal(m.value, []byte("null")) {
			v[m.key] = m.value
		}
	}
	return v
}
