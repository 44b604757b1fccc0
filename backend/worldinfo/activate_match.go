package worldinfo

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2"
)

// keyCacheLimit bounds the compiled keys an Engine keeps; past it the
// cache starts over (keys are cheap to compile again, and a book set
// rarely has this many distinct keys).
const keyCacheLimit = 100_000

// compiledKey is one key, prepared once: a regex key compiled (or marked
// unusable), a plain key's lowercase form.
type compiledKey struct {
	regex bool
	re    *regexp.Regexp
	// backtrack marks a regex RE2 cannot run (lookaround,
	// backreferences): it runs on a backtracking engine in ECMAScript
	// mode, under jsMatchTimeout, compiled on first use (see
	// backtracking), so a key a book may not run (maxBacktrackingKeys)
	// is never compiled.
	backtrack bool
	jsPattern string
	jsFlags   string
	jsOnce    sync.Once
	js        *regexp2.Regexp
	// unsupported says why a valid JavaScript regex cannot run here when
	// the backtracking engine refuses it too; the key then never matches.
	unsupported string
	pre         prefilter
	lower       string
	// multiWord keys contain white space; whole-word matching treats them
	// as plain substrings.
	multiWord bool
}

// backtracking returns the key's backtracking program, compiled on the
// first call; nil when it does not compile (unsupported says why).
func (ck *compiledKey) backtracking() *regexp2.Regexp {
	ck.jsOnce.Do(func() {
		if re, err := compileJS(ck.jsPattern, ck.jsFlags); err == nil {
			ck.js = re
		}
	})
	return ck.js
}

// keyCache holds compiled keys by their text, shared by activations. The
// zero value is ready.
type keyCache struct {
	m    sync.Map
	size atomic.Int64
}

func (c *keyCache) get(k string) *compiledKey {
	if v, ok := c.m.Load(k); ok {
		return v.(*compiledKey)
	}
	ck := compileKey(k)
	if c.size.Add(1) > keyCacheLimit {
		c.m.Clear()
		c.size.Store(1)
	}
	c.m.Store(k, ck)
	return ck
}

func compileKey(k string) *compiledKey {
	ck := &compiledKey{lower: strings.ToLower(k), multiWord: strings.IndexFunc(k, isJSSpace) >= 0}
	pattern, flags, ok := parseRegexKey(k)
	if !ok {
		return ck
	}
	goPattern, unsupported, ok := translateJSRegex(pattern, flags)
	if !ok {
		return ck
	}
	if unsupported != "" {
		ck.regex, ck.backtrack = true, true
		ck.jsPattern, ck.jsFlags, ck.unsupported = pattern, flags, unsupported
		return ck
	}
	re, err := regexp.Compile(goPattern)
	if err != nil {
		// JavaScript would most likely reject it too: SillyTavern then
		// matches the key as plain text.
		return ck
	}
	ck.regex, ck.re = true, re
	ck.pre = newPrefilter(goPattern)
	return ck
}

// matcher matches keys for one activation: the settings' defaults, the
// activation's halt (no key is matched once it says stop), the account
// of the keys it does not run, and the keys it found unusable, for
// Result.Warnings.
type matcher struct {
	keys       *keyCache
	settings   *Settings
	substitute func(string) string
	halt       *halt
	limits     keyLimits
	warned     map[string]bool
	warnings   []string
}

// match is SillyTavern's matchKeys: does key occur in h for entry s. A
// /regex/flags key is a regex over the raw text whatever the entry's
// options; other keys are substrings, lowercased unless case-sensitive,
// and bounded by non-word characters when matching whole words. raw is
// the key as the entry writes it (key is it macro-expanded and trimmed),
// by which a backtracking key is turned off. Nothing matches once the
// scan must stop.
func (m *matcher) match(h *haystack, s *scanEntry, raw, key string) bool {
	if m.halt.stop() {
		return false
	}
	e := s.e
	ck := m.keys.get(key)
	if ck.regex {
		if ck.backtrack {
			return m.matchBacktracking(h, s, raw, key, ck)
		}
		if !ck.pre.mayMatch(h) {
			return false
		}
		return ck.re.MatchString(h.raw)
	}
	caseSensitive := m.settings.CaseSensitive
	if e.CaseSensitive != nil {
		caseSensitive = *e.CaseSensitive
	}
	hay, needle := h.raw, key
	if !caseSensitive {
		hay, needle = h.lowerText(), ck.lower
	}
	if !h.grams(!caseSensitive).mayContain(needle) {
		return false
	}
	wholeWords := m.settings.MatchWholeWords
	if e.MatchWholeWords != nil {
		wholeWords = *e.MatchWholeWords
	}
	if wholeWords && !ck.multiWord {
		return containsWord(hay, needle)
	}
	return strings.Contains(hay, needle)
}

