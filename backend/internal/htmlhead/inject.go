// Package htmlhead inserts markup at the top of an HTML document's head,
// where it is parsed before anything the document itself loads: the
// desktop window's CSP and boot element, and a sandboxed extension's
// frame policy and runtime script. It imports nothing of Hearth's.
package htmlhead

import "bytes"

// Inject returns doc with snippet inserted right after its <head> start
// tag, or, when the document does not open with one, before the first
// thing that is not a byte order mark, whitespace, a comment, a doctype
// or the <html> start tag (the parser then opens the head for the
// snippet's elements itself, so they still land in it). Everything it
// skips it reads as the HTML tokenizer does, so a document cannot make a
// comment or an attribute value swallow the snippet ("<!-- <head> -->",
// <html data-x="<head>">); what it does not recognise ends the skipping,
// which only moves the snippet earlier.
func Inject(doc, snippet []byte) []byte {
	at := point(doc)
	out := make([]byte, 0, len(doc)+len(snippet))
	out = append(out, doc[:at]...)
	out = append(out, snippet...)
	return append(out, doc[at:]...)
}

// point is where Inject inserts.
func point(doc []byte) int {
	i := 0
	if bytes.HasPrefix(doc, []byte("\xef\xbb\xbf")) {
		i = 3
	}
	for {
		for i < len(doc) && isSpace(doc[i]) {
			i++
		}
		rest := doc[i:]
		var end int
		var ok, head bool
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			end, ok = commentEnd(doc, i+4)
		case bytes.HasPrefix(rest, []byte("<!")), bytes.HasPrefix(rest, []byte("<?")):
			// A doctype ends at its first '>', even inside a quoted
			// identifier; so does a bogus comment.
			if n := bytes.IndexByte(rest, '>'); n >= 0 {
				end, ok = i+n+1, true
			}
		case startTag(rest, "html"):
			end, ok = tagEnd(doc, i+len("<html"))
		case startTag(rest, "head"):
			end, ok = tagEnd(doc, i+len("<head"))
			head = true
		}
		if !ok {
			return i
		}
		if head {
			return end
		}
		i = end
	}
}

// isSpace is the tokenizer's whitespace (CR counts: it becomes LF).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// startTag reports whether b opens with the start tag name (any case).
func startTag(b []byte, name string) bool {
	n := len(name) + 1
	if len(b) <= n || b[0] != '<' || !bytes.EqualFold(b[1:n], []byte(name)) {
		return false
	}
	c := b[n]
	return isSpace(c) || c == '/' || c == '>'
}

// commentEnd follows the tokenizer's comment states from i, just after
// "<!--", and returns the index after the '>' that ends the comment.
func commentEnd(doc []byte, i int) (int, bool) {
	const (
		start = iota
		startDash
		text
		lt
		ltBang
		ltBangDash
		ltBangDashDash
		endDash
		end
		endBang
	)
	state := start
	for i < len(doc) {
		c := doc[i]
		switch state {
		case start:
			switch c {
			case '-':
				state = startDash
			case '>':
				return i + 1, true
			default:
				state = text
				continue
			}
		case startDash:
			switch c {
			case '-':
				state = end
			case '>':
				return i + 1, true
			default:
				state = text
				continue
			}
		case text:
			switch c {
			case '<':
				state = lt
			case '-':
				state = endDash
			}
		case lt:
			switch c {
			case '!':
				state = ltBang
			case '<':
			default:
				state = text
				continue
			}
		case ltBang:
			if c != '-' {
				state = text
				continue
			}
			state = ltBangDash
		case ltBangDash:
			if c != '-' {
				state = endDash
				continue
			}
			state = ltBangDashDash
		case ltBangDashDash:
			state = end
			continue
		case endDash:
			if c != '-' {
				state = text
				continue
			}
			state = end
		case end:
			switch c {
			case '>':
				return i + 1, true
			case '!':
				state = endBang
			case '-':
			default:
				state = text
				continue
			}
		case endBang:
			switch c {
			case '-':
				state = endDash
			case '>':
				return i + 1, true
			default:
				state = text
				continue
			}
		}
		i++
	}
	return 0, false
}

// tagEnd follows the tokenizer's tag states from i, just after a start
// tag's name, and returns the index after the '>' that ends the tag: a
// '>' inside a quoted attribute value does not.
func tagEnd(doc []byte, i int) (int, bool) {
	const (
		tagName = iota
		beforeName
		name
		afterName
		beforeValue
		doubleQuoted
		singleQuoted
		unquoted
		afterQuoted
		selfClosing
	)
	state := tagName
	for i < len(doc) {
		c := doc[i]
		switch state {
		case tagName:
			switch {
			case isSpace(c):
				state = beforeName
			case c == '/':
				state = selfClosing
			case c == '>':
				return i + 1, true
			}
		case beforeName:
			switch {
			case isSpace(c):
			case c == '/' || c == '>':
				state = afterName
				continue
			default: // '=' too starts a name, in error
				state = name
			}
		case name:
			switch {
			case isSpace(c) || c == '/' || c == '>':
				state = afterName
				continue
			case c == '=':
				state = beforeValue
			}
		case afterName:
			switch {
			case isSpace(c):
			case c == '/':
				state = selfClosing
			case c == '=':
				state = beforeValue
			case c == '>':
				return i + 1, true
			default:
				state = name
				continue
			}
		case beforeValue:
			switch {
			case isSpace(c):
			case c == '"':
				state = doubleQuoted
			case c == '\'':
				state = singleQuoted
			case c == '>':
				return i + 1, true
			default:
				state = unquoted
				continue
			}
		case doubleQuoted:
			if c == '"' {
				state = afterQuoted
			}
		case singleQuoted:
			if c == '\'' {
				state = afterQuoted
			}
		case unquoted:
			switch {
			case isSpace(c):
				state = beforeName
			case c == '>':
				return i + 1, true
			}
		case afterQuoted:
			switch {
			case isSpace(c):
				state = beforeName
			case c == '/':
				state = selfClosing
			case c == '>':
				return i + 1, true
			default:
				state = beforeName
				continue
			}
		case selfClosing:
			if c == '>' {
				return i + 1, true
			}
			state = beforeName
			continue
		}
		i++
	}
	return 0, false
}
