package worldinfo

import (
	"context"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

type scenario struct {
	name    string
	entries []*Entry
	msgs    []string
	set     func(t *testing.T, in *Input)
	want    string // activated entries, "W.<uid>" in activation order
	check   func(t *testing.T, r *Result)
}

func runScenarios(t *testing.T, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			in := baseInput(t, sc.entries, sc.msgs...)
			if sc.set != nil {
				sc.set(t, &in)
			}
			r := activate(t, in)
			if got := uids(r); got != sc.want {
				t.Errorf("activated %q, want %q", got, sc.want)
			}
			if sc.check != nil {
				sc.check(t, r)
			}
		})
	}
}

func TestActivateKeys(t *testing.T) {
	t.Parallel()
	caseSensitive := func(_ *testing.T, in *Input) { in.Settings.CaseSensitive = true }
	wholeWords := func(_ *testing.T, in *Input) { in.Settings.MatchWholeWords = true }
	runScenarios(t, []scenario{
		{name: "substring ignores case", entries: []*Entry{ent(1, keys("Dragon"), "D")}, msgs: []string{"a DRAGONFLY flew"}, want: "W.1"},
		{name: "no match", entries: []*Entry{ent(1, keys("dragon"), "D")}, msgs: []string{"a wyvern"}, want: ""},
		{name: "first matching key of several", entries: []*Entry{ent(1, keys("wyvern", "drake"), "D")}, msgs: []string{"a drake"}, want: "W.1"},
		{name: "case-sensitive setting", entries: []*Entry{ent(1, keys("dragon"), "D")}, msgs: []string{"a Dragon"}, set: caseSensitive, want: ""},
		{name: "entry overrides case sensitivity", entries: []*Entry{ent(1, keys("Dragon"), "D", func(e *Entry) { e.CaseSensitive = ptr(true) })}, msgs: []string{"a dragon"}, want: ""},
		{name: "entry turns case sensitivity off", entries: []*Entry{ent(1, keys("Dragon"), "D", func(e *Entry) { e.CaseSensitive = ptr(false) })}, msgs: []string{"a dragon"}, set: caseSensitive, want: "W.1"},
		{name: "whole word refuses a part", entries: []*Entry{ent(1, keys("cat"), "C")}, msgs: []string{"concatenate"}, set: wholeWords, want: ""},
		{name: "whole word at punctuation", entries: []*Entry{ent(1, keys("cat"), "C")}, msgs: []string{"the cat."}, set: wholeWords, want: "W.1"},
		{name: "whole word at text start", entries: []*Entry{ent(1, keys("cat"), "C")}, msgs: []string{"cat"}, set: wholeWords, want: "W.1"},
		{name: "whole word next to non-ASCII", entries: []*Entry{ent(1, keys("cat"), "C")}, msgs: []string{"écat"}, set: wholeWords, want: "W.1"},
		{name: "multi-word key is a substring", entries: []*Entry{ent(1, keys("big cat"), "C")}, msgs: []string{"the big cats"}, set: wholeWords, want: "W.1"},
		{name: "entry turns whole words off", entries: []*Entry{ent(1, keys("cat"), "C", func(e *Entry) { e.MatchWholeWords = ptr(false) })}, msgs: []string{"concatenate"}, set: wholeWords, want: "W.1"},
		{name: "regex key", entries: []*Entry{ent(1, keys(`/drag(on|ons)\b/i`), "D")}, msgs: []string{"DRAGONS!"}, want: "W.1"},
		{name: "regex ignores the case setting", entries: []*Entry{ent(1, keys(`/Dragon/`), "D")}, msgs: []string{"dragon"}, want: ""},
		{name: "regex sees the message joiner", entries: []*Entry{ent(1, keys(`/^\x01b$/m`), "D")}, msgs: []string{"a", "b"}, want: "W.1"},
		{name: "regex lookbehind runs as in JavaScript", entries: []*Entry{ent(1, keys(`/(?<=a)b/`), "D")}, msgs: []string{"ab"}, want: "W.1"},
		{name: "regex lookbehind that fails", entries: []*Entry{ent(1, keys(`/(?<=a)b/`), "D")}, msgs: []string{"cb"}, want: ""},
		{name: "regex negative lookahead", entries: []*Entry{ent(1, keys(`/dragon(?! egg)/i`), "D")}, msgs: []string{"a Dragon egg, another dragon"}, want: "W.1"},
		{name: "regex negative lookahead that fails", entries: []*Entry{ent(1, keys(`/dragon(?! egg)/i`), "D")}, msgs: []string{"a Dragon egg"}, want: ""},
		{name: "regex backreference", entries: []*Entry{ent(1, keys(`/(\w)\1/`), "D")}, msgs: []string{"a moon"}, want: "W.1"},
		{name: "regex that backtracks forever times out with a warning", entries: []*Entry{ent(1, keys(`/(x+x+)+(?=y)/`), "D")},
			msgs: []string{strings.Repeat("x", 40)}, want: "",
			check: func(t *testing.T, r *Result) {
				if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "longer than") {
					t.Errorf("warnings = %v", r.Warnings)
				}
			}},
		{name: "invalid regex is plain text", entries: []*Entry{ent(1, keys(`/(oops/`), "D")}, msgs: []string{"say /(oops/ twice"}, want: "W.1"},
		{name: "key is trimmed", entries: []*Entry{ent(1, keys("  cat  "), "C")}, msgs: []string{"a cat"}, set: wholeWords, want: "W.1"},
		{name: "macros in keys", entries: []*Entry{ent(1, keys("{{char}}"), "C")}, msgs: []string{"Seraphina smiles"},
			set: func(_ *testing.T, in *Input) {
				in.Substitute = func(s string) string { return strings.ReplaceAll(s, "{{char}}", "Seraphina") }
			}, want: "W.1"},
		{name: "key that expands to nothing is skipped", entries: []*Entry{ent(1, keys("{{none}}"), "C")}, msgs: []string{"anything"},
			set: func(_ *testing.T, in *Input) { in.Substitute = func(string) string { return "" } }, want: ""},
		{name: "no keys, not constant", entries: []*Entry{ent(1, nil, "C")}, msgs: []string{"anything"}, want: ""},
		{name: "constant", entries: []*Entry{ent(1, nil, "C", func(e *Entry) { e.Constant = true })}, want: "W.1"},
		{name: "disabled", entries: []*Entry{ent(1, keys("a"), "C", func(e *Entry) { e.Disable, e.Constant = true, true })}, msgs: []string{"a"}, want: ""},
		{name: "scan depth leaves older messages out", entries: []*Entry{ent(1, keys("old"), "C")}, msgs: []string{"old", "b", "c"}, want: ""},
		{name: "entry scan depth reaches further", entries: []*Entry{ent(1, keys("old"), "C", func(e *Entry) { e.ScanDepth = ptr(3) })}, msgs: []string{"old", "b", "c"}, want: "W.1"},
		{name: "entry scan depth 0 scans nothing", entries: []*Entry{ent(1, keys("new"), "C", func(e *Entry) { e.ScanDepth = ptr(0) })}, msgs: []string{"new"}, want: ""},
		{name: "names are scanned when included", entries: []*Entry{ent(1, keys("Seraphina:"), "C")}, msgs: []string{"hi", "hello"},
			set: func(_ *testing.T, in *Input) { in.Settings.IncludeNames = true }, want: "W.1"},
		{name: "names are not scanned otherwise", entries: []*Entry{ent(1, keys("Seraphina"), "C")}, msgs: []string{"hi", "hello"}, want: ""},
		{name: "persona description when the entry asks", entries: []*Entry{ent(1, keys("knight"), "C", func(e *Entry) { e.MatchPersonaDescription = true }), ent(2, keys("knight"), "C")},
			set: func(_ *testing.T, in *Input) { in.Global.PersonaDescription = "A knight." }, want: "W.1"},
		{name: "injected prompts are scanned", entries: []*Entry{ent(1, keys("storm"), "C")}, msgs: []string{"calm"},
			set: func(_ *testing.T, in *Input) { in.Inject = []string{"A storm is coming."} }, want: "W.1"},
	})
}

