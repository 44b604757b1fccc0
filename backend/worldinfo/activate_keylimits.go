package worldinfo

import (
	"fmt"
	"sync"
)

// maxBacktrackingKeys bounds, per book, the distinct regex keys that run
// on the backtracking engine (those RE2 cannot run: lookaround,
// backreferences). Each such key may spend jsMatchTimeout on every text
// it scans, and a card can carry thousands of them; hand-written books
// use a few, rarely dozens. Two hundred leaves room for any honest book,
// while the keys past it, in scan order, are neither compiled nor run
// (each is reported as turned off). Keys RE2 runs take linear time and
// need no cap beyond the bounds on the scanned text.
const maxBacktrackingKeys = 200

// maxReportedKeys bounds Result.DisabledKeys: the list is kept with every
// real generation's activation and sent with its event, and a card with
// thousands of refused keys must not make each of those megabytes. The
// warnings still count every key.
const maxReportedKeys = 500

// maxKeyWarnings bounds the warnings that name a key turned off in one
// scan (entries sharing a slow key over one text are all turned off at
// once); past it the rest are counted in one more warning.
const maxKeyWarnings = 10

// slowKeyLimit bounds the turned-off keys an Engine remembers; past it
// the memory starts over. Each one cost a timed-out match to find, so
// reaching it takes many minutes of matching.
const slowKeyLimit = 10_000

// Why a key is turned off (DisabledKey.Reason).
const (
	// KeyTimedOut: a match of the key ran past jsMatchTimeout. The key is
	// skipped by later scans until its book is saved again.
	KeyTimedOut = "timeout"
	// KeyOverCap: the book has more than maxBacktrackingKeys keys that
	// need the backtracking engine, and this one comes after them.
	KeyOverCap = "tooMany"
)

