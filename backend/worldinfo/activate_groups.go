package worldinfo

import (
	"sort"
	"strings"
)

// filterGroups is SillyTavern's filterByInclusionGroups: of the entries an
// inclusion group has among this pass's candidates, one survives. Sticky
// entries win their groups outright; entries on cooldown or delayed drop
// out; with group scoring, only the entries matching the most keys stay
// in the running; a group one of whose entries already activated admits
// none; then an override entry (highest order) wins, else a roll weighted
// by groupWeight picks the winner. It returns the candidates left.
func (a *activation) filterGroups(candidates []*scanEntry, state int) []*scanEntry {
	var names []string
	groups := map[string][]*scanEntry{}
	for _, e := range candidates {
		for _, g := range splitGroups(e.e.Group) {
			if _, ok := groups[g]; !ok {
				names = append(names, g)
			}
			groups[g] = append(groups[g], e)
		}
	}
	if len(names) == 0 {
		return candidates
	}
	names = jsKeysInOrder(names)
	removed := map[*scanEntry]bool{}
	removeAllBut := func(group []*scanEntry, keep *scanEntry) {
		for _, e := range group {
			if e != keep {
				removed[e] = true
			}
		}
	}

	hasSticky := map[string]bool{}
	for _, name := range names {
		group := groups[name]
		var sticky []*scanEntry
		for _, e := range group {
			if a.timed.sticky[e] {
				sticky = append(sticky, e)
			}
		}
		if len(sticky) > 0 {
			for _, e := range group {
				if !a.timed.sticky[e] {
					removed[e] = true
				}
			}
			hasSticky[name] = true
		}
		for _, e := range group {
			if a.timed.cool[e] || a.timed.delayed[e] {
				removed[e] = true
			}
		}
	}

	for _, name := range names {
		groups[name] = a.scoreGroup(name, groups[name], hasSticky[name], state, removed)
	}

	for _, name := range names {
		group := groups[name]
		if hasSticky[name] {
			continue
		}
		if a.groupActivated(name) {
			removeAllBut(group, nil)
			continue
		}
		if len(group) <= 1 {
			continue
		}
		var prios []*scanEntry
		for _, e := range group {
			if e.e.GroupOverride {
				prios = append(prios, e)
			}
		}
		if len(prios) > 0 {
			sort.SliceStable(prios, func(i, j int) bool { return prios[i].e.Order > prios[j].e.Order })
			removeAllBut(group, prios[0])
			continue
		}
		total := 0.0
		for _, e := range group {
			total += e.e.GroupWeight
		}
		roll := a.rand() * total
		current := 0.0
		var winner *scanEntry
		for _, e := range group {
			current += e.e.GroupWeight
			if roll <= current {
				winner = e
				break
			}
		}
		if winner != nil {
			removeAllBut(group, winner)
		}
	}

	out := candidates[:0:0]
	for _, e := range candidates {
		if !removed[e] {
			out = append(out, e)
		}
	}
	return out
}

// scoreGroup keeps, when group scoring is on for the group, only the
// scored entries with the highest key-match score; it returns the group
// without the losers (they are also marked removed).
func (a *activation) scoreGroup(name string, group []*scanEntry, sticky bool, state int, removed map[*scanEntry]bool) []*scanEntry {
	on := a.in.Settings.UseGroupScoring
	for _, e := range group {
		if e.e.UseGroupScoring != nil && *e.e.UseGroupScoring {
			on = true
		}
	}
	if !on || sticky {
		return group
	}
	scores := make([]int, len(group))
	best := 0
	for i, e := range group {
		scores[i] = a.match.score(a.buf.text(e.e, state), e)
		if i == 0 || scores[i] > best {
			best = scores[i]
		}
	}
	kept := group[:0:0]
	for i, e := range group {
		scored := a.in.Settings.UseGroupScoring
		if e.e.UseGroupScoring != nil {
			scored = *e.e.UseGroupScoring
		}
		if scored && scores[i] < best {
			removed[e] = true
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// groupActivated reports whether an entry that already activated has
// exactly this group string (SillyTavern compares the whole string, not
// its parts).
func (a *activation) groupActivated(name string) bool {
	for _, e := range a.activated {
		if e.e.Group == name {
			return true
		}
	}
	return false
}

// splitGroups splits a group field at commas, dropping the white space
// after each comma and empty names (SillyTavern's split(/,\s*/)).
func splitGroups(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := parts[:0]
	for i, p := range parts {
		if i > 0 {
			p = strings.TrimLeftFunc(p, isJSSpace)
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