func TestActivateSecondaryLogic(t *testing.T) {
	t.Parallel()
	logic := func(l int) func(*Entry) {
		return func(e *Entry) { e.SelectiveLogic, e.KeySecondary = l, keys("fire", "scale") }
	}
	runScenarios(t, []scenario{
		{name: "AND ANY with one", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicAndAny))}, msgs: []string{"dragon fire"}, want: "W.1"},
		{name: "AND ANY with none", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicAndAny))}, msgs: []string{"dragon"}, want: ""},
		{name: "NOT ALL with one", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicNotAll))}, msgs: []string{"dragon fire"}, want: "W.1"},
		{name: "NOT ALL with all", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicNotAll))}, msgs: []string{"dragon fire scale"}, want: ""},
		{name: "NOT ANY with none", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicNotAny))}, msgs: []string{"dragon"}, want: "W.1"},
		{name: "NOT ANY with one", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicNotAny))}, msgs: []string{"dragon scale"}, want: ""},
		{name: "AND ALL with all", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicAndAll))}, msgs: []string{"dragon scale fire"}, want: "W.1"},
		{name: "AND ALL with one", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicAndAll))}, msgs: []string{"dragon scale"}, want: ""},
		{name: "unknown logic never", entries: []*Entry{ent(1, keys("dragon"), "D", logic(9))}, msgs: []string{"dragon scale fire"}, want: ""},
		{name: "not selective ignores secondary", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicAndAll), func(e *Entry) { e.Selective = false })}, msgs: []string{"dragon"}, want: "W.1"},
		{name: "secondary needs the primary", entries: []*Entry{ent(1, keys("dragon"), "D", logic(LogicNotAny))}, msgs: []string{"wyvern"}, want: ""},
	})
}

