package worldinfo

import "strings"

// Scan states (SillyTavern's scan_state): why a scan pass runs.
const (
	scanNone           = 0
	scanInitial        = 1
	scanRecursion      = 2
	scanMinActivations = 3
)

// Between scanned texts SillyTavern puts a newline and \x01, and starts
// the text with \x01, so a key cannot match across two messages by
// accident and "^" finds no message start.
const (
	scanMatcher = "\x01"
	scanJoiner  = "\n" + scanMatcher
)

// haystack is one composed scan text, with its lowercase form made once
// and shared by every case-insensitive key that scans it, and a trigram
// filter of each form that rejects most keys without a search.
type haystack struct {
	raw        string
	lower      string
	lowered    bool
	rawGrams   *gramSet
	lowerGrams *gramSet
	longS      bool // raw holds ſ, which lowercasing does not fold to s
	longSSet   bool
}

func (h *haystack) lowerText() string {
	if !h.lowered {
		h.lower = strings.ToLower(h.raw)
		h.lowered = true
	}
	return h.lower
}

// grams is the trigram filter of the raw or the lowercase text.
func (h *haystack) grams(lower bool) *gramSet {
	if lower {
		if h.lowerGrams == nil {
			h.lowerGrams = newGramSet(h.lowerText())
		}
		return h.lowerGrams
	}
	if h.rawGrams == nil {
		h.rawGrams = newGramSet(h.raw)
	}
	return h.rawGrams
}

// gramSet is a 65,536-bit Bloom filter of the byte trigrams of a text: a
// key with a trigram the text lacks cannot occur in it. Scanning a 1,000
// entry book means thousands of substring searches over kilobytes of
// chat; most keys are absent, and this rejects them in a few bit tests.
type gramSet [1024]uint64

func gramHash(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 2654435761 >> 16
}

func newGramSet(s string) *gramSet {
	g := new(gramSet)
	for i := 0; i+3 <= len(s); i++ {
		h := gramHash(s[i], s[i+1], s[i+2])
		g[h>>6] |= 1 << (h & 63)
	}
	return g
}

// mayContain is false only when needle cannot be a substring of the text.
func (g *gramSet) mayContain(needle string) bool {
	for i := 0; i+3 <= len(needle); i++ {
		h := gramHash(needle[i], needle[i+1], needle[i+2])
		if g[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// hasLongS reports whether the text holds U+017F, the one letter whose
// case folding reaches ASCII but whose lowercase is not ASCII; literal
// prefilters on the lowercase text are not safe then.
func (h *haystack) hasLongS() bool {
	if !h.longSSet {
		h.longS = strings.ContainsRune(h.raw, 'ſ')
		h.longSSet = true
	}
	return h.longS
}

// hayKey identifies a composed text: the depth scanned, the global
// sources an entry opted into and whether the recursion text is left out.
type hayKey struct {
	depth  int
	global uint8
	noRec  bool
}

// scanBuffer is SillyTavern's WorldInfoBuffer: the messages newest first,
// the injected prompts, the recursion text, and the depth skew of min
// activations. Composed texts are cached until the recursion text or the
// skew changes.
type scanBuffer struct {
	messages []string
	depth    int
	skew     int
	global   GlobalScanData
	inject   []string
	recurse  []string
	cache    map[hayKey]*haystack
	empty    haystack
}

func newScanBuffer(in *Input) *scanBuffer {
	b := &scanBuffer{depth: in.Settings.Depth, global: in.Global, cache: map[hayKey]*haystack{}}
	// Newest first, at most MaxScanDepth; a message that is empty leaves
	// a hole (an empty text), and empty messages at the old end are not
	// there at all, as in SillyTavern's buffer.
	n := min(len(in.Messages), MaxScanDepth)
	texts := make([]string, n)
	last := -1
	for i := range n {
		m := in.Messages[len(in.Messages)-1-i]
		t := m.Text
		if in.Settings.IncludeNames {
			t = m.Name + ": " + m.Text
		}
		if t != "" {
			last = i
		}
		texts[i] = trimJS(t)
	}
	b.messages = texts[:last+1]
	for _, s := range in.Inject {
		if s != "" {
			b.inject = append(b.inject, s)
		}
	}
	return b
}

// scanDepth is the global depth with the min-activations skew.
func (b *scanBuffer) scanDepth() int { return b.depth + b.skew }

func (b *scanBuffer) advance() {
	b.skew++
	clear(b.cache)
}

func (b *scanBuffer) addRecurse(text string) {
	b.recurse = append(b.recurse, text)
	clear(b.cache)
}

// Bits of hayKey.global, one per GlobalScanData text.
const (
	globalPersona = 1 << iota
	globalDescription
	globalPersonality
	globalDepthPrompt
	globalScenario
	globalCreatorNotes
)

// text is the text entry e scans in the given state.
func (b *scanBuffer) text(e *Entry, state int) *haystack {
	depth := b.scanDepth()
	if e.ScanDepth != nil {
		depth = *e.ScanDepth
	}
	if depth <= 0 {
		return &b.empty
	}
	depth = min(depth, MaxScanDepth)
	var g uint8
	for _, f := range []struct {
		on  bool
		bit uint8
	}{
		{e.MatchPersonaDescription, globalPersona},
		{e.MatchCharacterDescription, globalDescription},
		{e.MatchCharacterPersonality, globalPersonality},
		{e.MatchCharacterDepthPrompt, globalDepthPrompt},
		{e.MatchScenario, globalScenario},
		{e.MatchCreatorNotes, globalCreatorNotes},
	} {
		if f.on {
			g |= f.bit
		}
	}
	k := hayKey{depth: depth, global: g, noRec: state == scanMinActivations}
	if h, ok := b.cache[k]; ok {
		return h
	}
	h := &haystack{raw: b.compose(k)}
	b.cache[k] = h
	return h
}

func (b *scanBuffer) compose(k hayKey) string {
	var sb strings.Builder
	sb.WriteString(scanMatcher)
	for i, m := range b.messages[:min(k.depth, len(b.messages))] {
		if i > 0 {
			sb.WriteString(scanJoiner)
		}
		sb.WriteString(m)
	}
	for _, g := range []struct {
		bit  uint8
		text string
	}{
		{globalPersona, b.global.PersonaDescription},
		{globalDescription, b.global.CharacterDescription},
		{globalPersonality, b.global.CharacterPersonality},
		{globalDepthPrompt, b.global.CharacterDepthPrompt},
		{globalScenario, b.global.Scenario},
		{globalCreatorNotes, b.global.CreatorNotes},
	} {
		if k.global&g.bit != 0 && g.text != "" {
			sb.WriteString(scanJoiner)
			sb.WriteString(g.text)
		}
	}
	for _, s := range b.inject {
		sb.WriteString(scanJoiner)
		sb.WriteString(s)
	}
	if !k.noRec {
		for _, s := range b.recurse {
			sb.WriteString(scanJoiner)
			sb.WriteString(s)
		}
	}
	return sb.String()
}

// isJSSpace is JavaScript's \s: white space and line terminators.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// trimJS is JavaScript's String#trim.
func trimJS(s string) string { return strings.TrimFunc(s, isJSSpace) }

func joinLines(ss []string) string { return strings.Join(ss, "\n") }
