package presets

import (
	"fmt"
	"strings"

	"hearth/backend/internal/inputs"
	"hearth/backend/prompt"
)

// prompts builds the prompt order: the file's order (see pickOrder) with
// each identifier's definition, the definitions the order leaves out
// appended disabled, and chatHistory added when the file has none.
func (r stReader) prompts(warn *[]string) ([]prompt.Item, error) {
	defs, err := r.objects("prompts")
	if err != nil {
		return nil, err
	}
	if len(defs) > maxPrompts { // every definition becomes an item
		return nil, tooMany(len(defs))
	}
	defaults := defaultsByID()
	byID := map[string]prompt.Item{}
	var defOrder []string
	for _, d := range defs {
		it, ok, err := d.definition(defaults, warn)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if _, dup := byID[it.Identifier]; dup {
			*warn = append(*warn, fmt.Sprintf("prompt %q is defined twice; the first definition is kept", inputs.Short(it.Identifier)))
			continue
		}
		byID[it.Identifier] = it
		defOrder = append(defOrder, it.Identifier)
	}
	order, err := r.pickOrder(warn)
	if err != nil {
		return nil, err
	}
	if order == nil {
		if len(defs) == 0 {
			*warn = append(*warn, "the file has no prompts: Hearth's default prompt order is used")
		} else {
			*warn = append(*warn, "the file has no prompt_order: its prompts follow Hearth's default order")
		}
		for _, it := range prompt.DefaultPreset().Prompts {
			order = append(order, stOrderEntry{id: it.Identifier, enabled: it.Enabled})
		}
	}
	var items []prompt.Item
	placed := map[string]bool{}
	for _, o := range order {
		if placed[o.id] {
			*warn = append(*warn, fmt.Sprintf("prompt_order names %q twice; the first place is kept", inputs.Short(o.id)))
			continue
		}
		it, ok := byID[o.id]
		if !ok {
			if it, ok = defaults[o.id]; !ok {
				*warn = append(*warn, fmt.Sprintf("prompt_order names %q, which the file does not define; it was left out", inputs.Short(o.id)))
				continue
			}
		}
		it.Enabled = o.enabled
		placed[o.id] = true
		items = append(items, it)
	}
	for _, id := range defOrder {
		if !placed[id] {
			it := byID[id]
			it.Enabled = false
			placed[id] = true
			items = append(items, it)
		}
	}
	if !placed[prompt.IdentChatHistory] {
		*warn = append(*warn, "the file has no chatHistory prompt; it was added at the end")
		items = append(items, defaults[prompt.IdentChatHistory])
	}
	if len(items) > maxPrompts {
		return nil, tooMany(len(items))
	}
	return items, nil
}

// definition reads one entry of prompts; ok is false when it has no
// identifier (reported, skipped).
func (r stReader) definition(defaults map[string]prompt.Item, warn *[]string) (prompt.Item, bool, error) {
	id, err := r.str("identifier")
	if err != nil {
		return prompt.Item{}, false, err
	}
	name, err := r.str("name")
	if err != nil {
		return prompt.Item{}, false, err
	}
	if id == nil || strings.TrimSpace(*id) == "" {
		label := "a prompt"
		if name != nil && *name != "" {
			label = fmt.Sprintf("prompt %q", inputs.Short(*name))
		}
		*warn = append(*warn, label+" has no identifier; it was left out")
		return prompt.Item{}, false, nil
	}
	it := prompt.Item{Identifier: *id, Role: "system", Enabled: true}
	if name != nil {
		it.Name = *name
	}
	if d, ok := defaults[it.Identifier]; ok && it.Name == "" {
		it.Name = d.Name
	}
	role, err := r.str("role")
	if err != nil {
		return prompt.Item{}, false, err
	}
	if role != nil && *role != "" {
		if roles[*role] {
			it.Role = *role
		} else {
			*warn = append(*warn, fmt.Sprintf("prompt %q has role %q; it is sent as a system message", inputs.Short(*id), inputs.Short(*role)))
		}
	}
	content, err := r.str("content")
	if err != nil {
		return prompt.Item{}, false, err
	}
	if content != nil {
		it.Content = *content
	}
	marker, err := r.boolean("marker")
	if err != nil {
		return prompt.Item{}, false, err
	}
	it.Marker = (marker != nil && *marker) || prompt.MarkerIdents[it.Identifier]
	pos, err := r.smallInt("injection_position")
	if err != nil {
		return prompt.Item{}, false, err
	}
	depth, err := r.smallInt("injection_depth")
	if err != nil {
		return prompt.Item{}, false, err
	}
	if _, err := r.boolean("system_prompt"); err != nil {
		return prompt.Item{}, false, err
	}
	if fo, err := r.boolean("forbid_overrides"); err != nil {
		return prompt.Item{}, false, err
	} else if fo != nil && *fo {
		*warn = append(*warn, fmt.Sprintf("prompt %q forbids overrides, which Hearth does not support: a card's own prompt still replaces it", inputs.Short(*id)))
	}
	switch {
	case pos == nil || *pos == 0:
	case *pos == 1 && it.Marker:
		*warn = append(*warn, fmt.Sprintf("marker %q cannot be placed in chat; it keeps its place in the order", inputs.Short(*id)))
	case *pos == 1:
		it.InChat = true
	default:
		*warn = append(*warn, fmt.Sprintf("prompt %q has injection_position %d; it keeps its place in the order", inputs.Short(*id), *pos))
	}
	switch {
	case depth != nil:
		it.Depth = *depth
	case it.InChat:
		it.Depth = stDefaultDepth
	}
	return it, true, nil
}

func defaultsByID() map[string]prompt.Item {
	out := map[string]prompt.Item{}
	for _, it := range prompt.DefaultPreset().Prompts {
		out[it.Identifier] = it
	}
	return out
}

// stOrderEntry is one {identifier, enabled} of a prompt order.
type stOrderEntry struct {
	id      string
	enabled bool
}

// pickOrder reads prompt_order and returns the global order: character_id
// 100001, else 100000, else the first entry. nil when the file has none.
func (r stReader) pickOrder(warn *[]string) ([]stOrderEntry, error) {
	lists, err := r.objects("prompt_order")
	if err != nil {
		return nil, err
	}
	if len(lists) == 0 {
		return nil, nil
	}
	chosen := -1
	for _, want := range []int64{stGlobalOrder, stLegacyOrder} {
		for i, l := range lists {
			cid, err := l.integer("character_id")
			if err != nil {
				return nil, err
			}
			if chosen < 0 && cid != nil && *cid == want {
				chosen = i
			}
		}
	}
	if chosen < 0 {
		chosen = 0
	}
	entries, err := lists[chosen].objects("order")
	if err != nil {
		return nil, err
	}
	if entries == nil {
		return nil, nil
	}
	if len(entries) > maxPrompts {
		return nil, tooMany(len(entries))
	}
	out := []stOrderEntry{}
	for _, e := range entries {
		id, err := e.str("identifier")
		if err != nil {
			return nil, err
		}
		enabled, err := e.boolean("enabled")
		if err != nil {
			return nil, err
		}
		if id == nil || *id == "" {
			*warn = append(*warn, "a prompt_order entry has no identifier; it was left out")
			continue
		}
		out = append(out, stOrderEntry{id: *id, enabled: enabled == nil || *enabled})
	}
	return out, nil
}