func TestActivateProbability(t *testing.T) {
	t.Parallel()
	half := func(e *Entry) { e.Probability = 50 }
	runScenarios(t, []scenario{
		{name: "roll above fails", entries: []*Entry{ent(1, keys("a"), "A", half)}, msgs: []string{"a"},
			set: func(t *testing.T, in *Input) { in.Rand = seq(t, 0.6) }, want: ""},
		{name: "roll at the probability passes", entries: []*Entry{ent(1, keys("a"), "A", half)}, msgs: []string{"a"},
			set: func(t *testing.T, in *Input) { in.Rand = seq(t, 0.5) }, want: "W.1"},
		{name: "100 does not roll", entries: []*Entry{ent(1, keys("a"), "A")}, msgs: []string{"a"}, want: "W.1"},
		{name: "probability off does not roll", entries: []*Entry{ent(1, keys("a"), "A", half, func(e *Entry) { e.UseProbability = false })}, msgs: []string{"a"}, want: "W.1"},
		{name: "a failed entry is not retried in recursion", entries: []*Entry{ent(1, keys("a"), "A", half), ent(2, keys("a"), "see a")}, msgs: []string{"a"},
			set: func(t *testing.T, in *Input) { in.Settings.Recursive = true; in.Rand = seq(t, 0.9) }, want: "W.2"},
	})
}

