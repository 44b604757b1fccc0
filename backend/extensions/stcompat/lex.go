package stcompat

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokKind is what a token of JavaScript is, as far as the scan cares.
type tokKind uint8

const (
	tIdent    tokKind = iota // a name or keyword ($ and # count as letters)
	tPunct                   // an operator or bracket
	tString                  // a '…' or "…" literal; text is its value
	tTemplate                // a `…` literal; text is its static parts, each ${…} a NUL
	tNumber
	tRegex
)

// hole stands for each ${…} of a template in its token's text: no name,
// id or path character, so nothing found in a template runs across one.
const hole = "\x00"

// maxTemplateDepth bounds templates nested in one another's ${…}; past
// it the rest of the file is not read (each level copies the tokens of
// the levels inside it once, so the bound keeps lexing linear).
const maxTemplateDepth = 32

type token struct {
	kind tokKind
	text string
}

func (t token) is(kind tokKind, text string) bool { return t.kind == kind && t.text == text }

// punctuators are the operators longer than one character, by their
// first, longest first, so the lexer takes the longest that fits.
var punctuators = func() map[byte][]string {
	m := map[byte][]string{}
	for _, p := range []string{
		">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
		"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "%=", "&=", "|=", "^=", "**", "<<", ">>",
	} {
		m[p[0]] = append(m[p[0]], p)
	}
	return m
}()

// regexAfter are the keywords after which a slash starts a regular
// expression rather than dividing.
var regexAfter = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true, "delete": true,
	"void": true, "throw": true, "case": true, "do": true, "else": true, "yield": true, "await": true,
}

// tmplFrame is a template being read: its static text so far, and the
// tokens of its ${…} parts, which follow its own token in the output.
type tmplFrame struct {
	cooked strings.Builder
	inner  []token
	inExpr bool
	depth  int // braces open inside the current ${…}
}

// lex splits src into tokens, leaving out comments and whitespace. It
// never fails: what cannot be read one way is read another (an
// unterminated string ends at its line, a slash that starts no regular
// expression on its line divides), so hostile input costs at most
// linear time and a few wrong tokens. It reports whether it read all
// of src (false past maxTemplateDepth).
func lex(src string) ([]token, bool) {
	// Minified code runs about a token per three bytes: room for that
	// up front spares the copies of a growing slice (half of the time on
	// a 1 MB bundle).
	l := lexer{src: src, out: make([]token, 0, len(src)/3)}
	if strings.HasPrefix(src, "#!") {
		l.skipLine()
	}
	whole := l.run()
	for len(l.stack) > 0 { // unterminated templates end with the file
		l.closeTemplate()
	}
	return l.out, whole
}

type lexer struct {
	src   string
	pos   int
	out   []token
	stack []*tmplFrame
	prev  token
	none  bool // no token yet: a slash here starts a regular expression
}

func (l *lexer) emit(t token) {
	l.prev, l.none = t, false
	if n := len(l.stack); n > 0 && l.stack[n-1].inExpr {
		l.stack[n-1].inner = append(l.stack[n-1].inner, t)
		return
	}
	l.out = append(l.out, t)
}

func (l *lexer) skipLine() {
	for l.pos < len(l.src) && l.src[l.pos] != '\n' {
		l.pos++
	}
}

// run reads tokens to the end of src; false when it gave up early.
func (l *lexer) run() bool {
	l.none = true
	for l.pos < len(l.src) {
		if n := len(l.stack); n > 0 && !l.stack[n-1].inExpr {
			l.readTemplate()
			continue
		}
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
		case c == '/' && l.at(1) == '/':
			l.skipLine()
		case c == '/' && l.at(1) == '*':
			end := strings.Index(l.src[l.pos+2:], "*/")
			if end < 0 {
				l.pos = len(l.src)
			} else {
				l.pos += end + 4
			}
		case c == '\'' || c == '"':
			l.readString(c)
		case c == '`':
			if len(l.stack) >= maxTemplateDepth {
				return false
			}
			l.pos++
			l.stack = append(l.stack, &tmplFrame{})
		case isIdentByte(c):
			start := l.pos
			for l.pos < len(l.src) && (isIdentByte(l.src[l.pos]) || isDigit(l.src[l.pos])) {
				l.pos++
			}
			l.emit(token{tIdent, l.src[start:l.pos]})
		case isDigit(c) || c == '.' && isDigit(l.at(1)):
			l.readNumber()
		case c == '/' && l.regexAllowed() && l.readRegex():
		case c == '{' || c == '}':
			l.pos++
			if n := len(l.stack); n > 0 {
				top := l.stack[n-1]
				if c == '}' && top.depth == 0 { // the end of a ${…}
					top.inExpr = false
					l.prev, l.none = token{tTemplate, ""}, false
					continue
				}
				if c == '{' {
					top.depth++
				} else {
					top.depth--
				}
			}
			l.emit(token{tPunct, string(c)})
		default:
			l.readPunct()
		}
	}
	return true
}

