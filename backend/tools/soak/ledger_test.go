package main

import (
	"slices"
	"testing"
)

// step is one thing that happens to key "k" in a ledger scenario.
type step struct {
	begin  *Value // begin a write of this value…
	answer string // …answered "ack", "fail" or "none" (a kill)
	check  *Value // check the key holding this value
	want   Verdict
	adopt  *Value
}

func write(v Value, answer string) step { return step{begin: &v, answer: answer} }
func check(v Value, want Verdict) step  { return step{check: &v, want: want} }
func adopt(v Value) step                { return step{adopt: &v} }

func TestLedgerScenarios(t *testing.T) {
	t.Parallel()
	a, b, c := Has("a"), Has("b"), Has("c")
	tests := []struct {
		name  string
		steps []step
		want  Counts
	}{
		{"acknowledged and found", []step{write(a, "ack"), check(a, Kept)},
			Counts{Calls: 1, Acked: 1, Verified: 1}},
		{"acknowledged and gone", []step{write(a, "ack"), check(None, Lost)},
			Counts{Calls: 1, Acked: 1, Lost: 1}},
		{"acknowledged and replaced by another value", []step{write(a, "ack"), check(b, Lost)},
			Counts{Calls: 1, Acked: 1, Lost: 1}},
		{"two acknowledged, the last found", []step{write(a, "ack"), write(b, "ack"), check(b, Kept)},
			Counts{Calls: 2, Acked: 2, Verified: 2}},
		{"two acknowledged, the first found", []step{write(a, "ack"), write(b, "ack"), check(a, Lost)},
			Counts{Calls: 2, Acked: 2, Lost: 2}},
		{"in flight at a kill, landed", []step{write(a, "none"), check(a, Landed)},
			Counts{Uncertain: 1, Landed: 1}},
		{"in flight at a kill, not landed", []step{write(a, "none"), check(None, Kept)},
			Counts{Uncertain: 1}},
		{"acknowledged, then one in flight landed over it", []step{write(a, "ack"), write(b, "none"), check(b, Landed)},
			Counts{Calls: 1, Acked: 1, Verified: 1, Uncertain: 1, Landed: 1}},
		{"acknowledged, then one in flight did not land", []step{write(a, "ack"), write(b, "none"), check(a, Kept)},
			Counts{Calls: 1, Acked: 1, Verified: 1, Uncertain: 1}},
		{"acknowledged, one in flight, a third value found", []step{write(a, "ack"), write(b, "none"), check(c, Lost)},
			Counts{Calls: 1, Acked: 1, Lost: 1, Uncertain: 1}},
		{"refused writes change nothing", []step{write(a, "ack"), write(b, "fail"), check(a, Kept)},
			Counts{Calls: 1, Acked: 1, Verified: 1, Refused: 1}},
		{"a refused value found is lost data", []step{write(a, "ack"), write(b, "fail"), check(b, Lost)},
			Counts{Calls: 1, Acked: 1, Lost: 1, Refused: 1}},
		{"a value nobody wrote", []step{write(a, "fail"), check(b, Unexpected)},
			Counts{Refused: 1, Unexpected: 1}},
		{"an acknowledged delete undone", []step{write(a, "ack"), check(a, Kept), write(None, "ack"), check(a, Lost)},
			Counts{Calls: 2, Acked: 2, Verified: 1, Lost: 1}},
		{"verified, then lost at a later check", []step{write(a, "ack"), check(a, Kept), check(None, Lost)},
			Counts{Calls: 1, Acked: 1, Lost: 1}},
		{"verified twice counts once", []step{write(a, "ack"), check(a, Kept), check(a, Kept)},
			Counts{Calls: 1, Acked: 1, Verified: 1}},
		{"landed, then lost", []step{write(a, "none"), check(a, Landed), check(None, Lost)},
			Counts{Uncertain: 1, Landed: 1, Lost: 1}},
		{"adopted, then lost", []step{adopt(a), check(a, Kept), check(None, Lost)},
			Counts{Lost: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := NewLedger()
			for i, s := range tt.steps {
				switch {
				case s.begin != nil:
					op := l.Begin("k", "g", *s.begin)
					var err error
					switch s.answer {
					case "fail":
						err = &apiError{Code: "x.refused", Message: "no"}
					case "none":
						err = errNoAnswer
					}
					outcome(l, err, []*Op{op})
				case s.adopt != nil:
					l.Adopt("k", "g", *s.adopt)
				default:
					if got := l.Check("k", *s.check); got != s.want {
						t.Fatalf("step %d: Check(%v) = %v, want %v", i, *s.check, got, s.want)
					}
				}
			}
			if got := l.Counts(); got != tt.want {
				t.Errorf("counts = %+v\nwant     %+v", got, tt.want)
			}
		})
	}
}

