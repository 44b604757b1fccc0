package worldinfo

import (
	"encoding/json"
	"reflect"
	"testing"
)

// timedChat is a chat of n messages whose newest says last.
func timedChat(n int, last string) []string {
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = "filler"
	}
	msgs[n-1] = last
	return msgs
}

// step activates entries over a chat of n messages with the stored state.
func step(t *testing.T, entries []*Entry, state TimedState, n int, last string, dry bool) *Result {
	t.Helper()
	in := baseInput(t, entries, timedChat(n, last)...)
	in.Timed, in.DryRun = state, dry
	return activate(t, in)
}

func TestTimedStickyThenCooldown(t *testing.T) {
	t.Parallel()
	e := ent(1, keys("dragon"), "D", func(e *Entry) { e.Sticky, e.Cooldown = 2, 3 })
	entries := []*Entry{e}
	hash := newScanEntry("W", e).hash()

	r := step(t, entries, TimedState{}, 5, "a dragon", false)
	if uids(r) != "W.1" {
		t.Fatalf("step 1: %q", uids(r))
	}
	want := TimedState{
		Sticky:   map[string]TimedEffect{"W.1": {Hash: hash, Start: 5, End: 7}},
		Cooldown: map[string]TimedEffect{"W.1": {Hash: hash, Start: 5, End: 8}},
	}
	if !reflect.DeepEqual(r.Timed, want) {
		t.Fatalf("step 1 state = %+v, want %+v", r.Timed, want)
	}

	r = step(t, entries, r.Timed, 6, "nothing", false)
	if uids(r) != "W.1" {
		t.Errorf("step 2: sticky entry should stay active, got %q", uids(r))
	}

	r = step(t, entries, r.Timed, 7, "a dragon", false)
	if uids(r) != "" {
		t.Errorf("step 3: sticky ended, cooldown should hold it out, got %q", uids(r))
	}
	if _, ok := r.Timed.Sticky["W.1"]; ok {
		t.Errorf("step 3: sticky effect not removed: %+v", r.Timed)
	}
	if got := r.Timed.Cooldown["W.1"]; got != (TimedEffect{Hash: hash, Start: 7, End: 10, Protected: true}) {
		t.Errorf("step 3: cooldown = %+v, want a protected one from 7 to 10", got)
	}

	r = step(t, entries, r.Timed, 7, "a dragon", false)
	if uids(r) != "" || r.Timed.Cooldown["W.1"].End != 10 {
		t.Errorf("step 3 again (swipe): a protected cooldown survives, got %q %+v", uids(r), r.Timed)
	}

	r = step(t, entries, r.Timed, 10, "a dragon", false)
	if uids(r) != "W.1" {
		t.Errorf("step 4: cooldown over, got %q", uids(r))
	}
	if r.Timed.Sticky["W.1"].Start != 10 || r.Timed.Cooldown["W.1"].End != 13 {
		t.Errorf("step 4: effects not set again: %+v", r.Timed)
	}
}