func TestActivateGroups(t *testing.T) {
	t.Parallel()
	group := func(g string, weight float64) func(*Entry) {
		return func(e *Entry) { e.Group, e.GroupWeight = g, weight }
	}
	runScenarios(t, []scenario{
		{name: "weighted roll", entries: []*Entry{ent(1, keys("a"), "A", group("g", 25)), ent(2, keys("a"), "B", group("g", 75))}, msgs: []string{"a"},
			set: func(t *testing.T, in *Input) { in.Rand = seq(t, 0.5) }, want: "W.2"},
		{name: "weighted roll low", entries: []*Entry{ent(1, keys("a"), "A", group("g", 25)), ent(2, keys("a"), "B", group("g", 75))}, msgs: []string{"a"},
			set: func(t *testing.T, in *Input) { in.Rand = seq(t, 0.1) }, want: "W.1"},
		{name: "override wins by order", entries: []*Entry{
			ent(1, keys("a"), "A", group("g", 100), func(e *Entry) { e.GroupOverride, e.Order = true, 10 }),
			ent(2, keys("a"), "B", group("g", 100), func(e *Entry) { e.GroupOverride, e.Order = true, 20 }),
			ent(3, keys("a"), "C", group("g", 100), func(e *Entry) { e.Order = 30 }),
		}, msgs: []string{"a"}, want: "W.2"},
		{name: "a lone member stays", entries: []*Entry{ent(1, keys("a"), "A", group("g", 100)), ent(2, keys("b"), "B", group("g", 100))}, msgs: []string{"a"}, want: "W.1"},
		{name: "scoring keeps the best match", entries: []*Entry{
			ent(1, keys("a", "b"), "A", group("g", 100), func(e *Entry) { e.UseGroupScoring = ptr(true) }),
			ent(2, keys("a"), "B", group("g", 100), func(e *Entry) { e.UseGroupScoring = ptr(true) }),
		}, msgs: []string{"a b"}, want: "W.1"},
		{name: "scoring ties roll", entries: []*Entry{ent(1, keys("a"), "A", group("g", 50)), ent(2, keys("a"), "B", group("g", 50))}, msgs: []string{"a"},
			set: func(t *testing.T, in *Input) { in.Settings.UseGroupScoring = true; in.Rand = seq(t, 0.99) }, want: "W.2"},
		{name: "entry in two groups", entries: []*Entry{
			ent(1, keys("a"), "A", group("x, y", 100), func(e *Entry) { e.GroupOverride = true }),
			ent(2, keys("a"), "B", group("x", 100)),
			ent(3, keys("a"), "C", group("y", 100)),
			ent(4, keys("a"), "D"),
		}, msgs: []string{"a"}, want: "W.1 W.4"},
		{name: "group already active admits none", entries: []*Entry{
			ent(1, keys("a"), "find b", group("g", 100)),
			ent(2, keys("b"), "B", group("g", 100)),
		}, msgs: []string{"a"}, set: func(_ *testing.T, in *Input) { in.Settings.Recursive = true }, want: "W.1"},
	})
}

func TestActivateRecursion(t *testing.T) {
	t.Parallel()
	recursive := func(_ *testing.T, in *Input) { in.Settings.Recursive = true }
	chain := func(opts ...func(*Entry)) []*Entry {
		return []*Entry{ent(1, keys("king"), "The king lives in Highmere."), ent(2, keys("Highmere"), "Highmere has seven hills.", opts...)}
	}
	runScenarios(t, []scenario{
		{name: "off", entries: chain(), msgs: []string{"the king"}, want: "W.1"},
		{name: "on", entries: chain(), msgs: []string{"the king"}, set: recursive, want: "W.1 W.2"},
		{name: "exclude recursion", entries: chain(func(e *Entry) { e.ExcludeRecursion = true }), msgs: []string{"the king"}, set: recursive, want: "W.1"},
		{name: "exclude recursion still matches the chat", entries: chain(func(e *Entry) { e.ExcludeRecursion = true }), msgs: []string{"the king of Highmere"}, set: recursive, want: "W.1 W.2"},
		{name: "prevent recursion", entries: []*Entry{ent(1, keys("king"), "Highmere", func(e *Entry) { e.PreventRecursion = true }), ent(2, keys("Highmere"), "H")},
			msgs: []string{"the king"}, set: recursive, want: "W.1"},
		{name: "delay until recursion waits", entries: chain(func(e *Entry) { e.DelayUntilRecursion = 1 }), msgs: []string{"the king of Highmere"}, set: recursive, want: "W.1 W.2"},
		{name: "delay until recursion needs a recursion pass", entries: []*Entry{ent(2, keys("Highmere"), "H", func(e *Entry) { e.DelayUntilRecursion = 1 })},
			msgs: []string{"Highmere"}, set: recursive, want: ""},
		{name: "delay levels run in turn", entries: []*Entry{
			ent(1, keys("a"), "A", func(e *Entry) { e.DelayUntilRecursion = 2 }),
			ent(2, keys("b"), "B", func(e *Entry) { e.DelayUntilRecursion = 1 }),
			ent(3, keys("a"), "b"),
		}, msgs: []string{"a"}, set: recursive, want: "W.3 W.2 W.1"},
		{name: "the last level runs even without recursion", entries: []*Entry{
			ent(1, keys("a"), "A", func(e *Entry) { e.DelayUntilRecursion = 2 }),
			ent(2, keys("a"), "B", func(e *Entry) { e.DelayUntilRecursion = 1 }),
		}, msgs: []string{"a"}, want: "W.1 W.2"},
		{name: "max recursion steps", entries: chain(), msgs: []string{"the king"},
			set: func(t *testing.T, in *Input) { recursive(t, in); in.Settings.MaxRecursionSteps = 1 }, want: "W.1"},
		{name: "recursion reaches a third entry", entries: append(chain(), ent(3, keys("hills"), "Hills.")), msgs: []string{"the king"}, set: recursive, want: "W.1 W.2 W.3"},
	})
}

