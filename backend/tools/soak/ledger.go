package main

import (
	"fmt"
	"slices"
	"sync"
)

// Value is what a key holds: some text, or nothing (never written, or
// deleted). Writers encode what they wrote as the text (a message's mes,
// a state's canonical JSON, "present"), so a check compares strings.
type Value struct {
	Text    string
	Present bool
}

// Has is a present value.
func Has(text string) Value { return Value{Text: text, Present: true} }

// None is the value of a key that holds nothing.
var None = Value{}

func (v Value) String() string {
	if !v.Present {
		return "<absent>"
	}
	return fmt.Sprintf("%q", clip(v.Text, 120))
}

// Counts are one writer's figures.
type Counts struct {
	// Calls is how many calls the server answered with success.
	Calls int
	// Acked is how many key writes those calls acknowledged.
	Acked int
	// Verified is how many acknowledged writes a check found: the value
	// itself, or a later write of the same key that replaced it.
	Verified int
	// Lost is how many acknowledged writes a check did not find.
	Lost int
	// Uncertain is how many writes were in flight when the server was
	// killed (no answer): they may or may not have landed.
	Uncertain int
	// Landed is how many of those a check found landed.
	Landed int
	// Unexpected counts keys holding a value nobody wrote.
	Unexpected int
	// Half counts items found partly written: a chat with some of its
	// messages, a card without its lorebook, a cut-off reply, a branch
	// its source does not list.
	Half int
	// Refused counts calls the server refused with an error the writer
	// did not expect (a write the soak makes should succeed); each is
	// listed among the problems.
	Refused int
	// Odd counts other things that should not happen: an answer the
	// soak could not read or did not expect, a run that never ended.
	Odd int
	// Twice counts items found imported twice, which the library
	// documents (see libraryWriter.duplicates): not a failure.
	Twice int
}

// add sums c and o.
func (c Counts) add(o Counts) Counts {
	return Counts{
		Calls: c.Calls + o.Calls, Acked: c.Acked + o.Acked, Verified: c.Verified + o.Verified,
		Lost: c.Lost + o.Lost, Uncertain: c.Uncertain + o.Uncertain, Landed: c.Landed + o.Landed,
		Unexpected: c.Unexpected + o.Unexpected, Half: c.Half + o.Half, Refused: c.Refused + o.Refused,
		Odd: c.Odd + o.Odd, Twice: c.Twice + o.Twice,
	}
}

// Unchecked is how many acknowledged writes no check has settled yet;
// 0 after a full verification.
func (c Counts) Unchecked() int { return c.Acked - c.Verified - c.Lost }

// maxProblems bounds the problems a ledger keeps to print.
const maxProblems = 20

// Ledger is one writer's book of what it wrote to which key, and what the
// server acknowledged. A key is a register: each write replaces its value.
// A write in flight when the server dies stays pending (it may have landed
// or not); the next check of the key accepts the last acknowledged value
// or any pending one, and takes what it found as the new baseline.
type Ledger struct {
	mu       sync.Mutex
	entries  map[string]*entry
	order    []string
	counts   Counts
	problems []string
	dropped  int
}

// entry is one key's record.
type entry struct {
	group      string
	acked      Value // the baseline: last acknowledged or checked value
	unverified int   // acknowledgements since the key was last checked
	counted    bool  // the baseline is an acknowledged write counted as verified
	pending    []Value
	dirty      bool
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{entries: map[string]*entry{}} }

// Op is one write of one key, begun and not yet answered.
type Op struct {
	l    *Ledger
	key  string
	want Value
	done bool
}

// Begin records that key (in group, which tells the verifier where to
// read it) is about to be written with want. Until Ack or Fail the write
// is pending: a kill leaves it so.
func (l *Ledger) Begin(key, group string, want Value) *Op {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entries[key]
	if e == nil {
		e = &entry{group: group}
		l.entries[key] = e
		l.order = append(l.order, key)
	}
	e.pending = append(e.pending, want)
	e.dirty = true
	return &Op{l: l, key: key, want: want}
}

// Ack records that the server acknowledged the write: want is now what
// the key must hold until it is written again.
func (o *Op) Ack() {
	if o.done {
		return
	}
	o.done = true
	o.l.mu.Lock()
	defer o.l.mu.Unlock()
	e := o.l.entries[o.key]
	e.pending = removeValue(e.pending, o.want)
	e.acked = o.want
	e.unverified++
	o.l.counts.Acked++
}

// Fail records that the server refused the write: it changed nothing.
func (o *Op) Fail() {
	if o.done {
		return
	}
	o.done = true
	o.l.mu.Lock()
	defer o.l.mu.Unlock()
	e := o.l.entries[o.key]
	e.pending = removeValue(e.pending, o.want)
}

// Abandon records that the write got no answer (the server died): it
// stays pending until the key's next check.
func (o *Op) Abandon() {
	if o.done {
		return
	}
	o.done = true
	o.l.mu.Lock()
	defer o.l.mu.Unlock()
	o.l.counts.Uncertain++
}

