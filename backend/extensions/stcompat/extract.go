package stcompat

import (
	"maps"
	"regexp"
	"strings"
)

// importUse is one import a file makes: what it wrote, how, and the
// names it takes (empty for a side-effect import, export *, or a
// dynamic import whose result it does not destructure).
type importUse struct {
	spec    string
	dynamic bool
	// names are the exports it names: "default" for a default import,
	// each name before "as"; a namespace import's member reads
	// (ns.name) are in members.
	names     []string
	namespace string // the binding of import * as ns, if any
	members   []string
	// locals maps each name an import { a as b } binds here (b) to the
	// export it names (a), so a renamed getContext or event_types is
	// followed as itself (bundlers rename every import).
	locals map[string]string
}

// fileFacts is what one file uses, before its imports are resolved.
type fileFacts struct {
	imports  []importUse
	context  []string
	events   []string // event_types / tavern_events / eventTypes members
	listens  []string // event names given as strings to eventSource.on and its like
	emits    []string // event names the file emits itself
	reached  []string // element ids its selectors and getElementById reach
	own      []string // element ids it creates
	apiPaths []string
}

var (
	// ownIDPattern finds id="x" / id='x' / id=x in HTML, in a package's
	// .html files and in its JavaScript's strings and templates.
	ownIDPattern = regexp.MustCompile(`(?i)(?:^|[\s<"'])id\s*=\s*(?:"([^"<>]+)"|'([^'<>]+)'|([A-Za-z_][\w-]*))`)
	// selectorIDPattern finds the #ids of a CSS selector.
	selectorIDPattern = regexp.MustCompile(`#(-?[A-Za-z_\x80-\x{10FFFF}][\w\-\x80-\x{10FFFF}]*)`)
)

// selectorTakers are the calls whose first argument, a string, is a CSS
// selector: jQuery's $ and its traversals, and the DOM's query methods.
var selectorTakers = map[string]bool{
	"$": true, "jQuery": true, "querySelector": true, "querySelectorAll": true, "closest": true, "find": true,
	"appendTo": true, "prependTo": true, "insertAfter": true, "insertBefore": true, "replaceAll": true,
	"parents": true, "children": true, "siblings": true, "has": true, "is": true, "not": true,
}

// listeners are eventSource's methods that take an event name to hear;
// the Slash-Runner style global functions are here too.
var listeners = map[string]bool{
	"on": true, "once": true, "makeFirst": true, "makeLast": true, "removeListener": true, "off": true,
	"eventOn": true, "eventOnce": true, "eventMakeFirst": true, "eventMakeLast": true, "eventRemoveListener": true,
}

// eventTables are the names SillyTavern's event_types object goes by:
// the module export, getContext().eventTypes, and JS-Slash-Runner's
// tavern_events.
var eventTables = map[string]bool{"event_types": true, "eventTypes": true, "tavern_events": true}

// maxPatternBack bounds how far back a destructuring pattern is looked
// for from its "=", so a file of unmatched braces stays linear.
const maxPatternBack = 256