// DisabledKey is a regex key an activation did not run, so the lorebook
// editor can point at it: its book, its entry, the key as the entry
// writes it, and why (KeyTimedOut or KeyOverCap).
type DisabledKey struct {
	World  string `json:"world"`
	UID    int    `json:"uid"`
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// keyRef names one key of one entry of one book, as the entry writes it.
type keyRef struct {
	world string
	uid   int
	key   string
}

// slowKeys remembers the keys whose match ran past jsMatchTimeout, by
// book, entry and key, so later scans skip them instead of paying the
// timeout again, and the editor can be told which they are. A book's are
// forgotten when the book changes (Engine.ForgetBook), which gives an
// edited key a fresh chance; the epoch keeps a scan that began before
// such a change from turning a key off again after it. The zero value is
// ready.
type slowKeys struct {
	mu      sync.Mutex
	epoch   uint64
	size    int
	byWorld map[string]map[keyRef]bool
}

// snapshot returns the turned-off keys of the worlds, and the epoch to
// add new ones under.
func (r *slowKeys) snapshot(worlds map[string]bool) (map[keyRef]bool, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[keyRef]bool{}
	for w := range worlds {
		for ref := range r.byWorld[w] {
			out[ref] = true
		}
	}
	return out, r.epoch
}

// add turns ref off, unless a book changed since the scan that found it
// began (epoch).
func (r *slowKeys) add(ref keyRef, epoch uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if epoch != r.epoch {
		return
	}
	if r.size >= slowKeyLimit {
		r.byWorld, r.size = nil, 0
	}
	if r.byWorld == nil {
		r.byWorld = map[string]map[keyRef]bool{}
	}
	m := r.byWorld[ref.world]
	if m == nil {
		m = map[keyRef]bool{}
		r.byWorld[ref.world] = m
	}
	if !m[ref] {
		m[ref] = true
		r.size++
	}
}

func (r *slowKeys) forget(world string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.epoch++
	r.size -= len(r.byWorld[world])
	delete(r.byWorld, world)
}

// ForgetBook drops what the Engine remembers of the book world's keys:
// those turned off for taking too long to match. The Service calls it
// once a save, rename or delete of the book committed, so the keys of an
// edited book are tried again.
func (en *Engine) ForgetBook(world string) { en.slow.forget(world) }

// jsProbe is one backtracking regex over one scanned text.
type jsProbe struct {
	key string
	h   *haystack
}

// keyLimits is one activation's account of the keys it does not run:
// the backtracking keys admitted per book, those refused past the cap,
// those turned off for taking too long (before or during this scan), and
// the report of them for the result.
type keyLimits struct {
	slow  *slowKeys
	epoch uint64
	// off holds the keys turned off for time, by earlier scans and this.
	off map[keyRef]bool
	// timedOut holds the regexes that ran out of time on a text in this
	// scan: another entry with the same key over the same text would too.
	timedOut map[jsProbe]bool
	admitted map[string]map[string]bool
	refused  map[string]int
	// refusedWorlds lists the books with refused keys, in scan order.
	refusedWorlds []string
	reported      map[keyRef]bool
	disabled      []DisabledKey
	// earlier counts the keys reported turned off by an earlier scan,
	// fresh those this scan turned off; warnings names the first of these.
	earlier  int
	fresh    int
	warnings []string
}

func newKeyLimits(slow *slowKeys, worlds map[string]bool) keyLimits {
	off, epoch := slow.snapshot(worlds)
	return keyLimits{slow: slow, epoch: epoch, off: off, timedOut: map[jsProbe]bool{},
		admitted: map[string]map[string]bool{}, refused: map[string]int{}, reported: map[keyRef]bool{}}
}

// admit reports whether the book world may run key on the backtracking
// engine: keys it admitted already, and new ones while it has fewer than
// maxBacktrackingKeys.
func (l *keyLimits) admit(world, key string) bool {
	set := l.admitted[world]
	if set[key] {
		return true
	}
	if len(set) >= maxBacktrackingKeys {
		return false
	}
	if set == nil {
		set = map[string]bool{}
		l.admitted[world] = set
	}
	set[key] = true
	return true
}

// report lists ref in the result once, with its reason.
func (l *keyLimits) report(ref keyRef, reason string) {
	if l.reported[ref] {
		return
	}
	l.reported[ref] = true
	switch reason {
	case KeyOverCap:
		if l.refused[ref.world] == 0 {
			l.refusedWorlds = append(l.refusedWorlds, ref.world)
		}
		l.refused[ref.world]++
	case KeyTimedOut:
		if l.off[ref] {
			l.earlier++
		}
	}
	if len(l.disabled) < maxReportedKeys {
		l.disabled = append(l.disabled, DisabledKey{World: ref.world, UID: ref.uid, Key: ref.key, Reason: reason})
	}
}

// turnOff turns off the key ref of entry s, which ran out of time in this
// scan: the rest of the scan and later scans skip it.
func (l *keyLimits) turnOff(ref keyRef, s *scanEntry) {
	l.report(ref, KeyTimedOut)
	l.off[ref] = true
	l.slow.add(ref, l.epoch)
	if l.fresh++; l.fresh > maxKeyWarnings {
		return
	}
	l.warnings = append(l.warnings, fmt.Sprintf("lorebook %q, entry %d (%s): the key %s took longer than %s to match and is turned off until the book is saved again",
		ref.world, ref.uid, displayName(s.e), ref.key, jsMatchTimeout))
}

// survey goes through the entries before the scan, in scan order: the
// first maxBacktrackingKeys distinct backtracking keys of each book are
// admitted and the rest refused, and the keys earlier scans turned off
// are reported, whether or not this scan reaches their entries, so the
// editor learns of every one. Disabled entries are never scanned and
// take no place.
func (a *activation) survey() {
	l := &a.match.limits
	for _, s := range a.entries {
		if s.e.Disable {
			continue
		}
		if a.halt.cancelled() {
			return
		}
		for _, list := range [2][]string{s.e.Key, s.e.KeySecondary} {
			for _, k := range list {
				t := trimJS(k)
				if len(t) < 3 || t[0] != '/' || !a.match.keys.get(t).backtrack {
					continue
				}
				ref := keyRef{world: s.world, uid: s.e.UID, key: k}
				if l.off[ref] {
					l.report(ref, KeyTimedOut)
				} else if !l.admit(s.world, k) {
					l.report(ref, KeyOverCap)
				}
			}
		}
	}
}

// finish puts the account into the result: the keys, and a warning for
// each book over the cap, for the keys turned off earlier and for each
// key turned off now.
func (l *keyLimits) finish(res *Result) {
	for _, w := range l.refusedWorlds {
		res.Warnings = append(res.Warnings, fmt.Sprintf("lorebook %q has more than %d regex keys that need lookaround or backreferences: only the first %d run, the other %d are turned off",
			w, maxBacktrackingKeys, maxBacktrackingKeys, l.refused[w]))
	}
	if l.earlier > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d lorebook %s turned off for taking too long to match in an earlier scan %s skipped; saving a book tries its keys again",
			l.earlier, plural(l.earlier, "key", "keys"), plural(l.earlier, "was", "were")))
	}
	res.Warnings = append(res.Warnings, l.warnings...)
	if more := l.fresh - maxKeyWarnings; more > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d more lorebook %s took longer than %s to match and %s turned off until %s saved again",
			more, plural(more, "key", "keys"), jsMatchTimeout, plural(more, "is", "are"), plural(more, "its book is", "their books are")))
	}
	res.DisabledKeys = l.disabled
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
