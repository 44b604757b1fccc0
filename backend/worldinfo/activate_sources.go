package worldinfo

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"hearth/backend/apperr"
)

// collectEntries is SillyTavern's getSortedEntries: the entries of every
// attached book in scan order. A book attached twice counts once, where
// SillyTavern counts it (global over chat, chat over persona, all three
// over the character's). Chat lore comes first, then persona lore, then
// global and character lore by the insertion strategy, each sorted by
// order, highest first, ties in book order.
func collectEntries(in *Input) ([]*scanEntry, error) {
	byKind := map[string][]Source{}
	for i, s := range in.Sources {
		switch s.Kind {
		case SourceGlobal, SourceCharacter, SourceChat, SourcePersona:
		default:
			return nil, apperr.Invalid("sources[%d] has kind %q; want global, character, chat or persona", i, s.Kind)
		}
		if s.Book == nil {
			return nil, apperr.Invalid("sources[%d] (%s) has no book", i, s.World)
		}
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	take := func(kind string, skip ...map[string]bool) []*scanEntry {
		var out []*scanEntry
		seen := map[string]bool{}
		for _, s := range byKind[kind] {
			if seen[s.World] {
				continue
			}
			blocked := false
			for _, m := range skip {
				blocked = blocked || m[s.World]
			}
			if blocked {
				continue
			}
			seen[s.World] = true
			for _, e := range s.Book.Entries {
				out = append(out, newScanEntry(s.World, e))
			}
		}
		return out
	}
	global := names(byKind[SourceGlobal])
	chatNames := names(byKind[SourceChat])
	personaNames := names(byKind[SourcePersona])

	globalLore := take(SourceGlobal)
	chatLore := take(SourceChat, global)
	personaLore := take(SourcePersona, global, chatNames)
	characterLore := take(SourceCharacter, global, chatNames, personaNames)

	var rest []*scanEntry
	switch in.Settings.CharacterStrategy {
	case StrategyCharacterFirst:
		rest = append(byOrder(characterLore), byOrder(globalLore)...)
	case StrategyGlobalFirst:
		rest = append(byOrder(globalLore), byOrder(characterLore)...)
	default:
		rest = byOrder(append(globalLore, characterLore...))
	}
	out := append(byOrder(chatLore), byOrder(personaLore)...)
	return append(out, rest...), nil
}

func names(sources []Source) map[string]bool {
	m := make(map[string]bool, len(sources))
	for _, s := range sources {
		m[s.World] = true
	}
	return m
}

// byOrder sorts entries by order, highest first, keeping ties in place.
func byOrder(es []*scanEntry) []*scanEntry {
	slices.SortStableFunc(es, func(a, b *scanEntry) int { return cmp.Compare(b.e.Order, a.e.Order) })
	return es
}

func newScanEntry(world string, e *Entry) *scanEntry {
	decorators, content := parseDecorators(e.Content)
	return &scanEntry{e: e, world: world, ref: world + "." + itoa(e.UID), decorators: decorators, content: content}
}

// Decorators SillyTavern knows: lines at the top of an entry's content
// that force it on or off.
var knownDecorators = []string{"@@activate", "@@dont_activate"}

// parseDecorators splits the decorator lines ("@@…") off the top of an
// entry's content, as SillyTavern does: known ones are kept, an unknown
// one lets the "@@@" fallback lines after it stand in, and the content
// starts at the first other line. Content made only of decorator lines is
// kept whole.
func parseDecorators(content string) ([]string, string) {
	if !strings.HasPrefix(content, "@@") {
		return []string{}, content
	}
	strip := func(line string) string {
		if strings.HasPrefix(line, "@@@") {
			return line[1:]
		}
		return line
	}
	known := func(line string) bool {
		for _, d := range knownDecorators {
			if strings.HasPrefix(strip(line), d) {
				return true
			}
		}
		return false
	}
	decorators := []string{}
	fallback := false
	lines := strings.Split(content, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "@@") {
			return decorators, strings.Join(lines[i:], "\n")
		}
		if strings.HasPrefix(line, "@@@") && !fallback {
			continue
		}
		if known(line) {
			decorators = append(decorators, strip(line))
			fallback = false
		} else {
			fallback = true
		}
	}
	return decorators, content
}

func sortStrings(ss []string) { sort.Strings(ss) }
