package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAPIDocNamesEveryMethod fails for every routed method docs/API.md
// does not mention (see undocumented for what counts), so a method does
// not reach scripts without a line in their reference.
func TestAPIDocNamesEveryMethod(t *testing.T) {
	t.Parallel()
	methods, err := routed()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "API.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range undocumented(string(doc), methods) {
		t.Errorf("docs/API.md does not mention %s: add a line on what it does, in its namespace's section", m)
	}
}

// TestUndocumentedReadsSections holds undocumented to API.md's ways of
// naming a method, and to sections' bounds.
func TestUndocumentedReadsSections(t *testing.T) {
	t.Parallel()
	doc := strings.Join([]string{
		"Intro: `host.capabilities` answers.",
		"## Chats — `h.api.chat`",
		"```js",
		"await h.api.chat.get(chatId);",
		"# a shell comment, not a heading",
		"await h.api.chat.count(chatId);",
		"```",
		"`rename(chatId, name)` renames; `delete` deletes.",
		"### Sub",
		"`tree` is in a subsection.",
		"## State — `h.api.state`",
		"`list` is in another section.",
		"### Profiles — `h.api.agent.profiles`",
		"`load(id)` loads.",
	}, "\n")
	methods := []string{"host.capabilities", "chat.get", "chat.count", "chat.rename", "chat.delete", "chat.tree",
		"chat.list", "chat.search", "state.list", "agent.profiles.load", "agent.profiles.save", "presets.get", "agent.cancel"}
	got := undocumented(doc, methods)
	want := []string{"chat.list", "chat.search", "agent.profiles.save", "presets.get", "agent.cancel"}
	if !slices.Equal(got, want) {
		t.Fatalf("undocumented = %v, want %v", got, want)
	}
}

// undocumented lists the methods ("ns.method", "ns.sub.method") doc does
// not mention. API.md has a section per namespace, headed
// "… — `h.api.ns`" (and "`h.api.agent.profiles`" for a nested one), whose
// prose names methods in code (`get`, `get(chatId)`) and whose examples
// call them (`p.get(`, whatever the object is called). A method is
// mentioned when its section does either, or when the doc names it in
// full in code anywhere (`state.beginUpdate`, for methods the page calls
// on its own and scripts may call over HTTP).
func undocumented(doc string, methods []string) []string {
	sections := docSections(doc)
	var out []string
	for _, full := range methods {
		if strings.Contains(doc, "`"+full+"`") || strings.Contains(doc, "`"+full+"(") {
			continue
		}
		dot := strings.LastIndexByte(full, '.')
		ns, name := full[:dot], full[dot+1:]
		text, ok := sections[ns]
		if !ok || !(strings.Contains(text, "`"+name+"`") || strings.Contains(text, "`"+name+"(") || strings.Contains(text, "."+name+"(")) {
			out = append(out, full)
		}
	}
	return out
}

// docSections maps each namespace whose heading names `h.api.<ns>` to
// the text under that heading, up to the next heading of its level or
// above. Lines in fenced code blocks are never headings.
func docSections(doc string) map[string]string {
	type open struct {
		ns    string
		level int
		lines []string
	}
	out := map[string]string{}
	var stack []*open
	fenced := false
	for line := range strings.SplitSeq(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if level := headingLevel(line); level > 0 && !fenced {
			for len(stack) > 0 && stack[len(stack)-1].level >= level {
				done := stack[len(stack)-1]
				out[done.ns] = strings.Join(done.lines, "\n")
				stack = stack[:len(stack)-1]
			}
			if _, rest, ok := strings.Cut(line, "`h.api."); ok {
				if ns, _, ok := strings.Cut(rest, "`"); ok {
					stack = append(stack, &open{ns: ns, level: level})
				}
			}
		}
		for _, s := range stack {
			s.lines = append(s.lines, line)
		}
	}
	for _, s := range stack {
		out[s.ns] = strings.Join(s.lines, "\n")
	}
	return out
}

// headingLevel is the number of #s opening a Markdown heading, 0 for any
// other line.
func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n >= len(line) || line[n] != ' ' {
		return 0
	}
	return n
}