// matchBacktracking runs a key RE2 cannot run on the backtracking engine,
// unless it is turned off for time or past its book's cap. A match that
// runs out of time turns the key off for this entry, now and in later
// scans.
func (m *matcher) matchBacktracking(h *haystack, s *scanEntry, raw, key string, ck *compiledKey) bool {
	l := &m.limits
	ref := keyRef{world: s.world, uid: s.e.UID, key: raw}
	switch {
	case l.off[ref]:
		l.report(ref, KeyTimedOut)
		return false
	case l.timedOut[jsProbe{key, h}]:
		// The same regex over the same text ran out of time for another
		// entry of this scan: it would again.
		l.turnOff(ref, s)
		return false
	case !l.admit(s.world, raw):
		l.report(ref, KeyOverCap)
		return false
	}
	re := ck.backtracking()
	if re == nil {
		m.warn(key, ck.unsupported)
		return false
	}
	ok, err := re.MatchString(h.raw)
	if err != nil {
		l.timedOut[jsProbe{key, h}] = true
		l.turnOff(ref, s)
		return false
	}
	return ok
}

func (m *matcher) warn(key, why string) {
	if m.warned[key] {
		return
	}
	if m.warned == nil {
		m.warned = map[string]bool{}
	}
	m.warned[key] = true
	m.warnings = append(m.warnings, "key "+key+": "+why+"; it never matches")
}

// containsWord reports whether needle occurs in hay between non-word
// characters (or the text's ends): SillyTavern's (?:^|\W)key(?:$|\W),
// where only ASCII letters, digits and _ are word characters.
func containsWord(hay, needle string) bool {
	for i := 0; i <= len(hay); {
		j := strings.Index(hay[i:], needle)
		if j < 0 {
			return false
		}
		p := i + j
		end := p + len(needle)
		if (p == 0 || !isWordByte(hay[p-1])) && (end == len(hay) || !isWordByte(hay[end])) {
			return true
		}
		i = p + 1
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// subst expands macros in s, or returns it as is.
func (m *matcher) subst(s string) string {
	if m.substitute == nil {
		return s
	}
	return m.substitute(s)
}

// primaryMatch reports whether a primary key matches, as SillyTavern
// looks for one: each key macro-expanded, skipped when that leaves
// nothing, trimmed.
func (m *matcher) primaryMatch(h *haystack, se *scanEntry) bool {
	for _, k := range se.e.Key {
		s := m.subst(k)
		if s != "" && m.match(h, se, k, trimJS(s)) {
			return true
		}
	}
	return false
}

// secondaryMatch applies the entry's selective logic to its secondary
// keys. An unknown logic never activates.
func (m *matcher) secondaryMatch(h *haystack, se *scanEntry) bool {
	e := se.e
	anyMatch, allMatch := false, true
	for _, k := range e.KeySecondary {
		s := m.subst(k)
		hit := s != "" && m.match(h, se, k, trimJS(s))
		if hit {
			anyMatch = true
		} else {
			allMatch = false
		}
		if e.SelectiveLogic == LogicAndAny && hit {
			return true
		}
		if e.SelectiveLogic == LogicNotAll && !hit {
			return true
		}
	}
	switch e.SelectiveLogic {
	case LogicNotAny:
		return !anyMatch
	case LogicAndAll:
		return allMatch
	}
	return false
}

// score is SillyTavern's getScore for group scoring: how many keys occur
// (raw keys, no macros), secondary ones counted for AND ANY always and
// for AND ALL only when all occur.
func (m *matcher) score(h *haystack, se *scanEntry) int {
	e := se.e
	if len(e.Key) == 0 {
		return 0
	}
	primary, secondary := 0, 0
	for _, k := range e.Key {
		if m.match(h, se, k, k) {
			primary++
		}
	}
	for _, k := range e.KeySecondary {
		if m.match(h, se, k, k) {
			secondary++
		}
	}
	if len(e.KeySecondary) > 0 {
		switch e.SelectiveLogic {
		case LogicAndAny:
			return primary + secondary
		case LogicAndAll:
			if secondary == len(e.KeySecondary) {
				return primary + secondary
			}
		}
	}
	return primary
}

// jsMatchTimeout bounds one match of a backtracking (regexp2) key: a key
// written to backtrack forever must not stall a generation. regexp2 reads
// a clock that ticks every 100 ms, so a match may run up to about three
// times this; ActivationDeadline bounds the sum, and a key that times out
// is turned off (slowKeys).
const jsMatchTimeout = 50 * time.Millisecond

// compileJS compiles a JavaScript regex RE2 cannot run, with its flags,
// in regexp2's ECMAScript mode. A sticky regex tested once matches only
// at the start.
func compileJS(pattern, flags string) (*regexp2.Regexp, error) {
	opts := regexp2.RegexOptions(regexp2.ECMAScript)
	for _, f := range flags {
		switch f {
		case 'i':
			opts |= regexp2.IgnoreCase
		case 'm':
			opts |= regexp2.Multiline
		case 's':
			opts |= regexp2.Singleline
		case 'u':
			opts |= regexp2.Unicode
		case 'y':
			pattern = `^(?:` + pattern + `)`
			opts &^= regexp2.Multiline
		}
	}
	re, err := regexp2.Compile(pattern, opts)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = jsMatchTimeout
	return re, nil
}
