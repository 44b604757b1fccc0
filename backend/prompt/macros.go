package prompt

import (
	"strconv"
	"strings"
	"time"
)

// Macros expands SillyTavern's {{…}} macros in prompt text. One pass, no
// re-expansion of what a macro produced: a card cannot make the expansion
// grow without bound, and text that merely looks like a macro after
// substitution is left as the user wrote it. Unknown macros stay as they
// are, so a typo shows in the prompt inspector instead of vanishing.
type Macros struct {
	values map[string]string
}

// NewMacros returns the macros of one prompt. user and char are the
// persona's and the character's names; the rest come from in. In a group
// chat (in.Group) {{group}} and {{charIfNotGroup}} list every member,
// {{groupNotMuted}} the unmuted ones and {{notChar}} the other members
// and the user; in a 1:1 chat the first three are the character and
// {{notChar}} the user, as SillyTavern's substituteParams has them.
func NewMacros(in *Input, lastMessage, lastUser, lastChar string) *Macros {
	now := in.Now
	if now.IsZero() {
		now = time.Unix(0, 0).UTC()
	}
	user := in.Persona.Name
	if user == "" {
		user = "User"
	}
	v := map[string]string{
		"user":               user,
		"char":               in.Card.Name,
		"charifnotgroup":     in.Card.Name,
		"group":              in.Card.Name,
		"persona":            in.Persona.Description,
		"description":        in.Card.Description,
		"chardescription":    in.Card.Description,
		"personality":        in.Card.Personality,
		"charpersonality":    in.Card.Personality,
		"scenario":           in.Card.Scenario,
		"charscenario":       in.Card.Scenario,
		"mesexamples":        in.Card.MesExample,
		"mesexamplesraw":     in.Card.MesExample,
		"charprompt":         in.Card.SystemPrompt,
		"charjailbreak":      in.Card.PostHistoryInstructions,
		"chardepthprompt":    in.Card.DepthPrompt.Text,
		"model":              in.Model,
		"lastmessage":        lastMessage,
		"lastchatmessage":    lastMessage,
		"lastusermessage":    lastUser,
		"lastcharmessage":    lastChar,
		"newline":            "\n",
		"noop":               "",
		"time":               now.Format("3:04 PM"),
		"date":               now.Format("January 2, 2006"),
		"weekday":            now.Format("Monday"),
		"isotime":            now.Format("15:04"),
		"isodate":            now.Format("2006-01-02"),
		"input":              "",
		"maxprompt":          "",
		"original":           "",
		"trim":               "",
		"authorsnote":        in.AuthorNote.Prompt,
		"charauthorsnote":    "",
		"defaultauthorsnote": "",
	}
	v["groupnotmuted"], v["notchar"] = in.Card.Name, user
	if g := in.Group; g != nil {
		v["group"] = strings.Join(g.Members, ", ")
		v["charifnotgroup"] = v["group"]
		v["groupnotmuted"] = strings.Join(g.NotMuted, ", ")
		others := make([]string, 0, len(g.Members)+1)
		for _, name := range g.Members {
			if name != in.Card.Name {
				others = append(others, name)
			}
		}
		v["notchar"] = strings.Join(append(others, user), ", ")
	}
	if in.Preset.MaxContext > 0 {
		v["maxprompt"] = strconv.Itoa(in.Preset.MaxContext)
	}
	return &Macros{values: v}
}

// With returns a copy of m where {{name}} is value (for {{original}}).
func (m *Macros) With(name, value string) *Macros {
	c := make(map[string]string, len(m.values))
	for k, v := range m.values {
		c[k] = v
	}
	c[name] = value
	return &Macros{values: c}
}

// legacy are the pre-macro placeholders old cards still carry.
var legacy = []struct{ from, to string }{{"<user>", "user"}, {"<bot>", "char"}, {"<char>", "char"}}

// Expand substitutes every known macro in s.
func (m *Macros) Expand(s string) string {
	if !strings.Contains(s, "{{") && !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "{{") {
			end := strings.Index(s[i+2:], "}}")
			if end >= 0 {
				inner := s[i+2 : i+2+end]
				if out, ok := m.lookup(inner); ok {
					b.WriteString(out)
					i += end + 4
					continue
				}
			}
		}
		if s[i] == '<' {
			if n, out, ok := m.legacyAt(s[i:]); ok {
				b.WriteString(out)
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	out := b.String()
	if strings.Contains(s, "{{trim}}") {
		out = strings.TrimSpace(out)
	}
	return out
}

// lookup resolves one macro body (the text between the braces).
func (m *Macros) lookup(inner string) (string, bool) {
	name := strings.TrimSpace(inner)
	if strings.HasPrefix(name, "//") {
		return "", true // a comment
	}
	v, ok := m.values[strings.ToLower(name)]
	return v, ok
}

func (m *Macros) legacyAt(s string) (int, string, bool) {
	for _, l := range legacy {
		if len(s) >= len(l.from) && strings.EqualFold(s[:len(l.from)], l.from) {
			return len(l.from), m.values[l.to], true
		}
	}
	return 0, "", false
}
