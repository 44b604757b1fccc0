package worldinfo

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"hearth/backend/apperr"
)

// Engine activates lorebooks. It keeps the keys it compiled (regexes
// above all) between activations, so a chat's next generation does not
// compile them again, and the keys that took too long to match, so it
// does not wait for them again. Safe for concurrent use; the zero Engine
// is ready. Share one by pointer.
type Engine struct {
	keys keyCache
	slow slowKeys
}

// NewEngine returns an Engine with an empty key cache.
func NewEngine() *Engine { return &Engine{} }

// Activate runs one activation with a fresh Engine; callers that activate
// repeatedly should keep an Engine instead.
func Activate(ctx context.Context, in Input) (*Result, error) { return NewEngine().Activate(ctx, in) }

// scanEntry is one entry as an activation sees it: its book, its
// decorators split off and, once it passed its roll, its content with
// macros expanded.
type scanEntry struct {
	e          *Entry
	world      string
	ref        string // "<world>.<uid>", the key SillyTavern tracks it by
	decorators []string
	content    string
	expanded   string
	rolled     bool
	hashValue  int64
	hashed     bool
}

func (s *scanEntry) hash() int64 {
	if !s.hashed {
		s.hashValue = entryHash(s.world, s.e, s.decorators, s.content)
		s.hashed = true
	}
	return s.hashValue
}

func (s *scanEntry) has(decorator string) bool {
	for _, d := range s.decorators {
		if d == decorator {
			return true
		}
	}
	return false
}

// text is the entry's content for the prompt and for recursion: expanded
// once it passed its roll, as written (decorators cut) before.
func (s *scanEntry) text() string {
	if s.rolled {
		return s.expanded
	}
	return s.content
}

// activation is the state of one Activate call.
type activation struct {
	in        *Input
	entries   []*scanEntry
	buf       *scanBuffer
	timed     *timedEffects
	match     *matcher
	halt      *halt
	rand      func() float64
	activated []*scanEntry
	byRef     map[string]bool
	chatLen   int
}

// Activate decides which entries of in's books enter the prompt, in
// SillyTavern's way: scan the newest messages for each entry's keys
// (constant, sticky and forced entries need none), let inclusion groups,
// probability rolls and the token budget thin the candidates, scan the
// activated content again while recursion is on, widen the scan while
// fewer than MinActivations entries activated, then sort what activated
// by order into the positions. The random source, the token counter and
// the timed state are the caller's, so a test can replay an activation.
//
// The scan is bounded: when ctx ends it is abandoned and Activate returns
// ctx's error; when in's deadline (ActivationDeadline unless set) passes,
// no more keys are matched and the result, with what activated so far
// and entries that need no key, says so in CutShort and a warning. Regex
// keys that need the backtracking engine are capped per book, and one
// whose match runs out of time is turned off for its entry; both are
// listed in DisabledKeys.
func (en *Engine) Activate(ctx context.Context, in Input) (*Result, error) {
	if in.Tokens == nil {
		return nil, apperr.Invalid("world info activation needs a token counter")
	}
	entries, err := collectEntries(&in)
	if err != nil {
		return nil, err
	}
	h := newHalt(ctx, &in)
	worlds := map[string]bool{}
	for _, s := range in.Sources {
		worlds[s.World] = true
	}
	a := &activation{
		in:      &in,
		entries: entries,
		buf:     newScanBuffer(&in),
		match: &matcher{keys: &en.keys, settings: &in.Settings, substitute: in.Substitute, halt: h,
			limits: newKeyLimits(&en.slow, worlds)},
		halt:    h,
		rand:    in.Rand,
		byRef:   map[string]bool{},
		chatLen: max(in.ChatLength, len(in.Messages)),
	}
	if a.rand == nil {
		a.rand = rand.Float64
	}
	a.timed = newTimedEffects(&in, entries, a.chatLen)
	a.timed.check()

	res := &Result{Outlets: map[string][]string{}}
	res.Budget = budget(in.Settings, in.MaxContext)
	if len(entries) > 0 {
		a.survey()
		res.BudgetOverflowed = a.scan(res.Budget)
		if h.cancelled() {
			return nil, h.err
		}
		a.place(res)
		a.timed.record(a.activated)
	}
	res.Timed = a.timed.state
	res.Warnings = a.match.warnings
	if h.cut {
		res.CutShort = true
		res.Warnings = append(res.Warnings, h.warning())
	}
	a.match.limits.finish(res)
	return res, nil
}

// budget is the token budget: Budget percent of the context rounded (a
// budget of 0 becomes 1, as SillyTavern's `|| 1` makes it), at most
// BudgetCap when that is set.
func budget(s Settings, maxContext int) int {
	b := int(math.Floor(float64(s.Budget)*float64(maxContext)/100 + 0.5))
	if b == 0 {
		b = 1
	}
	if s.BudgetCap > 0 && b > s.BudgetCap {
		b = s.BudgetCap
	}
	return b
}

