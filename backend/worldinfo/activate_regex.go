package worldinfo

import (
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// parseRegexKey is SillyTavern's parseRegexFromString up to the point of
// compiling: a key is a regex when it reads /pattern/flags with flags from
// "gimsuy", no unescaped "/" inside the pattern and no flag twice. The
// first "\/" is unescaped, as SillyTavern does (later ones JavaScript
// reads as "/" anyway).
func parseRegexKey(k string) (pattern, flags string, ok bool) {
	if len(k) < 3 || k[0] != '/' {
		return "", "", false
	}
	end := -1
	for p := 2; p < len(k); p++ {
		if k[p] == '/' && strings.Trim(k[p+1:], "gimsuy") == "" {
			end = p
			break
		}
	}
	if end < 0 {
		return "", "", false
	}
	pattern, flags = k[1:end], k[end+1:]
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '/' && (i == 0 || pattern[i-1] != '\\') {
			return "", "", false
		}
	}
	for i := range len(flags) {
		if strings.IndexByte(flags[i+1:], flags[i]) >= 0 {
			return "", "", false
		}
	}
	return strings.Replace(pattern, `\/`, "/", 1), flags, true
}

// jsSpaces is the content of a character class matching JavaScript's \s.
const jsSpaces = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// translateJSRegex rewrites a JavaScript pattern with its flags into Go's
// RE2 syntax with the same meaning. ok is false when the pattern is not
// valid JavaScript as far as the translation can tell (SillyTavern then
// treats the key as text); unsupported is set when it is valid but needs
// what RE2 lacks (lookaround, backreferences).
func translateJSRegex(pattern, flags string) (goPattern, unsupported string, ok bool) {
	t := jsTranslator{src: []rune(pattern), unicode: strings.ContainsRune(flags, 'u'), dotAll: strings.ContainsRune(flags, 's')}
	if strings.ContainsRune(flags, 'i') {
		t.out.WriteString("(?i)")
	}
	if strings.ContainsRune(flags, 'm') {
		t.out.WriteString("(?m)")
	}
	sticky := strings.ContainsRune(flags, 'y')
	if sticky {
		// A sticky regex tested once matches only at the start.
		t.out.WriteString(`\A(?:`)
	}
	if !t.run() {
		return "", "", false
	}
	if sticky {
		t.out.WriteString(")")
	}
	return t.out.String(), t.unsupported, true
}

type jsTranslator struct {
	src         []rune
	i           int
	out         strings.Builder
	unicode     bool
	dotAll      bool
	inClass     bool
	unsupported string
}

func (t *jsTranslator) peek(n int) rune {
	if t.i+n < len(t.src) {
		return t.src[t.i+n]
	}
	return -1
}

func (t *jsTranslator) run() bool {
	for ; t.i < len(t.src); t.i++ {
		c := t.src[t.i]
		switch {
		case c == '\\':
			if !t.escape() {
				return false
			}
		case t.inClass:
			switch c {
			case ']':
				t.inClass = false
				t.out.WriteRune(c)
			case '[':
				t.out.WriteString(`\[`)
			default:
				t.out.WriteRune(c)
			}
		case c == '[':
			switch {
			case t.peek(1) == ']':
				t.out.WriteString(`[^\x00-\x{10FFFF}]`) // [] matches nothing
				t.i++
			case t.peek(1) == '^' && t.peek(2) == ']':
				t.out.WriteString(`[\x00-\x{10FFFF}]`) // [^] matches anything
				t.i += 2
			default:
				t.inClass = true
				t.out.WriteRune('[')
				if t.peek(1) == '^' {
					t.out.WriteRune('^')
					t.i++
				}
			}
		case c == '(' && t.peek(1) == '?':
			if !t.group() {
				return false
			}
		case c == '.':
			if t.dotAll {
				t.out.WriteString(`(?s:.)`)
			} else {
				t.out.WriteString(`[^\n\r\x{2028}\x{2029}]`)
			}
		case c == '{':
			t.repeat()
			t.out.WriteRune(c)
		default:
			t.out.WriteRune(c)
		}
	}
	return !t.inClass
}

// group handles "(?": non-capturing and named groups pass; lookaround is
// beyond RE2.
func (t *jsTranslator) group() bool {
	switch t.peek(2) {
	case ':':
		t.out.WriteString("(?:")
		t.i += 2
	case '=', '!':
		t.fail("lookahead is not supported")
		t.out.WriteString("(?:")
		t.i += 2
	case '<':
		if n := t.peek(3); n == '=' || n == '!' {
			t.fail("lookbehind is not supported")
			t.out.WriteString("(?:")
			t.i += 3
			return true
		}
		t.out.WriteString("(?<")
		t.i += 2
	default:
		return false
	}
	return true
}

