package generate

import (
	"regexp"
	"strings"

	"hearth/backend/groups"
	"hearth/backend/prompt"
)

// A group member's prompt is a 1:1 prompt with the member as {{char}}
// and, from the group, its names for the macros ({{group}},
// {{groupNotMuted}}, {{notChar}}), the group nudge ending the history and
// the new-group-chat prompt (backend/prompt). In swap mode the card is the
// member's own and so is the lorebook; in the join modes the description,
// personality, scenario and examples are every included member's, each
// wrapped in the group's join prefix and suffix, and every included
// member's lorebook is scanned (SillyTavern scans the speaker's only).

// fill puts the member's card and the group into in, and returns the
// lorebooks of the other included members (join modes).
func (m *member) fill(in *prompt.Input) (otherWorlds []string) {
	p := m.turn
	card := p.cards[m.avatar]
	in.Card = cardOf(card.Data)
	g := &prompt.Group{}
	for _, mem := range p.members {
		g.Members = append(g.Members, mem.Name)
		if !mem.Muted {
			g.NotMuted = append(g.NotMuted, mem.Name)
		}
	}
	in.Group = g
	mode := p.group.GenerationMode()
	if mode != groups.Join && mode != groups.JoinWithMuted {
		return nil
	}
	var included []groups.Member
	for _, mem := range p.members {
		if mem.Muted && mem.Avatar != m.avatar && mode != groups.JoinWithMuted {
			continue
		}
		included = append(included, mem)
		if mem.Avatar != m.avatar {
			if w := cardWorld(p.cards[mem.Avatar].Data); w != "" {
				otherWorlds = append(otherWorlds, w)
			}
		}
	}
	j := joiner{in: in, prefix: p.group.JoinPrefix(), suffix: p.group.JoinSuffix()}
	field := func(name string, get func(prompt.Card) string, pre func(string) string) string {
		var parts []string
		for _, mem := range included {
			if v := j.wrap(get(cardOf(p.cards[mem.Avatar].Data)), mem.Name, name, pre); v != "" {
				parts = append(parts, v)
			}
		}
		return strings.Join(parts, "\n")
	}
	in.Card.Description = field("Description", func(c prompt.Card) string { return c.Description }, nil)
	in.Card.Personality = field("Personality", func(c prompt.Card) string { return c.Personality }, nil)
	in.Card.Scenario = field("Scenario", func(c prompt.Card) string { return c.Scenario }, nil)
	in.Card.MesExample = field("Example Messages", func(c prompt.Card) string { return c.MesExample }, func(s string) string {
		if !strings.HasPrefix(s, "<START>") {
			return "<START>\n" + s
		}
		return s
	})
	return otherWorlds
}

// fieldName is the join prefix's and suffix's <FIELDNAME>, any case.
var fieldName = regexp.MustCompile(`(?i)<FIELDNAME>`)

// joiner wraps the members' card fields for a join-mode prompt, as
// SillyTavern's getGroupCharacterCards does: the field trimmed, then
// prefix + field + suffix, <FIELDNAME> in each replaced by the field's
// name and the macros expanded with that member as {{char}}.
type joiner struct {
	in             *prompt.Input
	prefix, suffix string
}

func (j joiner) wrap(value, memberName, field string, pre func(string) string) string {
	value = strings.TrimSpace(value)
	if value == "" {
		return ""
	}
	if pre != nil {
		value = pre(value)
	}
	as := *j.in
	as.Card.Name = memberName
	macros := prompt.NewMacros(&as, "", "", "")
	transform := func(s string) string {
		return macros.Expand(fieldName.ReplaceAllLiteralString(s, field))
	}
	value = macros.Expand(strings.TrimSpace(fieldName.ReplaceAllLiteralString(value, field)))
	return transform(j.prefix) + value + transform(j.suffix)
}
