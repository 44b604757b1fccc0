package worldinfo

import (
	"sort"
	"strings"
)

// place sorts the activated entries into the result's positions the way
// SillyTavern builds its prompt parts: entries are taken by order,
// highest first, and each is put in front of what its position already
// holds, so every position lists its entries lowest order first and the
// highest order ends nearest the chat. Outlets are the exception: there
// SillyTavern appends, so they list highest order first. At-depth entries
// share one text per depth and role. Entries whose text is empty activate
// but place nothing.
func (a *activation) place(res *Result) {
	sorted := append([]*scanEntry(nil), a.activated...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].e.Order > sorted[j].e.Order })

	var before, after []string
	type depthKey struct{ depth, role int }
	var depths []depthKey
	depthTexts := map[depthKey][]string{}
	for _, e := range sorted {
		text := e.text()
		if text == "" {
			continue
		}
		switch e.e.Position {
		case PositionBefore:
			before = prepend(before, text)
		case PositionAfter:
			after = prepend(after, text)
		case PositionEMTop:
			res.EMTop = prepend(res.EMTop, text)
		case PositionEMBottom:
			res.EMBottom = prepend(res.EMBottom, text)
		case PositionANTop:
			res.ANTop = prepend(res.ANTop, text)
		case PositionANBottom:
			res.ANBottom = prepend(res.ANBottom, text)
		case PositionAtDepth:
			k := depthKey{e.e.Depth, e.e.Role}
			if _, ok := depthTexts[k]; !ok {
				depths = append(depths, k)
			}
			depthTexts[k] = prepend(depthTexts[k], text)
		case PositionOutlet:
			if e.e.OutletName != "" {
				res.Outlets[e.e.OutletName] = append(res.Outlets[e.e.OutletName], text)
			}
		}
	}
	res.Before = strings.Join(before, "\n")
	res.After = strings.Join(after, "\n")
	for _, k := range depths {
		res.Depth = append(res.Depth, DepthEntry{Depth: k.depth, Role: k.role, Content: strings.Join(depthTexts[k], "\n")})
	}

	res.Activated = make([]Activated, 0, len(a.activated))
	for _, e := range a.activated {
		act := Activated{
			World:        e.world,
			UID:          e.e.UID,
			DisplayName:  displayName(e.e),
			Constant:     e.e.Constant,
			Content:      e.text(),
			Position:     e.e.Position,
			PositionName: PositionName(e.e.Position),
			Order:        e.e.Order,
		}
		switch e.e.Position {
		case PositionAtDepth:
			act.Depth, act.Role = e.e.Depth, e.e.Role
		case PositionOutlet:
			act.OutletName = e.e.OutletName
		}
		res.Activated = append(res.Activated, act)
	}
}

func prepend(ss []string, s string) []string {
	return append([]string{s}, ss...)
}

// displayName is what a reader calls the entry: its comment, or its keys.
func displayName(e *Entry) string {
	if e.Comment != "" {
		return e.Comment
	}
	return strings.Join(e.Key, ", ")
}