func TestActivateMinActivations(t *testing.T) {
	t.Parallel()
	runScenarios(t, []scenario{
		{name: "widens the scan", entries: []*Entry{ent(1, keys("old"), "O")}, msgs: []string{"old", "b", "c"},
			set: func(_ *testing.T, in *Input) { in.Settings.MinActivations = 1 }, want: "W.1"},
		{name: "stops at the depth max", entries: []*Entry{ent(1, keys("old"), "O")}, msgs: []string{"old", "b", "c", "d"},
			set: func(_ *testing.T, in *Input) {
				in.Settings.MinActivations, in.Settings.MinActivationsDepthMax = 1, 2
			}, want: ""},
		{name: "stops at the chat's start", entries: []*Entry{ent(1, keys("absent"), "O")}, msgs: []string{"a", "b"},
			set: func(_ *testing.T, in *Input) { in.Settings.MinActivations = 1 }, want: ""},
	})
}

func TestActivateBudget(t *testing.T) {
	t.Parallel()
	// Each content is three words; with the newline joining them a counter
	// of words sees 3, 6, 9… tokens.
	three := func(uid, order int, opts ...func(*Entry)) *Entry {
		return ent(uid, keys("a"), "one two three", append(opts, func(e *Entry) { e.Order = order })...)
	}
	tight := func(_ *testing.T, in *Input) { in.MaxContext, in.Settings.Budget = 70, 10 } // 7 tokens
	runScenarios(t, []scenario{
		{name: "stops at the budget", entries: []*Entry{three(1, 30), three(2, 20), three(3, 10)}, msgs: []string{"a"}, set: tight, want: "W.1 W.2",
			check: func(t *testing.T, r *Result) {
				if !r.BudgetOverflowed || r.Budget != 7 {
					t.Errorf("budget %d overflowed %v, want 7 and true", r.Budget, r.BudgetOverflowed)
				}
			}},
		{name: "cap", entries: []*Entry{three(1, 30), three(2, 20)}, msgs: []string{"a"},
			set: func(_ *testing.T, in *Input) { in.Settings.BudgetCap = 4 }, want: "W.1"},
		{name: "ignore budget enters after overflow", entries: []*Entry{three(1, 30), three(2, 20), three(3, 10), three(4, 5, func(e *Entry) { e.IgnoreBudget = true })},
			msgs: []string{"a"}, set: tight, want: "W.1 W.2 W.4"},
		{name: "zero context leaves a budget of one", entries: []*Entry{three(1, 30)}, msgs: []string{"a"},
			set: func(_ *testing.T, in *Input) { in.MaxContext = 0 }, want: ""},
		{name: "overflow stops recursion", entries: []*Entry{three(1, 30), three(2, 20), three(3, 10), ent(4, keys("three"), "x")}, msgs: []string{"a"},
			set: func(t *testing.T, in *Input) { tight(t, in); in.Settings.Recursive = true }, want: "W.1 W.2"},
	})
}

