package prompt

import (
	"sort"
	"strings"

	"hearth/backend/providers"
)

// injection is one message placed inside the history at a depth.
type injection struct {
	depth int
	block Block
}

// contribution is one text that wants a place at a depth.
type contribution struct {
	key    string
	source string
	depth  int
	role   string
	text   string
	preset bool // a prompt-order item (these come before extension texts)
}

// injections gathers every in-chat text (prompt-order items marked in
// chat, IN_CHAT extension prompts, the Author's Note, the card's depth
// prompt, an at-depth persona description, world info at depth) and
// combines them as SillyTavern does: per depth, one message per role,
// prompt-order texts first, then extension texts in key order.
func (a *assembler) injections() []injection {
	in := a.in
	var cs []contribution
	for _, it := range in.Preset.Prompts {
		if it.Enabled && it.InChat && !it.Marker {
			cs = append(cs, contribution{key: it.Identifier, source: it.Identifier, depth: it.Depth, role: roleOrSystem(it.Role), text: a.m.Expand(it.Content), preset: true})
		}
	}
	for _, ep := range in.ExtensionPrompts {
		if ep.Position == PositionInChat {
			cs = append(cs, contribution{key: ep.Key, source: ep.Key, depth: ep.Depth, role: roleName(ep.Role), text: ep.Value})
		}
	}
	for _, ep := range in.WorldInfo.Depth {
		cs = append(cs, contribution{key: ep.Key, source: ep.Key, depth: ep.Depth, role: roleName(ep.Role), text: ep.Value})
	}
	if note, ok := a.authorNote(); ok && in.AuthorNote.Position == PositionInChat {
		cs = append(cs, contribution{key: keyAuthorsNote, source: SourceAuthorsNote, depth: in.AuthorNote.Depth, role: roleName(in.AuthorNote.Role), text: note})
	}
	if d := in.Card.DepthPrompt; strings.TrimSpace(d.Text) != "" {
		cs = append(cs, contribution{key: keyDepthPrompt, source: SourceDepthPrompt, depth: d.Depth, role: roleOrSystem(d.Role), text: a.m.Expand(d.Text)})
	}
	if p := in.Persona; p.Position == PersonaAtDepth && strings.TrimSpace(p.Description) != "" {
		cs = append(cs, contribution{key: keyPersona, source: SourcePersonaDepth, depth: p.Depth, role: roleName(p.Role), text: a.m.Expand(p.Description)})
	}

	kept := cs[:0]
	for _, c := range cs {
		if strings.TrimSpace(c.text) != "" {
			if c.depth < 0 {
				c.depth = 0
			}
			kept = append(kept, c)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		ci, cj := kept[i], kept[j]
		if ci.depth != cj.depth {
			return ci.depth > cj.depth // deeper first: earlier in the chat
		}
		if ci.preset != cj.preset {
			return ci.preset
		}
		if ci.preset {
			return false // prompt-order items keep their order
		}
		return ci.key < cj.key
	})

	var out []injection
	for i := 0; i < len(kept); {
		j := i
		for j < len(kept) && kept[j].depth == kept[i].depth {
			j++
		}
		// Within a depth, SillyTavern's order read top to bottom is
		// assistant, user, system: system lands nearest the reply.
		for _, role := range []string{"assistant", "user", "system"} {
			var texts, sources []string
			for _, c := range kept[i:j] {
				if c.role == role {
					texts = append(texts, strings.TrimSpace(c.text))
					sources = append(sources, c.source)
				}
			}
			if len(texts) == 0 {
				continue
			}
			b := Block{Source: strings.Join(sources, "+"), Message: providers.Message{Role: roleOf(role), Content: strings.Join(texts, "\n")}}
			out = append(out, injection{depth: kept[i].depth, block: b})
		}
		i = j
	}
	return out
}

// placeInjections puts each injection before the last depth messages of
// hist; a depth at or past the history's length lands before its first
// message, depth 0 after its last. Deeper injections come first.
func placeInjections(hist []Block, inj []injection) []Block {
	if len(inj) == 0 {
		return hist
	}
	out := make([]Block, 0, len(hist)+len(inj))
	k := 0
	for i := 0; i <= len(hist); i++ {
		for k < len(inj) && len(hist)-min(inj[k].depth, len(hist)) == i {
			out = append(out, inj[k].block)
			k++
		}
		if i < len(hist) {
			out = append(out, hist[i])
		}
	}
	return out
}

func roleOrSystem(role string) string {
	switch role {
	case "user", "assistant":
		return role
	}
	return "system"
}