// extract reads what a JavaScript file uses from its tokens.
//
// The heuristics, all on tokens (so nothing in a comment counts, and a
// string counts only where a string is used):
//   - imports: import … from '…', import '…', export … from '…', and
//     import('…') with a literal (a template without ${…} too); a
//     namespace import's ns.name and ns['name'] reads; const { a } =
//     await import('…').
//   - getContext() members: getContext().x and getContext()['x'] (with
//     any prefix: SillyTavern.getContext(), window.SillyTavern…; and
//     under the name an import { getContext as x } gives it);
//     const { a, b: c } = [await] [X.]getContext(); and a name given
//     getContext()'s value (const/let/var or a plain assignment) read as
//     name.x, name['x'] or destructured. A name is followed through the
//     whole file, whatever its scope, and never if it is one character
//     long (a minifier's name means something else a line later).
//     getContext with arguments (a canvas's) is not SillyTavern's.
//   - events: event_types.X (event_types under an import's other name
//     too), eventTypes.X, tavern_events.X (X in capitals) and ['X']; a string given to eventSource.on/once/makeFirst/
//     makeLast/removeListener/off or eventOn and its like is an event's
//     wire name, unless the package emits that name itself (its own event).
//   - element ids: #ids in a string or template given to $, jQuery,
//     querySelector(All) or a jQuery traversal (appendTo, find, closest,
//     …), the string given to getElementById; a #id running into a ${…}
//     is made at run time and not counted. An id the package creates —
//     id="x" in any string or template, .id = 'x', attr/prop/
//     setAttribute('id', 'x'), an id: 'x' key — is its own.
//   - server paths: a string or template starting /api/ (after a leading
//     ${…}, as in `${origin}/api/…`).
func extract(toks []token) fileFacts {
	var f fileFacts
	ns := map[string]int{} // namespace binding → index in f.imports
	ctxVars := map[string]bool{}
	// First the imports, for the names they bind: getContext, event_types
	// and eventSource under other names are followed as themselves.
	contextFns, tables, sources := map[string]bool{"getContext": true}, maps.Clone(eventTables), map[string]bool{"eventSource": true}
	for i, t := range toks {
		if t.kind != tIdent || t.text != "import" && t.text != "export" || i > 0 && toks[i-1].is(tPunct, ".") {
			continue
		}
		u, ok := readImport(toks, i)
		if !ok {
			continue
		}
		if u.namespace != "" {
			ns[u.namespace] = len(f.imports)
		}
		for local, name := range u.locals {
			switch name {
			case "getContext":
				contextFns[local] = true
			case "event_types":
				tables[local] = true
			case "eventSource":
				sources[local] = true
			}
		}
		f.imports = append(f.imports, u)
	}
	for i, t := range toks {
		switch t.kind {
		case tString, tTemplate:
			f.own = append(f.own, ownIDs(t.text)...)
			if p, ok := apiPath(t.text); ok {
				f.apiPaths = append(f.apiPaths, p)
			}
			continue
		case tIdent:
		default:
			continue
		}
		afterDot := i > 0 && toks[i-1].is(tPunct, ".")
		onSource := afterDot && i > 1 && toks[i-2].kind == tIdent && sources[toks[i-2].text]
		switch {
		case contextFns[t.text]:
			f.context = append(f.context, contextUse(toks, i, ctxVars)...)
		case tables[t.text]:
			if name, ok := memberAt(toks, i+1); ok && isEventName(name) {
				f.events = append(f.events, name)
			}
		case listeners[t.text] && (onSource || strings.HasPrefix(t.text, "event")):
			if s, ok := firstStringArg(toks, i); ok {
				f.listens = append(f.listens, s)
			}
		case t.text == "emit" && onSource || t.text == "eventEmit":
			if s, ok := firstStringArg(toks, i); ok {
				f.emits = append(f.emits, s)
			}
		case t.text == "getElementById":
			if s, ok := firstStringArg(toks, i); ok && !strings.Contains(s, hole) {
				f.reached = append(f.reached, s)
			}
		case selectorTakers[t.text]:
			if s, ok := firstStringArg(toks, i); ok {
				if strings.HasPrefix(strings.TrimSpace(s), "<") { // $('<div id="x">') makes, not finds
					break
				}
				f.reached = append(f.reached, selectorIDs(s)...)
			}
		case t.text == "id":
			f.own = append(f.own, ownIDAt(toks, i, afterDot)...)
		case (t.text == "attr" || t.text == "prop" || t.text == "setAttribute") && afterDot:
			if i+5 < len(toks) && toks[i+1].is(tPunct, "(") && toks[i+2].is(tString, "id") && toks[i+3].is(tPunct, ",") && isText(toks[i+4]) {
				f.own = append(f.own, toks[i+4].text)
			}
		}
	}
	// Second pass: what is read through the names found above.
	for i, t := range toks {
		if t.kind != tIdent || i > 0 && toks[i-1].is(tPunct, ".") {
			continue
		}
		if k, ok := ns[t.text]; ok {
			if name, ok := memberAt(toks, i+1); ok {
				f.imports[k].members = append(f.imports[k].members, name)
			}
		}
		if ctxVars[t.text] {
			if name, ok := memberAt(toks, i+1); ok {
				f.context = append(f.context, name)
			} else if names, ok := destructuredFrom(toks, i); ok {
				f.context = append(f.context, names...)
			}
		}
	}
	return f
}

func isText(t token) bool {
	return t.kind == tString || t.kind == tTemplate && !strings.Contains(t.text, hole)
}