func TestActivateFilters(t *testing.T) {
	t.Parallel()
	filter := func(exclude bool, names, tags []string) func(*Entry) {
		return func(e *Entry) { e.CharacterFilter = &CharacterFilter{IsExclude: exclude, Names: names, Tags: tags} }
	}
	asAlice := func(_ *testing.T, in *Input) { in.CharacterFile = "alice"; in.CharacterTags = []string{"t1"} }
	runScenarios(t, []scenario{
		{name: "trigger matches", entries: []*Entry{ent(1, keys("a"), "A", func(e *Entry) { e.Triggers = []string{"continue"} })}, msgs: []string{"a"},
			set: func(_ *testing.T, in *Input) { in.Trigger = "continue" }, want: "W.1"},
		{name: "trigger defaults to normal", entries: []*Entry{ent(1, keys("a"), "A", func(e *Entry) { e.Triggers = []string{"continue"} })}, msgs: []string{"a"}, want: ""},
		{name: "name included", entries: []*Entry{ent(1, keys("a"), "A", filter(false, keys("alice"), nil))}, msgs: []string{"a"}, set: asAlice, want: "W.1"},
		{name: "name not included", entries: []*Entry{ent(1, keys("a"), "A", filter(false, keys("bob"), nil))}, msgs: []string{"a"}, set: asAlice, want: ""},
		{name: "name excluded", entries: []*Entry{ent(1, keys("a"), "A", filter(true, keys("alice"), nil))}, msgs: []string{"a"}, set: asAlice, want: ""},
		{name: "tag included", entries: []*Entry{ent(1, keys("a"), "A", filter(false, nil, keys("t1")))}, msgs: []string{"a"}, set: asAlice, want: "W.1"},
		{name: "tag excluded", entries: []*Entry{ent(1, keys("a"), "A", filter(true, nil, keys("t1")))}, msgs: []string{"a"}, set: asAlice, want: ""},
		{name: "tags ignored without a character", entries: []*Entry{ent(1, keys("a"), "A", filter(false, nil, keys("t9")))}, msgs: []string{"a"}, want: "W.1"},
		{name: "@@activate", entries: []*Entry{ent(1, nil, "@@activate\nBody")}, want: "W.1",
			check: func(t *testing.T, r *Result) {
				if r.Before != "Body" {
					t.Errorf("decorator not cut: %q", r.Before)
				}
			}},
		{name: "@@dont_activate", entries: []*Entry{ent(1, keys("a"), "@@dont_activate\nBody")}, msgs: []string{"a"}, want: ""},
		{name: "@@@ fallback after an unknown decorator", entries: []*Entry{ent(1, nil, "@@unknown\n@@@activate\nBody")}, want: "W.1"},
		{name: "forced", entries: []*Entry{ent(1, keys("zzz"), "A")}, msgs: []string{"a"},
			set: func(_ *testing.T, in *Input) { in.Force = []EntryRef{{World: "W", UID: 1}} }, want: "W.1"},
	})
}