func TestLedgerUnknownKey(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	if got := l.Check("nobody", None); got != Kept {
		t.Errorf("an unknown key holding nothing: %v, want Kept", got)
	}
	if got := l.Check("nobody", Has("x")); got != Unexpected {
		t.Errorf("an unknown key holding a value: %v, want Unexpected", got)
	}
	if p, _ := l.Problems(); len(p) != 1 {
		t.Errorf("problems = %q, want one", p)
	}
}

func TestLedgerDirtyKeysAndGroups(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	l.Begin("a1", "A", Has("x")).Ack()
	l.Begin("b1", "B", Has("x")).Ack()
	l.Begin("a2", "A", Has("y")).Abandon()
	if got := l.Groups(true); !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("dirty groups = %q", got)
	}
	l.Check("b1", Has("x"))
	if got := l.Groups(true); !slices.Equal(got, []string{"A"}) {
		t.Errorf("dirty groups after checking B = %q", got)
	}
	if got := l.Groups(false); !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("groups = %q", got)
	}
	if got := l.Keys("A", true); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Errorf("dirty keys of A = %q", got)
	}
	l.Check("a1", Has("x"))
	if got := l.Keys("A", true); !slices.Equal(got, []string{"a2"}) || !l.Dirty("a2") || l.Dirty("a1") {
		t.Errorf("dirty keys of A after checking a1 = %q", got)
	}
	if got := l.Baseline("a2"); got != None {
		t.Errorf("baseline of a write in flight = %v, want None", got)
	}
	if got := l.Baseline("a1"); got != Has("x") {
		t.Errorf("baseline of a1 = %v", got)
	}
}

func TestLedgerProblemsAreBounded(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	for range maxProblems + 5 {
		l.Half("part of something")
	}
	p, dropped := l.Problems()
	if len(p) != maxProblems || dropped != 5 || l.Counts().Half != maxProblems+5 {
		t.Errorf("%d problems, %d dropped, %d half", len(p), dropped, l.Counts().Half)
	}
}

func TestOutcomeOfABadResult(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	op := l.Begin("k", "g", Has("a"))
	// The server answered 200, the soak could not read the result: the
	// write happened.
	if outcome(l, errBadResult, []*Op{op}) {
		t.Error("an unreadable result reported as a clean success")
	}
	if got := l.Check("k", Has("a")); got != Kept || l.Counts().Verified != 1 || l.Counts().Odd != 1 {
		t.Errorf("check after an unreadable result: %v, %+v", got, l.Counts())
	}
}

func TestOutcomeExpectedRefusal(t *testing.T) {
	t.Parallel()
	l := NewLedger()
	outcome(l, &apiError{Code: "state.conflict"}, []*Op{l.Begin("k", "g", Has("a"))}, "state.conflict")
	if p, _ := l.Problems(); len(p) != 0 || l.Counts().Refused != 0 {
		t.Errorf("an expected refusal: problems %q, counts %+v", p, l.Counts())
	}
}