// repeat checks a {n,m} quantifier against RE2's limit of 1000.
func (t *jsTranslator) repeat() {
	j := t.i + 1
	for j < len(t.src) && (t.src[j] >= '0' && t.src[j] <= '9' || t.src[j] == ',') {
		j++
	}
	if j >= len(t.src) || t.src[j] != '}' || j == t.i+1 {
		return
	}
	for _, part := range strings.Split(string(t.src[t.i+1:j]), ",") {
		if n, err := strconv.Atoi(part); err == nil && n > 1000 {
			t.fail("a repeat count above 1000 is not supported")
		}
	}
}

func (t *jsTranslator) fail(why string) {
	if t.unsupported == "" {
		t.unsupported = why
	}
}

// escape translates the escape at t.i (a backslash) and what follows.
func (t *jsTranslator) escape() bool {
	t.i++
	if t.i >= len(t.src) {
		return false
	}
	d := t.src[t.i]
	switch {
	case strings.ContainsRune("dDwWfnrtv", d):
		t.out.WriteRune('\\')
		t.out.WriteRune(d)
	case d == 'b' || d == 'B':
		switch {
		case !t.inClass:
			t.out.WriteRune('\\')
			t.out.WriteRune(d)
		case d == 'b':
			t.out.WriteString(`\x08`)
		default:
			t.out.WriteRune('B')
		}
	case d == 's':
		if t.inClass {
			t.out.WriteString(jsSpaces)
		} else {
			t.out.WriteString("[" + jsSpaces + "]")
		}
	case d == 'S':
		if t.inClass {
			t.out.WriteString(`\S`)
		} else {
			t.out.WriteString("[^" + jsSpaces + "]")
		}
	case d == '0' && (t.peek(1) < '0' || t.peek(1) > '9'):
		t.out.WriteString(`\x00`)
	case d >= '0' && d <= '9':
		t.fail("backreferences are not supported")
		t.out.WriteString(`\x00`)
	case d == 'k' && t.peek(1) == '<':
		t.fail("named backreferences are not supported")
		t.out.WriteString(`\x00`)
	case d == 'c':
		if n := t.peek(1); n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z' {
			t.i++
			t.out.WriteString(`\x{` + strconv.FormatInt(int64(n%32), 16) + `}`)
		} else {
			t.out.WriteString(`\\c`)
		}
	case d == 'x':
		return t.hexEscape(2)
	case d == 'u':
		return t.unicodeEscape()
	case (d == 'p' || d == 'P') && t.unicode:
		return t.property(d)
	case d < 0x80 && (unicode.IsPunct(d) || unicode.IsSymbol(d)):
		t.out.WriteRune('\\')
		t.out.WriteRune(d)
	default:
		if t.unicode {
			return false
		}
		t.out.WriteString(regexpQuote(d))
	}
	return true
}

