package worldinfo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// slowKey is a regex key that needs the backtracking engine (a
// lookahead) and backtracks exponentially over a run of a's: no match of
// it over forty a's ends within jsMatchTimeout. i makes each one a
// distinct key.
func slowKey(i int) string { return fmt.Sprintf(`/(a+a+)+(?=b|%d)/`, i) }

// manyAs is the text slow keys choke on.
var manyAs = strings.Repeat("a", 40)

// tripwire is a Substitute that calls trip when it expands the key
// "trip": a test can so make something happen at a chosen key of the
// scan, without depending on time.
func tripwire(trip func()) func(string) string {
	return func(s string) string {
		if s == "trip" {
			trip()
		}
		return s
	}
}

// order sets an entry's order (entries scan highest first).
func order(n int) func(*Entry) { return func(e *Entry) { e.Order = n } }

// TestActivationDeadlineCutsTheScan: when the deadline passes in the
// middle of the scan (the test's clock jumps an hour at the key "trip"),
// no key is matched after it, but what activated before it, and entries
// that need no key, still enter, with CutShort and a warning; no second
// pass runs.
func TestActivationDeadlineCutsTheScan(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	in := baseInput(t, []*Entry{
		ent(1, keys("dragon"), "the dragon recurses", order(100)),
		ent(2, keys("trip"), "T", order(90)),
		ent(3, keys("dragon"), "D", order(80)),
		ent(4, nil, "C", order(70), func(e *Entry) { e.Constant = true }),
		ent(5, keys("recurses"), "R", order(60)),
	}, "a dragon")
	in.Settings.Recursive = true
	in.Clock = func() time.Time { return now }
	in.Substitute = tripwire(func() { now = now.Add(time.Hour) })
	r, err := Activate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := uids(r); got != "W.1 W.4" {
		t.Errorf("activated %q, want W.1 W.4", got)
	}
	if !r.CutShort || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "stopped early") {
		t.Errorf("CutShort %v, warnings %q; want the deadline's warning", r.CutShort, r.Warnings)
	}

	// The same scan with time standing still runs to the end.
	in.Substitute = nil
	r = activate(t, in)
	if got := uids(r); got != "W.1 W.3 W.4 W.5" || r.CutShort || len(r.Warnings) != 0 {
		t.Errorf("without the jump: activated %q, CutShort %v, warnings %q", got, r.CutShort, r.Warnings)
	}
}

// TestActivationDeadlineBoundsBacktrackingKeys: a book of keys that each
// run out of time stops at the deadline instead of waiting for every one
// of them. The test's clock moves a second each time it is read (about a
// key), against a deadline of a few seconds, so only the first few keys
// run, each to its real jsMatchTimeout, and are turned off.
func TestActivationDeadlineBoundsBacktrackingKeys(t *testing.T) {
	t.Parallel()
	const n = 40
	var entries []*Entry
	for i := range n {
		entries = append(entries, ent(i, keys(slowKey(i)), "S"))
	}
	in := baseInput(t, entries, manyAs)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	in.Deadline = 3 * time.Second
	in.Clock = func() time.Time { now = now.Add(time.Second); return now }
	r, err := Activate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !r.CutShort || !containsWarning(r, "stopped early") {
		t.Fatalf("CutShort %v, warnings %q; want the scan cut short", r.CutShort, r.Warnings)
	}
	timedOut := 0
	for _, d := range r.DisabledKeys {
		if d.Reason != KeyTimedOut || d.World != "W" || d.Key != slowKey(d.UID) {
			t.Errorf("disabled key %+v", d)
		}
		timedOut++
	}
	if timedOut == 0 || timedOut >= n {
		t.Errorf("%d keys timed out; want some, but far from all %d", timedOut, n)
	}
	if len(r.Activated) != 0 {
		t.Errorf("activated %s", uids(r))
	}
}

// TestActivationCancelled: a cancelled context ends the scan at the next
// key and Activate returns the context's error, not a partial result.
func TestActivationCancelled(t *testing.T) {
	t.Parallel()
	entries := []*Entry{
		ent(1, keys("dragon"), "D", order(100)),
		ent(2, keys("trip"), "T", order(90)),
		ent(3, keys(slowKey(3)), "S", order(80)),
		ent(4, nil, "C", order(70), func(e *Entry) { e.Constant = true }),
	}
	t.Run("mid-scan", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		in := baseInput(t, entries, "a dragon "+manyAs)
		in.Substitute = tripwire(cancel)
		en := NewEngine()
		r, err := en.Activate(ctx, in)
		if !errors.Is(err, context.Canceled) || r != nil {
			t.Fatalf("Activate = %+v, %v; want context.Canceled", r, err)
		}
		// The slow key after the cancel never ran: nothing turned it off.
		if off, _ := en.slow.snapshot(map[string]bool{"W": true}); len(off) != 0 {
			t.Errorf("keys turned off after the cancel: %v", off)
		}
	})
	t.Run("before the scan", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if r, err := Activate(ctx, baseInput(t, entries, "a dragon")); !errors.Is(err, context.Canceled) || r != nil {
			t.Fatalf("Activate = %+v, %v; want context.Canceled", r, err)
		}
	})
	t.Run("past its deadline", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
		defer cancel()
		if _, err := Activate(ctx, baseInput(t, entries, "a dragon")); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v; want the context's own deadline", err)
		}
	})
}

func containsWarning(r *Result, part string) bool {
	for _, w := range r.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