// isEventName: SillyTavern's event_types keys are capitals and digits.
func isEventName(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// memberAt reads .name or ['name'] at toks[i].
func memberAt(toks []token, i int) (string, bool) {
	if i+1 < len(toks) && toks[i].is(tPunct, ".") && toks[i+1].kind == tIdent {
		return toks[i+1].text, true
	}
	if i+2 < len(toks) && toks[i].is(tPunct, "[") && isText(toks[i+1]) && toks[i+2].is(tPunct, "]") {
		return toks[i+1].text, true
	}
	return "", false
}

// firstStringArg reads a call's first argument at toks[i] (the callee's
// name) when it is a string or template.
func firstStringArg(toks []token, i int) (string, bool) {
	if i+2 < len(toks) && toks[i+1].is(tPunct, "(") && (toks[i+2].kind == tString || toks[i+2].kind == tTemplate) {
		return toks[i+2].text, true
	}
	return "", false
}

// selectorIDs are the ids a selector names; one running into a ${…}
// (#mes_${id}) is made at run time and left out.
func selectorIDs(sel string) []string {
	var out []string
	for _, m := range selectorIDPattern.FindAllStringSubmatchIndex(sel, -1) {
		if m[1] < len(sel) && strings.HasPrefix(sel[m[1]:], hole) {
			continue
		}
		out = append(out, sel[m[2]:m[3]])
	}
	return out
}

// ownIDs are the ids HTML in s gives its elements; one with a ${…} in
// it is made at run time and left out.
func ownIDs(s string) []string {
	if !strings.Contains(s, "id") && !strings.Contains(s, "ID") && !strings.Contains(s, "Id") && !strings.Contains(s, "iD") {
		return nil
	}
	var out []string
	for _, m := range ownIDPattern.FindAllStringSubmatch(s, -1) {
		id := m[1] + m[2] + m[3]
		if id != "" && !strings.Contains(id, hole) {
			out = append(out, strings.TrimSpace(id))
		}
	}
	return out
}

// ownIDAt reads the id an element is given at toks[i] ("id"): el.id =
// 'x', or an { id: 'x' } key (as $('<div>', { id: 'x' }) takes).
func ownIDAt(toks []token, i int, afterDot bool) []string {
	if i+2 >= len(toks) || !isText(toks[i+2]) {
		return nil
	}
	if afterDot && toks[i+1].is(tPunct, "=") || !afterDot && toks[i+1].is(tPunct, ":") {
		return []string{toks[i+2].text}
	}
	return nil
}

// apiPath reads a SillyTavern server path from a string: /api/… up to
// its query, with each ${…} shown as ${…}.
func apiPath(s string) (string, bool) {
	s = strings.TrimPrefix(s, hole)
	if !strings.HasPrefix(s, "/api/") {
		return "", false
	}
	if end := strings.IndexAny(s, "?# \t\n\"'"); end >= 0 {
		s = s[:end]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.ToValidUTF8(strings.ReplaceAll(s, hole, "${…}"), ""), true
}

// readImport reads an import or export … from statement, or a dynamic
// import, at toks[i].
func readImport(toks []token, i int) (importUse, bool) {
	var u importUse
	at := func(j int) token {
		if j < len(toks) {
			return toks[j]
		}
		return token{kind: tPunct}
	}
	j := i + 1
	if toks[i].text == "import" {
		switch next := at(j); {
		case next.is(tPunct, "("):
			if s := at(j + 1); isText(s) && (at(j+2).is(tPunct, ")") || at(j+2).is(tPunct, ",")) {
				u.spec, u.dynamic = s.text, true
				u.names, _ = destructuredFrom(toks, i)
				return u, true
			}
			return u, false
		case next.is(tPunct, "."): // import.meta
			return u, false
		case next.kind == tString:
			u.spec = next.text
			return u, true
		}
		if t := at(j); t.kind == tIdent && t.text != "from" || t.is(tIdent, "from") && at(j+1).is(tIdent, "from") {
			u.names = append(u.names, "default")
			j++
			if at(j).is(tPunct, ",") {
				j++
			}
		}
	}
	switch {
	case at(j).is(tPunct, "*"):
		j++
		if at(j).is(tIdent, "as") && at(j+1).kind == tIdent {
			u.namespace = at(j + 1).text
			j += 2
		}
	case at(j).is(tPunct, "{"):
		names, locals, end, ok := readSpecifiers(toks, j+1)
		if !ok {
			return u, false
		}
		u.names, u.locals, j = append(u.names, names...), locals, end
	}
	if !at(j).is(tIdent, "from") || at(j+1).kind != tString {
		return u, false
	}
	u.spec = at(j + 1).text
	if toks[i].text == "export" {
		u.namespace, u.locals = "", nil // export … from binds nothing in this file
	}
	return u, true
}

// readSpecifiers reads "a, b as c, 'd' as e }" from toks[j]: the names
// before each "as", the local name each binds, and the index after the
// brace.
func readSpecifiers(toks []token, j int) ([]string, map[string]string, int, bool) {
	var names []string
	locals := map[string]string{}
	for j < len(toks) {
		if toks[j].is(tPunct, "}") {
			return names, locals, j + 1, true
		}
		if toks[j].kind != tIdent && toks[j].kind != tString {
			return nil, nil, 0, false
		}
		name := toks[j].text
		names = append(names, name)
		locals[name] = name
		j++
		if j+1 < len(toks) && toks[j].is(tIdent, "as") && (toks[j+1].kind == tIdent || toks[j+1].kind == tString) {
			delete(locals, name)
			locals[toks[j+1].text] = name
			j += 2
		}
		if j < len(toks) && toks[j].is(tPunct, ",") {
			j++
		} else if j >= len(toks) || !toks[j].is(tPunct, "}") {
			return nil, nil, 0, false
		}
	}
	return nil, nil, 0, false
}

// contextUse reads a getContext() call at toks[i]: the member read from
// it, the names destructured from it, or the name it is assigned to
// (added to vars, followed later).
func contextUse(toks []token, i int, vars map[string]bool) []string {
	if i+2 >= len(toks) || !toks[i+1].is(tPunct, "(") || !toks[i+2].is(tPunct, ")") {
		return nil
	}
	if i > 0 && toks[i-1].is(tIdent, "function") || i+3 < len(toks) && toks[i+3].is(tPunct, "{") {
		return nil // its definition, not a call
	}
	if name, ok := memberAt(toks, i+3); ok {
		return []string{name}
	}
	if i+3 < len(toks) && (toks[i+3].is(tPunct, "(") || toks[i+3].is(tPunct, "[") || toks[i+3].is(tPunct, ".")) {
		return nil
	}
	// Walk back over the callee's object (SillyTavern., window.SillyTavern.).
	k := i
	for k >= 2 && toks[k-1].is(tPunct, ".") && toks[k-2].kind == tIdent {
		k -= 2
	}
	if names, ok := destructuredFrom(toks, k); ok {
		return names
	}
	if k >= 1 && toks[k-1].is(tIdent, "await") {
		k--
	}
	if k >= 2 && toks[k-1].is(tPunct, "=") && toks[k-2].kind == tIdent && len(toks[k-2].text) > 1 &&
		!(k >= 3 && toks[k-3].is(tPunct, ".")) {
		vars[toks[k-2].text] = true
	}
	return nil
}

// destructuredFrom reads the names of a destructuring pattern assigned
// the expression starting at toks[k]: { a, b: c, d = 1, ...rest } =
// [await] expr gives a, b, d.
func destructuredFrom(toks []token, k int) ([]string, bool) {
	if k >= 1 && toks[k-1].is(tIdent, "await") {
		k--
	}
	if k < 2 || !toks[k-1].is(tPunct, "=") || !toks[k-2].is(tPunct, "}") {
		return nil, false
	}
	end := k - 2
	depth, open := 0, -1
	for j := end; j >= 0 && j >= end-maxPatternBack; j-- {
		switch {
		case toks[j].is(tPunct, "}"):
			depth++
		case toks[j].is(tPunct, "{"):
			depth--
		}
		if depth == 0 {
			open = j
			break
		}
	}
	if open < 0 {
		return nil, false
	}
	var names []string
	expectKey, depth := true, 0
	for j := open + 1; j < end; j++ {
		t := toks[j]
		switch {
		case t.kind == tPunct && (t.text == "{" || t.text == "[" || t.text == "("):
			depth++
		case t.kind == tPunct && (t.text == "}" || t.text == "]" || t.text == ")"):
			depth--
		case depth == 0 && t.is(tPunct, ","):
			expectKey = true
		case depth == 0 && expectKey && t.is(tPunct, "..."):
			expectKey = false
		case depth == 0 && expectKey && (t.kind == tIdent || t.kind == tString):
			names = append(names, t.text)
			expectKey = false
		}
	}
	return names, true
}