func (l *lexer) at(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '#' || c == '\\' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *lexer) readNumber() {
	start := l.pos
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case isDigit(c) || c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			l.pos++
		case (c == '+' || c == '-') && (l.src[l.pos-1] == 'e' || l.src[l.pos-1] == 'E') && !strings.HasPrefix(l.src[start:], "0x"):
			l.pos++
		default:
			l.emit(token{tNumber, l.src[start:l.pos]})
			return
		}
	}
	l.emit(token{tNumber, l.src[start:l.pos]})
}

func (l *lexer) readPunct() {
	for _, p := range punctuators[l.src[l.pos]] {
		if strings.HasPrefix(l.src[l.pos:], p) {
			l.pos += len(p)
			if p == "?." { // optional chaining reads as a member access
				if isDigit(l.at(0)) { // a ? .5 : b
					l.pos--
					l.emit(token{tPunct, "?"})
					return
				}
				p = "."
			}
			l.emit(token{tPunct, p})
			return
		}
	}
	l.emit(token{tPunct, l.src[l.pos : l.pos+1]})
	l.pos++
}

// regexAllowed says whether a slash here starts a regular expression:
// at the start, after an operator or opening bracket, or after a
// keyword that takes an expression. After a closing brace it does too,
// as blocks end with one far more often than object literals divide.
func (l *lexer) regexAllowed() bool {
	if l.none {
		return true
	}
	switch l.prev.kind {
	case tIdent:
		return regexAfter[l.prev.text]
	case tPunct:
		return l.prev.text != ")" && l.prev.text != "]" && l.prev.text != "++" && l.prev.text != "--"
	}
	return false
}

// readRegex reads a regular expression literal; false (reading nothing)
// when none ends on this line, so the slash is read as division.
func (l *lexer) readRegex() bool {
	i, class := l.pos+1, false
	for ; i < len(l.src); i++ {
		switch c := l.src[i]; {
		case c == '\n' || c == '\r':
			return false
		case c == '\\':
			i++
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			i++
			for i < len(l.src) && isIdentByte(l.src[i]) {
				i++
			}
			l.emit(token{tRegex, l.src[l.pos:i]})
			l.pos = i
			return true
		}
	}
	return false
}

// readString reads a quoted string; one left open ends at its line.
func (l *lexer) readString(q byte) {
	l.pos++
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == q:
			l.pos++
			l.emit(token{tString, b.String()})
			return
		case c == '\n':
			l.emit(token{tString, b.String()})
			return
		case c == '\\':
			l.escape(&b)
		default:
			b.WriteByte(c)
			l.pos++
		}
	}
	l.emit(token{tString, b.String()})
}

// readTemplate reads a template's text up to its end or its next ${.
func (l *lexer) readTemplate() {
	top := l.stack[len(l.stack)-1]
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '`':
			l.pos++
			l.closeTemplate()
			return
		case c == '$' && l.at(1) == '{':
			l.pos += 2
			top.cooked.WriteString(hole)
			top.inExpr, top.depth = true, 0
			l.prev, l.none = token{}, true
			return
		case c == '\\':
			l.escape(&top.cooked)
		default:
			top.cooked.WriteByte(c)
			l.pos++
		}
	}
}

// closeTemplate ends the innermost template: its token, then the
// tokens of its ${…} parts, go where the template stood.
func (l *lexer) closeTemplate() {
	n := len(l.stack)
	top := l.stack[n-1]
	l.stack = l.stack[:n-1]
	l.emit(token{tTemplate, top.cooked.String()})
	for _, t := range top.inner {
		l.emit(t)
	}
	l.prev = token{tTemplate, ""}
}

// escape reads a backslash escape at l.pos into b: the common ones as
// JavaScript reads them, \x and \u when well formed, a line
// continuation as nothing, and any other character as itself.
func (l *lexer) escape(b *strings.Builder) {
	l.pos++ // the backslash
	if l.pos >= len(l.src) {
		return
	}
	c := l.src[l.pos]
	l.pos++
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '\r':
		if l.at(0) == '\n' {
			l.pos++
		}
	case '\n':
	case 'x':
		if l.pos+2 <= len(l.src) {
			if v, err := strconv.ParseUint(l.src[l.pos:l.pos+2], 16, 8); err == nil {
				b.WriteRune(rune(v))
				l.pos += 2
				return
			}
		}
		b.WriteByte('x')
	case 'u':
		hex := ""
		if l.at(0) == '{' {
			if end := strings.IndexByte(l.src[l.pos:], '}'); end > 1 && end <= 7 {
				hex = l.src[l.pos+1 : l.pos+end]
				if v, err := strconv.ParseUint(hex, 16, 32); err == nil && utf8.ValidRune(rune(v)) {
					b.WriteRune(rune(v))
					l.pos += end + 1
					return
				}
			}
		} else if l.pos+4 <= len(l.src) {
			if v, err := strconv.ParseUint(l.src[l.pos:l.pos+4], 16, 16); err == nil {
				b.WriteRune(rune(v))
				l.pos += 4
				return
			}
		}
		b.WriteByte('u')
	default:
		b.WriteByte(c)
	}
}
