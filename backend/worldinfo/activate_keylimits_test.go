package worldinfo

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestTimedOutKeyIsTurnedOff: a key whose match runs out of time is
// reported and turned off for its entry; the Engine's next scan skips it
// (even over a text it would now match at once, where the entry would
// activate) and says it was turned off earlier, while another entry
// with the same key over a different text is not affected. ForgetBook
// (a save of the book) gives it its chance again.
func TestTimedOutKeyIsTurnedOff(t *testing.T) {
	t.Parallel()
	en := NewEngine()
	slow := slowKey(1)
	entries := []*Entry{
		ent(1, keys(slow), "S"),
		ent(2, keys("dragon"), "D"),
	}
	r, err := en.Activate(context.Background(), baseInput(t, entries, "a dragon "+manyAs))
	if err != nil {
		t.Fatal(err)
	}
	want := DisabledKey{World: "W", UID: 1, Key: slow, Reason: KeyTimedOut}
	if len(r.DisabledKeys) != 1 || r.DisabledKeys[0] != want {
		t.Fatalf("disabled keys %+v, want %+v", r.DisabledKeys, want)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "entry 1") || !strings.Contains(r.Warnings[0], slow) || !strings.Contains(r.Warnings[0], "turned off") {
		t.Errorf("warnings %q; want one naming the entry and the key", r.Warnings)
	}
	if uids(r) != "W.2" {
		t.Errorf("activated %q", uids(r))
	}

	// "aab" matches the key at once; the entry still stays out.
	r, err = en.Activate(context.Background(), baseInput(t, entries, "aab"))
	if err != nil {
		t.Fatal(err)
	}
	if uids(r) != "" || len(r.DisabledKeys) != 1 || r.DisabledKeys[0] != want {
		t.Errorf("next scan: activated %q, disabled %+v; want the key skipped and reported", uids(r), r.DisabledKeys)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "earlier scan") {
		t.Errorf("next scan warnings %q; want the earlier scan's key named", r.Warnings)
	}

	// The key is off for entry 1 of book W only.
	other := baseInput(t, []*Entry{ent(1, keys(slow), "S")}, "aab")
	other.Sources[0].World = "V"
	if r := activateWith(t, en, other); uids(r) != "V.1" || len(r.DisabledKeys) != 0 {
		t.Errorf("book V: activated %q, disabled %+v", uids(r), r.DisabledKeys)
	}

	en.ForgetBook("W")
	if r := activateWith(t, en, baseInput(t, entries, "aab")); uids(r) != "W.1" || len(r.DisabledKeys) != 0 || len(r.Warnings) != 0 {
		t.Errorf("after ForgetBook: activated %q, disabled %+v, warnings %q", uids(r), r.DisabledKeys, r.Warnings)
	}
}

// TestTimedOutKeySharedByEntries: entries sharing a key that runs out of
// time over their text are all turned off, each remembered on its own;
// the warnings name the first maxKeyWarnings and count the rest.
func TestTimedOutKeySharedByEntries(t *testing.T) {
	t.Parallel()
	en := NewEngine()
	slow := slowKey(7)
	n := maxKeyWarnings + 3
	var entries []*Entry
	for i := range n {
		entries = append(entries, ent(i, keys(slow), "S"))
	}
	r := activateWith(t, en, baseInput(t, entries, manyAs))
	if len(r.DisabledKeys) != n {
		t.Fatalf("disabled keys %+v; want all %d entries'", r.DisabledKeys, n)
	}
	off, _ := en.slow.snapshot(map[string]bool{"W": true})
	if len(off) != n {
		t.Errorf("remembered %d turned-off keys, want %d", len(off), n)
	}
	if len(r.Warnings) != maxKeyWarnings+1 || !strings.HasPrefix(r.Warnings[maxKeyWarnings], "3 more lorebook keys took longer than") {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// TestBacktrackingKeysCapPerBook: past maxBacktrackingKeys distinct keys
// that need the backtracking engine, a book's further ones are neither
// compiled nor run (their entries stay out though their keys occur) and
// are reported; keys RE2 runs have no such cap, and the cap is per book.
func TestBacktrackingKeysCapPerBook(t *testing.T) {
	t.Parallel()
	const extra = 5
	n := maxBacktrackingKeys + extra
	var text strings.Builder
	var js, re2 []*Entry
	for i := range n {
		fmt.Fprintf(&text, "e%d! ", i)
		js = append(js, ent(i, keys(fmt.Sprintf(`/\be%d(?=!)/`, i)), "J"))
		re2 = append(re2, ent(i, keys(fmt.Sprintf(`/\be%d!/`, i)), "R"))
	}
	in := baseInput(t, js, text.String())
	in.Sources = append(in.Sources,
		Source{World: "Plain", Kind: SourceGlobal, Book: &Book{Entries: re2}},
		Source{World: "Small", Kind: SourceGlobal, Book: &Book{Entries: js[n-1:]}})
	en := NewEngine()
	r := activateWith(t, en, in)

	active := map[string]int{}
	for _, a := range r.Activated {
		active[a.World]++
	}
	if active["W"] != maxBacktrackingKeys || active["Plain"] != n || active["Small"] != 1 {
		t.Errorf("activated per book %v; want W %d, Plain %d, Small 1", active, maxBacktrackingKeys, n)
	}
	if len(r.DisabledKeys) != extra {
		t.Fatalf("disabled keys %+v; want the %d past the cap", r.DisabledKeys, extra)
	}
	for i, d := range r.DisabledKeys {
		uid := maxBacktrackingKeys + i
		if d != (DisabledKey{World: "W", UID: uid, Key: fmt.Sprintf(`/\be%d(?=!)/`, uid), Reason: KeyOverCap}) {
			t.Errorf("disabled key %+v", d)
		}
	}
	if !containsWarning(r, fmt.Sprintf(`lorebook "W" has more than %d regex keys`, maxBacktrackingKeys)) || !containsWarning(r, "the other 5 are turned off") {
		t.Errorf("warnings %q", r.Warnings)
	}
	// Book W's refused keys were never compiled; its admitted ones were.
	if ck := en.keys.get(fmt.Sprintf(`/\be%d(?=!)/`, maxBacktrackingKeys)); ck.js != nil {
		t.Error("a key past the cap was compiled")
	}
	if ck := en.keys.get(`/\be0(?=!)/`); !ck.backtrack || ck.js == nil {
		t.Error("an admitted key was not compiled")
	}
}

// TestDisabledKeysReportIsBounded: a book with thousands of refused keys
// reports maxReportedKeys of them and counts the rest in its warning.
func TestDisabledKeysReportIsBounded(t *testing.T) {
	t.Parallel()
	n := maxBacktrackingKeys + maxReportedKeys + 100
	var entries []*Entry
	for i := range n {
		entries = append(entries, ent(i, keys(fmt.Sprintf(`/x%d(?=y)/`, i)), "X"))
	}
	r := activate(t, baseInput(t, entries, "nothing here"))
	if len(r.DisabledKeys) != maxReportedKeys {
		t.Errorf("%d disabled keys reported, want %d", len(r.DisabledKeys), maxReportedKeys)
	}
	if !containsWarning(r, fmt.Sprintf("the other %d are turned off", n-maxBacktrackingKeys)) {
		t.Errorf("warnings %q", r.Warnings)
	}
}

func activateWith(t *testing.T, en *Engine, in Input) *Result {
	t.Helper()
	r, err := en.Activate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
