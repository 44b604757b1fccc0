package profile

import (
	"encoding/json"
	"slices"
	"strings"
)

// toolName normalises a tool name to its dotted form.
func (c *checker) toolName(field, s string) (string, bool) {
	if name, ok := Canonical(s); ok {
		return name, true
	}
	c.add(field, IssueTool, "is %q, which is no tool; tools are %s", short(s), toolNamesForMessages)
	return "", false
}

// rootName checks a workspace root name.
func (c *checker) rootName(field, s string) (string, bool) {
	if slices.Contains(Roots(), s) {
		return s, true
	}
	c.add(field, IssueValue, "is %q; workspace roots are %s", short(s), strings.Join(Roots(), ", "))
	return "", false
}

// globName checks a skill name pattern.
func (c *checker) globName(field, s string) (string, bool) {
	if globPattern.MatchString(s) {
		return s, true
	}
	c.add(field, IssueValue, "is %q; it must be a skill name or a glob: 1 to 128 characters of a-z, 0-9, ., _, - and *", short(s))
	return "", false
}

// rawStrings re-reads a list that already passed names, for rules that
// report the item's own index.
func rawStrings(raw json.RawMessage) []string {
	var out []string
	_ = json.Unmarshal(raw, &out)
	return out
}

// tools reads the tools section; false means a tool list is broken, so
// the rules across lists are skipped.
func (c *checker) tools(raw json.RawMessage, out *ToolPolicy) bool {
	if !c.given("tools", raw) {
		return true
	}
	m, ok := c.object("tools", raw, "allow", "deny", "requireApproval", "maxRounds", "maxCallsPerRun")
	if !ok {
		return false
	}
	listsOK := true
	for _, l := range []struct {
		key string
		dst *[]string
	}{{"allow", &out.Allow}, {"deny", &out.Deny}, {"requireApproval", &out.RequireApproval}} {
		if v := m[l.key]; !absent(v) {
			names, ok := c.names(join("tools", l.key), v, maxListItems, c.toolName)
			if ok {
				*l.dst = names
			}
			listsOK = listsOK && ok
		}
	}
	if v := m["maxRounds"]; c.given("tools.maxRounds", v) {
		if n, ok := c.integer("tools.maxRounds", v, 1, 500); ok {
			out.MaxRounds = n
		}
	}
	if v := m["maxCallsPerRun"]; c.given("tools.maxCallsPerRun", v) {
		if n, ok := c.integer("tools.maxCallsPerRun", v, 1, 2000); ok {
			out.MaxCallsPerRun = n
		}
	}
	if listsOK && !absent(m["requireApproval"]) {
		p := Profile{Tools: *out}
		for i, s := range rawStrings(m["requireApproval"]) {
			if !p.Allowed(s) {
				c.add(index("tools.requireApproval", i), IssuePolicy,
					"is %q, which this profile does not allow (tools.allow minus tools.deny); only allowed tools can require approval", short(s))
			}
		}
	}
	return listsOK
}

// toolRules checks what the run needs from the tool lists: a foreground
// run can only deliver its reply and end through workspace.commit and
// workspace.finish.
func (c *checker) toolRules(p Profile) {
	if p.Run.Presentation != Foreground {
		return
	}
	for _, t := range []string{ToolWorkspaceCommit, ToolWorkspaceFinish} {
		switch {
		case !slices.Contains(p.Tools.Allow, t):
			c.add("tools.allow", IssuePolicy, "must include %s: a foreground run commits its reply and ends with it", t)
		case slices.Contains(p.Tools.Deny, t):
			c.add("tools.deny", IssuePolicy, "must not include %s: a foreground run commits its reply and ends with it", t)
		}
	}
}

func (c *checker) skills(raw json.RawMessage, out *SkillPolicy) {
	if !c.given("skills", raw) {
		return
	}
	m, ok := c.object("skills", raw, "visible", "deny", "maxReadCharsPerCall", "maxReadCharsPerRun")
	if !ok {
		return
	}
	if v := m["visible"]; !absent(v) {
		if names, ok := c.names("skills.visible", v, maxListItems, c.globName); ok {
			out.Visible = names
		}
	}
	if v := m["deny"]; !absent(v) {
		if names, ok := c.names("skills.deny", v, maxListItems, c.globName); ok {
			out.Deny = names
		}
	}
	perCallOK, perRunOK := true, true
	if v := m["maxReadCharsPerCall"]; c.given("skills.maxReadCharsPerCall", v) {
		out.MaxReadCharsPerCall, perCallOK = c.integer("skills.maxReadCharsPerCall", v, 1, 1_000_000)
	}
	if v := m["maxReadCharsPerRun"]; c.given("skills.maxReadCharsPerRun", v) {
		out.MaxReadCharsPerRun, perRunOK = c.integer("skills.maxReadCharsPerRun", v, 1, 10_000_000)
	}
	if perCallOK && perRunOK && out.MaxReadCharsPerCall > out.MaxReadCharsPerRun {
		c.add("skills.maxReadCharsPerCall", IssuePolicy, "is %d, more than skills.maxReadCharsPerRun (%d); it must not exceed it",
			out.MaxReadCharsPerCall, out.MaxReadCharsPerRun)
	}
}