func TestTimedEffects(t *testing.T) {
	t.Parallel()
	sticky := ent(1, keys("dragon"), "D", func(e *Entry) { e.Sticky = 3 })
	hash := newScanEntry("W", sticky).hash()
	stored := func(start, end int, protected bool) TimedState {
		return TimedState{Sticky: map[string]TimedEffect{"W.1": {Hash: hash, Start: start, End: end, Protected: protected}}, Cooldown: map[string]TimedEffect{}}
	}
	edited := ent(1, keys("dragon"), "changed", func(e *Entry) { e.Sticky = 3 })
	cooling := ent(1, keys("dragon"), "D", func(e *Entry) { e.Cooldown = 2 })
	coolHash := newScanEntry("W", cooling).hash()
	delayed := ent(1, keys("dragon"), "D", func(e *Entry) { e.Delay = 5 })
	plain := ent(1, keys("dragon"), "D")
	plainHash := newScanEntry("W", plain).hash()
	tests := []struct {
		name    string
		entries []*Entry
		state   TimedState
		n       int
		last    string
		dry     bool
		want    string
		effect  *TimedEffect // the sticky effect of W.1 after, nil for none
	}{
		{"sticky keeps the entry", []*Entry{sticky}, stored(4, 7, false), 5, "nothing", false, "W.1", &TimedEffect{Hash: hash, Start: 4, End: 7}},
		{"chat did not advance", []*Entry{sticky}, stored(5, 8, false), 5, "nothing", false, "", nil},
		{"chat did not advance, key matches again", []*Entry{sticky}, stored(5, 8, false), 5, "dragon", false, "W.1", &TimedEffect{Hash: hash, Start: 5, End: 8}},
		{"protected survives", []*Entry{sticky}, stored(5, 8, true), 5, "nothing", false, "W.1", &TimedEffect{Hash: hash, Start: 5, End: 8, Protected: true}},
		{"edited entry is not found", []*Entry{edited}, stored(4, 7, false), 5, "nothing", false, "", &TimedEffect{Hash: hash, Start: 4, End: 7}},
		{"unknown entry's effect ends", nil, stored(4, 7, false), 7, "nothing", false, "", nil},
		{"entry without sticky drops the effect", []*Entry{plain}, TimedState{Sticky: map[string]TimedEffect{"W.1": {Hash: plainHash, Start: 4, End: 7}}}, 5, "nothing", false, "", nil},
		{"dry run ignores sticky", []*Entry{sticky}, stored(4, 7, false), 5, "nothing", true, "", &TimedEffect{Hash: hash, Start: 4, End: 7}},
		{"dry run sets nothing", []*Entry{sticky}, TimedState{}, 5, "dragon", true, "W.1", nil},
		{"cooldown holds out", []*Entry{cooling}, TimedState{Cooldown: map[string]TimedEffect{"W.1": {Hash: coolHash, Start: 4, End: 6}}}, 5, "dragon", false, "", nil},
		{"cooldown over", []*Entry{cooling}, TimedState{Cooldown: map[string]TimedEffect{"W.1": {Hash: coolHash, Start: 4, End: 6}}}, 6, "dragon", false, "W.1", nil},
		{"delay holds out", []*Entry{delayed}, TimedState{}, 4, "dragon", false, "", nil},
		{"delay over", []*Entry{delayed}, TimedState{}, 5, "dragon", false, "W.1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := step(t, tt.entries, tt.state, tt.n, tt.last, tt.dry)
			if got := uids(r); got != tt.want {
				t.Errorf("activated %q, want %q", got, tt.want)
			}
			got, ok := r.Timed.Sticky["W.1"]
			switch {
			case tt.effect == nil && ok:
				t.Errorf("sticky effect %+v, want none", got)
			case tt.effect != nil && (!ok || got != *tt.effect):
				t.Errorf("sticky effect %+v (%v), want %+v", got, ok, *tt.effect)
			}
		})
	}
}

// TestTimedStickyWinsGroup: a sticky entry takes its inclusion group
// without a roll.
func TestTimedStickyWinsGroup(t *testing.T) {
	t.Parallel()
	a := ent(1, keys("x"), "A", func(e *Entry) { e.Group, e.Sticky = "g", 2 })
	b := ent(2, keys("x"), "B", func(e *Entry) { e.Group = "g" })
	state := TimedState{Sticky: map[string]TimedEffect{"W.1": {Hash: newScanEntry("W", a).hash(), Start: 4, End: 6}}}
	r := step(t, []*Entry{b, a}, state, 5, "x", false)
	if got := uids(r); got != "W.1" {
		t.Errorf("activated %q, want the sticky W.1", got)
	}
}

func TestTimedStateJSON(t *testing.T) {
	t.Parallel()
	raw := `{"sticky":{"W.1":{"hash":229813667249670,"start":4,"end":"7","protected":false},"bad":5,"noend":{"start":1}},"cooldown":[],"other":{"x":1}}`
	s, err := ParseTimedState(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Sticky["W.1"]; got != (TimedEffect{Hash: 229813667249670, Start: 4, End: 7}) {
		t.Errorf("W.1 = %+v", got)
	}
	if len(s.Sticky) != 1 || len(s.Cooldown) != 0 {
		t.Errorf("damaged records kept: %+v", s)
	}
	out, _ := json.Marshal(s)
	want := `{"sticky":{"W.1":{"hash":229813667249670,"start":4,"end":7,"protected":false}},"cooldown":{},"other":{"x":1}}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	for _, in := range []string{``, `null`, `5`, `"x"`, `{"sticky":null}`} {
		s, err := ParseTimedState(json.RawMessage(in))
		if err != nil || len(s.Sticky) != 0 || s.Cooldown == nil {
			t.Errorf("ParseTimedState(%s) = %+v, %v", in, s, err)
		}
	}
	if _, err := ParseTimedState(json.RawMessage(`{`)); err == nil {
		t.Error("invalid JSON accepted")
	}
}