// scan runs the scan passes and reports whether the budget overflowed.
func (a *activation) scan(budget int) bool {
	levels := a.delayLevels()
	level := 0
	if len(levels) > 0 {
		level, levels = levels[0], levels[1:]
	}
	failed := map[*scanEntry]bool{}
	state := scanInitial
	overflowed := false
	activatedText := ""
	s := a.in.Settings
	for passes := 0; state != scanNone; passes++ {
		if s.MaxRecursionSteps > 0 && s.MaxRecursionSteps <= passes {
			break
		}
		// Once the scan must stop, a further pass could only match keys.
		if passes > 0 && a.halt.stop() {
			break
		}
		candidates := a.candidates(state, level, failed)
		candidates = a.filterGroups(candidates, state)

		baseTokens := a.in.Tokens(activatedText)
		var newContent strings.Builder
		ignoring := 0
		for _, e := range candidates {
			if e.e.IgnoreBudget {
				ignoring++
			}
		}
		for _, e := range candidates {
			if e.e.IgnoreBudget {
				ignoring--
			}
			if overflowed && !e.e.IgnoreBudget {
				if ignoring > 0 {
					continue
				}
				break
			}
			if !a.roll(e) {
				failed[e] = true
				continue
			}
			e.expanded, e.rolled = a.match.subst(e.content), true
			newContent.WriteString(e.expanded)
			newContent.WriteByte('\n')
			if !e.e.IgnoreBudget && baseTokens+a.in.Tokens(newContent.String()) >= budget {
				overflowed = true
				continue
			}
			a.activated = append(a.activated, e)
			a.byRef[e.ref] = true
		}

		var forRecursion []string
		for _, e := range candidates {
			if !failed[e] && !e.e.PreventRecursion {
				forRecursion = append(forRecursion, e.text())
			}
		}
		next := scanNone
		if s.Recursive && !overflowed && len(forRecursion) > 0 {
			next = scanRecursion
		}
		if s.Recursive && !overflowed && state == scanMinActivations && len(a.buf.recurse) > 0 {
			next = scanRecursion
		}
		if next == scanNone && !overflowed && s.MinActivations > 0 && len(a.activated) < s.MinActivations {
			depth := a.buf.scanDepth()
			overMax := (s.MinActivationsDepthMax > 0 && depth > s.MinActivationsDepthMax) || depth > a.chatLen
			if !overMax {
				next = scanMinActivations
				a.buf.advance()
			}
		}
		if next == scanNone && len(levels) > 0 {
			next = scanRecursion
			level, levels = levels[0], levels[1:]
		}
		state = next
		if state != scanNone {
			if text := strings.Join(forRecursion, "\n"); text != "" {
				a.buf.addRecurse(text)
				activatedText = text + "\n" + activatedText
			}
		}
	}
	return overflowed
}

// delayLevels are the distinct recursion levels entries wait for,
// ascending.
func (a *activation) delayLevels() []int {
	seen := map[int]bool{}
	var levels []int
	for _, e := range a.entries {
		if l := e.e.DelayUntilRecursion; l != 0 && !seen[l] {
			seen[l] = true
			levels = append(levels, l)
		}
	}
	sort.Ints(levels)
	return levels
}

// candidates is one scan pass over the entries: those that may activate
// now, sticky ones first, then in scan order.
func (a *activation) candidates(state, level int, failed map[*scanEntry]bool) []*scanEntry {
	in := a.in
	trigger := in.Trigger
	if trigger == "" {
		trigger = "normal"
	}
	forced := map[string]bool{}
	for _, r := range in.Force {
		forced[r.World+"."+itoa(r.UID)] = true
	}
	var out, sticky []*scanEntry
	for _, e := range a.entries {
		// Past the deadline the pass goes on without matching keys (so
		// constant, sticky and forced entries still enter); a cancelled
		// scan ends here.
		if a.halt.cancelled() {
			return nil
		}
		if failed[e] || a.byRef[e.ref] || e.e.Disable {
			continue
		}
		if len(e.e.Triggers) > 0 && !contains(e.e.Triggers, trigger) {
			continue
		}
		if !a.characterAllowed(e.e) {
			continue
		}
		isSticky := a.timed.sticky[e]
		if a.timed.delayed[e] || (a.timed.cool[e] && !isSticky) {
			continue
		}
		if d := e.e.DelayUntilRecursion; d != 0 && !isSticky {
			if state != scanRecursion || d > level {
				continue
			}
		}
		if state == scanRecursion && in.Settings.Recursive && e.e.ExcludeRecursion && !isSticky {
			continue
		}
		if !a.activates(e, state, forced, isSticky) {
			continue
		}
		if isSticky {
			sticky = append(sticky, e)
		} else {
			out = append(out, e)
		}
	}
	return append(sticky, out...)
}

// activates applies the activation rules to one eligible entry.
func (a *activation) activates(e *scanEntry, state int, forced map[string]bool, isSticky bool) bool {
	switch {
	case e.has("@@activate"):
		return true
	case e.has("@@dont_activate"):
		return false
	case forced[e.ref], e.e.Constant, isSticky:
		return true
	case len(e.e.Key) == 0:
		return false
	}
	h := a.buf.text(e.e, state)
	if !a.match.primaryMatch(h, e) {
		return false
	}
	if !e.e.Selective || len(e.e.KeySecondary) == 0 {
		return true
	}
	return a.match.secondaryMatch(h, e)
}

// characterAllowed applies the entry's character filter: by card file
// name, and by tag when there is a character to have tags.
func (a *activation) characterAllowed(e *Entry) bool {
	f := e.CharacterFilter
	if f == nil {
		return true
	}
	if len(f.Names) > 0 && contains(f.Names, a.in.CharacterFile) == f.IsExclude {
		return false
	}
	if len(f.Tags) > 0 && a.in.CharacterTags != nil {
		hasTag := false
		for _, t := range a.in.CharacterTags {
			if contains(f.Tags, t) {
				hasTag = true
				break
			}
		}
		if hasTag == f.IsExclude {
			return false
		}
	}
	return true
}

// roll is the probability check: entries without one, at 100 or sticky
// always pass; others pass when a roll in [0, 100) is at most their
// probability.
func (a *activation) roll(e *scanEntry) bool {
	if !e.e.UseProbability || e.e.Probability == 100 || a.timed.sticky[e] {
		return true
	}
	return a.rand()*100 <= e.e.Probability
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