// workspace reads the roots; writableRoots left out means the visible
// roots. False means a list is broken.
func (c *checker) workspace(raw json.RawMessage, out *Workspace) bool {
	if !c.given("workspace", raw) {
		return true
	}
	m, ok := c.object("workspace", raw, "visibleRoots", "writableRoots")
	if !ok {
		return false
	}
	good := true
	if v := m["visibleRoots"]; !absent(v) {
		var roots []string
		if roots, ok = c.names("workspace.visibleRoots", v, maxListItems, c.rootName); ok {
			out.VisibleRoots = roots
		}
		good = ok
	}
	out.WritableRoots = slices.Clone(out.VisibleRoots)
	if v := m["writableRoots"]; !absent(v) {
		roots, ok := c.names("workspace.writableRoots", v, maxListItems, c.rootName)
		if ok {
			out.WritableRoots = roots
		}
		good = good && ok
		if good {
			for i, r := range rawStrings(v) {
				if !slices.Contains(out.VisibleRoots, r) {
					c.add(index("workspace.writableRoots", i), IssuePolicy,
						"is %q, which workspace.visibleRoots does not include; a writable root must be visible", r)
				}
			}
		}
	}
	return good
}

// output reads the artifacts; false means one is broken, so their roots
// are not checked against the workspace.
func (c *checker) output(raw json.RawMessage, out *Output) bool {
	if !c.given("output", raw) {
		return true
	}
	m, ok := c.object("output", raw, "artifacts")
	if !ok {
		return false
	}
	v := m["artifacts"]
	if absent(v) {
		return true
	}
	items, ok := c.array("output.artifacts", v, maxArtifacts)
	if !ok {
		return false
	}
	n := len(c.issues)
	arts := make([]Artifact, 0, len(items))
	bodies := 0
	for i, item := range items {
		field := index("output.artifacts", i)
		a, ok := c.artifact(field, item)
		if !ok {
			continue
		}
		if slices.ContainsFunc(arts, func(b Artifact) bool { return b.ID == a.ID }) {
			c.add(field+".id", IssueDuplicate, "is %q, the id of an earlier artifact; ids must be unique", a.ID)
		}
		if slices.ContainsFunc(arts, func(b Artifact) bool { return b.Path == a.Path }) {
			c.add(field+".path", IssueDuplicate, "is %q, the path of an earlier artifact; paths must be unique", a.Path)
		}
		if a.Target == TargetMessageBody {
			bodies++
			if bodies > 1 {
				c.add(field+".target", IssueDuplicate, "is %q, like an earlier artifact; exactly one artifact becomes the message body", a.Target)
			}
		}
		arts = append(arts, a)
	}
	if len(c.issues) > n {
		return false
	}
	if bodies == 0 {
		c.add("output.artifacts", IssueRequired, "must contain exactly one artifact with target %q (the chat reply), like %s", TargetMessageBody, `{"id":"main","path":"output/main.md","kind":"markdown","target":"messageBody"}`)
		return false
	}
	out.Artifacts = arts
	return true
}

// artifact reads one artifact: id and path are required; kind defaults to
// "markdown", target to "messageBody", required to true and assemblyOrder
// to 0.
func (c *checker) artifact(field string, raw json.RawMessage) (Artifact, bool) {
	m, ok := c.object(field, raw, "id", "path", "kind", "target", "required", "assemblyOrder")
	if !ok {
		return Artifact{}, false
	}
	n := len(c.issues)
	a := defaultArtifact()
	a.ID, a.Path = "", ""
	if v := m["id"]; absent(v) {
		c.add(field+".id", IssueRequired, "is required: 1 to 64 characters of a-z, 0-9, _ and -")
	} else if s, ok := c.str(field+".id", v); ok {
		if artifactPattern.MatchString(s) {
			a.ID = s
		} else {
			c.add(field+".id", IssueValue, "is %q; it must be 1 to 64 characters of a-z, 0-9, _ and -", short(s))
		}
	}
	if v := m["path"]; absent(v) {
		c.add(field+".path", IssueRequired, "is required: a file in a writable root, like output/main.md")
	} else if s, ok := c.str(field+".path", v); ok {
		if _, ok := c.workspacePath(field+".path", s); ok {
			a.Path = s
		}
	}
	if v := m["kind"]; !absent(v) {
		a.Kind, _ = c.oneOf(field+".kind", v, "markdown", "text")
	}
	if v := m["target"]; !absent(v) {
		a.Target, _ = c.oneOf(field+".target", v, TargetMessageBody)
	}
	if v := m["required"]; !absent(v) {
		a.Required, _ = c.boolean(field+".required", v)
	}
	if v := m["assemblyOrder"]; c.given(field+".assemblyOrder", v) {
		a.AssemblyOrder, _ = c.integer(field+".assemblyOrder", v, 0, 1000)
	}
	return a, len(c.issues) == n
}

// artifactRoots checks that every artifact lies in a writable root.
func (c *checker) artifactRoots(p Profile) {
	for i, a := range p.Output.Artifacts {
		root, _, _ := strings.Cut(a.Path, "/")
		if !slices.Contains(p.Workspace.WritableRoots, root) {
			c.add(index("output.artifacts", i)+".path", IssuePolicy,
				"is %q, in root %q, which workspace.writableRoots does not include; writable roots are %s",
				a.Path, root, strings.Join(p.Workspace.WritableRoots, ", "))
		}
	}
}