func removeValue(list []Value, v Value) []Value {
	if i := slices.Index(list, v); i >= 0 {
		return slices.Delete(list, i, i+1)
	}
	return list
}

// Verdict is the outcome of one check.
type Verdict int

// The outcomes of Check.
const (
	// Kept: the key holds its acknowledged value (or nothing, never
	// having been acknowledged).
	Kept Verdict = iota
	// Landed: the key holds a write that was in flight at a kill.
	Landed
	// Lost: an acknowledged value is gone.
	Lost
	// Unexpected: the key holds a value nobody wrote to it.
	Unexpected
)

// Check compares what key holds on the server with the ledger and
// settles it: got becomes the key's baseline and its pending writes are
// forgotten (the server that had them in flight is gone).
func (l *Ledger) Check(key string, got Value) Verdict {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entries[key]
	if e == nil {
		if !got.Present {
			return Kept
		}
		l.counts.Unexpected++
		l.problemLocked("%s: holds %s, which nobody wrote", key, got)
		return Unexpected
	}
	settle := func(counted bool) {
		e.acked, e.pending, e.unverified, e.dirty, e.counted = got, nil, 0, false, counted
	}
	switch {
	case got == e.acked:
		l.counts.Verified += e.unverified
		settle(e.counted || e.unverified > 0)
		return Kept
	case slices.Contains(e.pending, got):
		// Acknowledged writes before the one that landed were replaced
		// by it, in order: they count as verified.
		l.counts.Verified += e.unverified
		l.counts.Landed++
		settle(false)
		return Landed
	case e.acked.Present || e.unverified > 0:
		switch {
		case e.unverified > 0:
			l.counts.Lost += e.unverified
		case e.counted:
			// Verified before, lost since: take the verification back.
			l.counts.Verified--
			l.counts.Lost++
		default:
			// A write seen landed after an earlier kill is gone: as bad
			// as losing an acknowledged one.
			l.counts.Lost++
		}
		l.problemLocked("%s: acknowledged %s, found %s", key, e.acked, got)
		settle(false)
		return Lost
	default:
		l.counts.Unexpected++
		l.problemLocked("%s: holds %s, which nobody wrote (in flight: %d writes)", key, got, len(e.pending))
		settle(false)
		return Unexpected
	}
}

// Known reports whether key has been written (or begun).
func (l *Ledger) Known(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.entries[key] != nil
}

// Adopt records a key nobody wrote through the ledger (an item found
// landed from a call in flight at a kill) with the value it holds, to be
// checked from now on like any other.
func (l *Ledger) Adopt(key, group string, v Value) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entries[key]
	if e == nil {
		e = &entry{group: group}
		l.entries[key] = e
		l.order = append(l.order, key)
	}
	e.acked, e.pending, e.unverified, e.counted, e.dirty = v, nil, 0, false, false
}

// Dirty reports whether key was written since its last check.
func (l *Ledger) Dirty(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entries[key]
	return e != nil && e.dirty
}

// Baseline is the value key must hold: its last acknowledged or checked
// value.
func (l *Ledger) Baseline(key string) Value {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.entries[key]; e != nil {
		return e.acked
	}
	return None
}

// Keys lists the keys of group in the order they were first written;
// dirtyOnly keeps those written since their last check.
func (l *Ledger) Keys(group string, dirtyOnly bool) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, k := range l.order {
		e := l.entries[k]
		if e.group == group && (!dirtyOnly || e.dirty) {
			out = append(out, k)
		}
	}
	return out
}

// Groups lists the groups holding keys, in the order first written;
// dirtyOnly keeps those with a key written since its last check.
func (l *Ledger) Groups(dirtyOnly bool) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, k := range l.order {
		e := l.entries[k]
		if seen[e.group] || (dirtyOnly && !e.dirty) {
			continue
		}
		seen[e.group] = true
		out = append(out, e.group)
	}
	return out
}

// Called counts a call the server answered with success.
func (l *Ledger) Called() {
	l.mu.Lock()
	l.counts.Calls++
	l.mu.Unlock()
}

// Refused counts a call the server refused unexpectedly, noting why.
func (l *Ledger) Refused(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts.Refused++
	l.problemLocked(format, args...)
}

// Half counts an item found partly written, noting what.
func (l *Ledger) Half(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts.Half++
	l.problemLocked(format, args...)
}

// Twice counts an item found imported twice, noting which.
func (l *Ledger) Twice(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts.Twice++
	l.problemLocked(format, args...)
}

// Note counts something odd, noting what.
func (l *Ledger) Note(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts.Odd++
	l.problemLocked(format, args...)
}

func (l *Ledger) problemLocked(format string, args ...any) {
	if len(l.problems) >= maxProblems {
		l.dropped++
		return
	}
	l.problems = append(l.problems, fmt.Sprintf(format, args...))
}

// Counts returns the ledger's figures.
func (l *Ledger) Counts() Counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts
}

// Problems returns the problems noted (at most maxProblems) and how many
// more there were.
func (l *Ledger) Problems() ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.problems), l.dropped
}

// clip shortens s to n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