// TestActivatePositions places one entry per position and checks every
// output, orders included.
func TestActivatePositions(t *testing.T) {
	t.Parallel()
	at := func(pos, order int, opts ...func(*Entry)) func(*Entry) {
		return func(e *Entry) {
			e.Position, e.Order, e.Constant = pos, order, true
			for _, o := range opts {
				o(e)
			}
		}
	}
	depth := func(d, role int) func(*Entry) { return func(e *Entry) { e.Depth, e.Role = d, role } }
	outlet := func(name string) func(*Entry) { return func(e *Entry) { e.OutletName = name } }
	entries := []*Entry{
		ent(1, nil, "before high", at(PositionBefore, 20)),
		ent(2, nil, "before low", at(PositionBefore, 10)),
		ent(3, nil, "after", at(PositionAfter, 5)),
		ent(4, nil, "an top", at(PositionANTop, 5)),
		ent(5, nil, "an bottom", at(PositionANBottom, 5)),
		ent(6, nil, "depth 2 high", at(PositionAtDepth, 20, depth(2, RoleUser))),
		ent(7, nil, "depth 2 low", at(PositionAtDepth, 10, depth(2, RoleUser))),
		ent(8, nil, "depth 2 system", at(PositionAtDepth, 15, depth(2, RoleSystem))),
		ent(9, nil, "em top", at(PositionEMTop, 5)),
		ent(10, nil, "em bottom", at(PositionEMBottom, 5)),
		ent(11, nil, "outlet high", at(PositionOutlet, 20, outlet("o"))),
		ent(12, nil, "outlet low", at(PositionOutlet, 10, outlet("o"))),
		ent(13, nil, "nameless outlet", at(PositionOutlet, 10)),
		ent(14, nil, "", at(PositionBefore, 30)),
		ent(15, nil, "nowhere", at(PositionNone, 5)),
	}
	r := activate(t, baseInput(t, entries))
	checks := []struct {
		name      string
		got, want any
	}{
		{"before", r.Before, "before low\nbefore high"},
		{"after", r.After, "after"},
		{"AN", r.AuthorNote("NOTE"), "an top\nNOTE\nan bottom"},
		{"AN without note entries", (&Result{}).AuthorNote("NOTE"), "NOTE"},
		{"EM top", strings.Join(r.EMTop, "|"), "em top"},
		{"EM bottom", strings.Join(r.EMBottom, "|"), "em bottom"},
		{"outlet (highest order first)", r.Outlet("o"), "outlet high\noutlet low"},
		{"outlets", len(r.Outlets), 1},
		{"depth groups", len(r.Depth), 2},
		{"depth user", r.Depth[0], DepthEntry{Depth: 2, Role: RoleUser, Content: "depth 2 low\ndepth 2 high"}},
		{"depth system", r.Depth[1], DepthEntry{Depth: 2, Role: RoleSystem, Content: "depth 2 system"}},
		{"activated count", len(r.Activated), 15},
		{"first activated (highest order)", r.Activated[0].UID, 14},
		{"position name", byUID(r, 6).PositionName, "atDepth"},
		{"depth of activated", byUID(r, 6).Depth, 2},
		{"role of activated", byUID(r, 6).Role, RoleUser},
		{"outlet of activated", byUID(r, 11).OutletName, "o"},
		{"content of activated", byUID(r, 11).Content, "outlet high"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func byUID(r *Result, uid int) Activated {
	for _, a := range r.Activated {
		if a.UID == uid {
			return a
		}
	}
	return Activated{}
}

// TestActivateSources checks the scan order of attached books and that a
// book attached twice counts once.
func TestActivateSources(t *testing.T) {
	t.Parallel()
	book := func(order int) *Book {
		return &Book{Entries: []*Entry{ent(1, nil, "x", func(e *Entry) { e.Constant, e.Order = true, order })}}
	}
	sources := []Source{
		{World: "G", Kind: SourceGlobal, Book: book(10)},
		{World: "C", Kind: SourceCharacter, Book: book(20)},
		{World: "Chat", Kind: SourceChat, Book: book(1)},
		{World: "P", Kind: SourcePersona, Book: book(2)},
		{World: "G", Kind: SourceCharacter, Book: book(99)},
		{World: "Chat", Kind: SourcePersona, Book: book(99)},
	}
	tests := []struct {
		strategy int
		want     string
	}{
		{StrategyCharacterFirst, "Chat.1 P.1 C.1 G.1"},
		{StrategyGlobalFirst, "Chat.1 P.1 G.1 C.1"},
		{StrategyEvenly, "Chat.1 P.1 C.1 G.1"},
	}
	for _, tt := range tests {
		in := baseInput(t, nil)
		in.Sources = sources
		in.Settings.CharacterStrategy = tt.strategy
		if got := uids(activate(t, in)); got != tt.want {
			t.Errorf("strategy %d: %s, want %s", tt.strategy, got, tt.want)
		}
	}
}

func TestActivateInputErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  func(*Input)
	}{
		{"no counter", func(in *Input) { in.Tokens = nil }},
		{"unknown kind", func(in *Input) { in.Sources[0].Kind = "shelf" }},
		{"no book", func(in *Input) { in.Sources[0].Book = nil }},
	}
	for _, tt := range tests {
		in := baseInput(t, nil)
		tt.set(&in)
		if _, err := Activate(context.Background(), in); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
}

// TestEngineConcurrent shares one Engine between goroutines (run with
// -race): activations must agree and not interfere.
func TestEngineConcurrent(t *testing.T) {
	t.Parallel()
	en := NewEngine()
	entries := []*Entry{ent(1, keys(`/drag(on|ons)/i`, "wyrm"), "D"), ent(2, keys("king"), "K")}
	done := make(chan string, 8)
	for range 8 {
		go func() {
			in := baseInput(t, entries, "the DRAGONS and the king")
			r, err := en.Activate(context.Background(), in)
			if err != nil {
				done <- err.Error()
				return
			}
			done <- uids(r)
		}()
	}
	for range 8 {
		if got := <-done; got != "W.1 W.2" {
			t.Errorf("activated %q", got)
		}
	}
}