func regexpQuote(r rune) string {
	s := string(r)
	if r < 0x80 && strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
		return `\` + s
	}
	return s
}

// hexEscape reads \xHH; without two hex digits JavaScript reads "x".
func (t *jsTranslator) hexEscape(n int) bool {
	if t.i+n >= len(t.src) {
		return t.literal('x')
	}
	v, err := strconv.ParseUint(string(t.src[t.i+1:t.i+1+n]), 16, 32)
	if err != nil {
		return t.literal('x')
	}
	t.i += n
	t.out.WriteString(`\x{` + strconv.FormatUint(v, 16) + `}`)
	return true
}

// unicodeEscape reads \uHHHH (a surrogate pair of them joins into one code
// point) and, with the u flag, \u{H…}.
func (t *jsTranslator) unicodeEscape() bool {
	if t.unicode && t.peek(1) == '{' {
		end := t.i + 2
		for end < len(t.src) && t.src[end] != '}' {
			end++
		}
		v, err := strconv.ParseUint(string(t.src[t.i+2:min(end, len(t.src))]), 16, 32)
		if end >= len(t.src) || err != nil || v > unicode.MaxRune {
			return false
		}
		t.i = end
		t.out.WriteString(`\x{` + strconv.FormatUint(v, 16) + `}`)
		return true
	}
	if t.i+4 >= len(t.src) {
		return t.literal('u')
	}
	v, err := strconv.ParseUint(string(t.src[t.i+1:t.i+5]), 16, 32)
	if err != nil {
		return t.literal('u')
	}
	t.i += 4
	r := rune(v)
	if utf16.IsSurrogate(r) {
		if r < 0xdc00 && t.peek(1) == '\\' && t.peek(2) == 'u' && t.i+6 < len(t.src) {
			if lo, err := strconv.ParseUint(string(t.src[t.i+3:t.i+7]), 16, 32); err == nil && lo >= 0xdc00 && lo <= 0xdfff {
				t.i += 6
				r = utf16.DecodeRune(r, rune(lo))
				t.out.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + `}`)
				return true
			}
		}
		t.fail("a lone surrogate cannot occur in UTF-8 text")
	}
	t.out.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + `}`)
	return true
}

// literal writes an escaped letter JavaScript reads as itself (without
// the u flag, which makes it an error).
func (t *jsTranslator) literal(r rune) bool {
	if t.unicode {
		return false
	}
	t.out.WriteRune(r)
	return true
}

// property translates \p{…} and \P{…} (u flag) into Go's names.
func (t *jsTranslator) property(d rune) bool {
	if t.peek(1) != '{' {
		return false
	}
	end := t.i + 2
	for end < len(t.src) && t.src[end] != '}' {
		end++
	}
	if end >= len(t.src) {
		return false
	}
	name := string(t.src[t.i+2 : end])
	t.i = end
	if k, v, ok := strings.Cut(name, "="); ok {
		switch k {
		case "General_Category", "gc", "Script", "sc", "Script_Extensions", "scx":
			name = v
		default:
			t.fail("the Unicode property " + k + " is not supported")
		}
	}
	if long, ok := categoryNames[name]; ok {
		name = long
	}
	_, cat := unicode.Categories[name]
	_, script := unicode.Scripts[name]
	if !cat && !script {
		t.fail("the Unicode property " + name + " is not supported")
		name = "L"
	}
	t.out.WriteString(`\` + string(d) + `{` + name + `}`)
	return true
}

// categoryNames maps JavaScript's long general category names to Go's.
var categoryNames = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
	"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
	"Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
	"Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
	"Final_Punctuation": "Pf", "Other_Punctuation": "Po",
	"Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So",
	"Separator": "Z", "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
	"Other": "C", "Control": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
}

// prefilter is a cheap test run before a regex: literals one of which
// every match contains. Most lorebook regexes name a word; when none of
// the words is in the text the regex need not run.
type prefilter struct {
	lits []prefilterLit
}

type prefilterLit struct {
	text string
	// fold literals are lowercase ASCII and are looked up in the
	// lowercased text.
	fold bool
}

// newPrefilter derives the literals from a Go pattern; an empty prefilter
// lets everything through.
func newPrefilter(goPattern string) prefilter {
	re, err := syntax.Parse(goPattern, syntax.Perl)
	if err != nil {
		return prefilter{}
	}
	lits, ok := requiredLiterals(re.Simplify())
	if !ok {
		return prefilter{}
	}
	return prefilter{lits: lits}
}

// mayMatch reports whether the regex can match h: false only when no
// required literal occurs.
func (p prefilter) mayMatch(h *haystack) bool {
	if len(p.lits) == 0 {
		return true
	}
	for _, l := range p.lits {
		if l.fold {
			if h.hasLongS() || (h.grams(true).mayContain(l.text) && strings.Contains(h.lowerText(), l.text)) {
				return true
			}
		} else if h.grams(false).mayContain(l.text) && strings.Contains(h.raw, l.text) {
			return true
		}
	}
	return false
}

// requiredLiterals returns literals one of which every match of re
// contains, preferring long ones; ok is false when there are none.
func requiredLiterals(re *syntax.Regexp) (lits []prefilterLit, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		fold := re.Flags&syntax.FoldCase != 0
		if fold {
			for _, r := range s {
				if r >= 0x80 {
					return nil, false
				}
			}
			s = strings.ToLower(s)
		}
		return []prefilterLit{{text: s, fold: fold}}, s != ""
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		best, bestLen := []prefilterLit(nil), 0
		for _, sub := range re.Sub {
			l, ok := requiredLiterals(sub)
			if !ok {
				continue
			}
			shortest := len(l[0].text)
			for _, x := range l {
				shortest = min(shortest, len(x.text))
			}
			if shortest > bestLen {
				best, bestLen = l, shortest
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			l, ok := requiredLiterals(sub)
			if !ok {
				return nil, false
			}
			lits = append(lits, l...)
		}
		return lits, len(lits) > 0
	}
	return nil, false
}
