package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"hearth/backend/apperr"
)

// Limits on a profile's fields.
const (
	maxName        = 200
	maxDescription = 2000
	maxPrompt      = 100_000 // runes of agentSystemPrompt
	maxListItems   = 64
	maxArtifacts   = 16
	maxPathBytes   = 512
)

var (
	idPattern       = regexp.MustCompile(`^[a-z0-9_-]{1,128}$`)
	artifactPattern = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)
	globPattern     = regexp.MustCompile(`^[a-z0-9._*-]{1,128}$`)
)

// Parse reads and validates a profile document and returns it normalised:
// a "tauritavern.agentProfile" becomes a "hearth.agentProfile", underscore
// tool names become dotted, repeated list items are dropped and omitted
// fields take DefaultWriter's values. A broken document is an
// agent.invalid_profile error whose message and details.field are the
// first issue Diagnose would report; details.issues holds all of them.
// Null in a number or a section is an issue, not a default: Parse reads
// documents coming in (profiles.save).
func Parse(raw []byte) (Profile, error) {
	p, issues := check(raw, true)
	if len(issues) > 0 {
		return Profile{}, invalidError(issues)
	}
	return p, nil
}

// Diagnose returns every issue of a profile document, in document order;
// none means Parse accepts it.
func Diagnose(raw []byte) []Issue {
	_, issues := check(raw, true)
	return issues
}

// invalidError shapes issues into the agent.invalid_profile error.
func invalidError(issues []Issue) *apperr.Error {
	first := issues[0]
	msg := first.Message
	if first.Field != "" {
		msg = first.Field + ": " + msg
	}
	if n := len(issues) - 1; n == 1 {
		msg += " (and 1 more issue)"
	} else if n > 1 {
		msg += fmt.Sprintf(" (and %d more issues)", n)
	}
	return apperr.New(CodeInvalidProfile, "invalid agent profile: %s", msg).WithDetails(map[string]any{
		"field": first.Field, "issue": first.Code, "issues": issues,
	})
}

// check decodes and validates raw; strict refuses null in numbers and
// sections (see checker).
func check(raw []byte, strict bool) (Profile, []Issue) {
	c := &checker{strict: strict}
	raw = bytes.TrimSpace(raw)
	if !c.bounds(raw) {
		return Profile{}, c.issues
	}
	var top map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &top) != nil {
		c.add("", IssueSyntax, "profile must be a JSON object")
		return Profile{}, c.issues
	}
	p := DefaultWriter()
	p.ID, p.DisplayName = "", ""
	c.header(top, &p)
	c.preset(top["preset"], &p.Preset)
	c.model(top["model"], &p.Model)
	runOK := c.run(top["run"], &p.Run)
	c.instructions(top["instructions"], &p.Instructions)
	toolsOK := c.tools(top["tools"], &p.Tools)
	c.skills(top["skills"], &p.Skills)
	wsOK := c.workspace(top["workspace"], &p.Workspace)
	c.plan(top["plan"], &p.Plan)
	outOK := c.output(top["output"], &p.Output)
	if toolsOK && runOK {
		c.toolRules(p)
	}
	if outOK && wsOK {
		c.artifactRoots(p)
	}
	for k, v := range top {
		if !slices.Contains(knownKeys, k) {
			if p.Extra == nil {
				p.Extra = map[string]json.RawMessage{}
			}
			p.Extra[k] = v
		}
	}
	return p, c.issues
}

// header checks schemaVersion, kind, id, displayName and description.
func (c *checker) header(top map[string]json.RawMessage, p *Profile) {
	if v := top["schemaVersion"]; absent(v) {
		c.add("schemaVersion", IssueRequired, "is required and must be %d", SchemaVersion)
	} else if string(v) != "1" {
		c.add("schemaVersion", IssueValue, "must be %d (the only schema version Hearth reads), got %s", SchemaVersion, short(string(v)))
	}
	if v := top["kind"]; absent(v) {
		c.add("kind", IssueRequired, "is required and must be %q", Kind)
	} else if _, ok := c.oneOf("kind", v, Kind, SeedKind); ok {
		p.Kind = Kind
	}
	if v := top["id"]; absent(v) {
		c.add("id", IssueRequired, "is required: 1 to 128 characters of a-z, 0-9, _ and -")
	} else if s, ok := c.str("id", v); ok {
		if idPattern.MatchString(s) {
			p.ID = s
		} else {
			c.add("id", IssueValue, "is %q; it must be 1 to 128 characters of a-z, 0-9, _ and -", short(s))
		}
	}
	if v := top["displayName"]; absent(v) {
		c.add("displayName", IssueRequired, "is required: the name shown in lists, at most %d characters", maxName)
	} else if s, ok := c.text("displayName", v, maxName, false); ok {
		p.DisplayName = s
	}
	if v := top["description"]; !absent(v) && string(v) != `""` {
		if s, ok := c.text("description", v, maxDescription, true); ok {
			p.Description = s
		}
	}
}

func (c *checker) preset(raw json.RawMessage, out *Preset) {
	if !c.given("preset", raw) {
		return
	}
	m, ok := c.object("preset", raw, "mode", "ref", "required")
	if !ok {
		return
	}
	modeOK := true
	if v := m["mode"]; !absent(v) {
		var s string
		if s, modeOK = c.oneOf("preset.mode", v, PresetCurrentPromptSnapshot, PresetByRef, PresetNone); modeOK {
			out.Mode = s
		}
	}
	if v := m["required"]; !absent(v) {
		out.Required, _ = c.boolean("preset.required", v)
	}
	ref := m["ref"]
	switch {
	case !modeOK:
	case out.Mode == PresetByRef && absent(ref):
		c.add("preset.ref", IssueRequired, "is required when preset.mode is %q: {apiId, name}", PresetByRef)
	case out.Mode != PresetByRef && !absent(ref):
		c.add("preset.ref", IssuePolicy, "is allowed only when preset.mode is %q", PresetByRef)
	case !absent(ref):
		if r, ok := c.object("preset.ref", ref, "apiId", "name"); ok {
			out.Ref = &PresetRef{}
			out.Ref.APIID, _ = c.required(r, "preset.ref", "apiId", maxName)
			out.Ref.Name, _ = c.required(r, "preset.ref", "name", maxName)
		}
	}
}

// required decodes a required single-line text field of section m.
func (c *checker) required(m map[string]json.RawMessage, section, key string, maxRunes int) (string, bool) {
	field := join(section, key)
	if absent(m[key]) {
		c.add(field, IssueRequired, "is required")
		return "", false
	}
	return c.text(field, m[key], maxRunes, false)
}

func (c *checker) model(raw json.RawMessage, out *Model) {
	if !c.given("model", raw) {
		return
	}
	m, ok := c.object("model", raw, "mode", "connectionId", "model", "temperature", "maxTokens")
	if !ok {
		return
	}
	modeOK := true
	if v := m["mode"]; !absent(v) {
		var s string
		if s, modeOK = c.oneOf("model.mode", v, ModelCurrentPromptSnapshot, ModelConnection); modeOK {
			out.Mode = s
		}
	}
	for _, key := range []string{"connectionId", "model"} {
		v := m[key]
		switch {
		case !modeOK:
		case out.Mode == ModelConnection && key == "connectionId" && absent(v):
			c.add("model.connectionId", IssueRequired, "is required when model.mode is %q: the id of a saved connection", ModelConnection)
		case out.Mode != ModelConnection && !absent(v):
			c.add(join("model", key), IssuePolicy, "is allowed only when model.mode is %q", ModelConnection)
		case !absent(v):
			s, _ := c.text(join("model", key), v, maxName, false)
			if key == "model" {
				out.Model = s
			} else {
				out.ConnectionID = s
			}
		}
	}
	if v := m["temperature"]; c.given("model.temperature", v) {
		if f, ok := c.number("model.temperature", v, 0, 2); ok {
			out.Temperature = &f
		}
	}
	if v := m["maxTokens"]; c.given("model.maxTokens", v) {
		if i, ok := c.integer("model.maxTokens", v, 1, 1_000_000); ok {
			out.MaxTokens = &i
		}
	}
}

func (c *checker) run(raw json.RawMessage, out *Run) bool {
	if !c.given("run", raw) {
		return true
	}
	m, ok := c.object("run", raw, "presentation", "modelRetry")
	if !ok {
		return false
	}
	n := len(c.issues)
	if v := m["presentation"]; !absent(v) {
		if s, ok := c.oneOf("run.presentation", v, Foreground, Background); ok {
			out.Presentation = s
		}
	}
	if v := m["modelRetry"]; c.given("run.modelRetry", v) {
		if r, ok := c.object("run.modelRetry", v, "maxRetries", "intervalMs"); ok {
			if v := r["maxRetries"]; c.given("run.modelRetry.maxRetries", v) {
				out.ModelRetry.MaxRetries, _ = c.integer("run.modelRetry.maxRetries", v, 0, 10)
			}
			if v := r["intervalMs"]; c.given("run.modelRetry.intervalMs", v) {
				out.ModelRetry.IntervalMs, _ = c.integer("run.modelRetry.intervalMs", v, 0, 600_000)
			}
		}
	}
	return len(c.issues) == n
}

func (c *checker) instructions(raw json.RawMessage, out *Instructions) {
	if !c.given("instructions", raw) {
		return
	}
	m, ok := c.object("instructions", raw, "agentSystemPrompt")
	if !ok {
		return
	}
	if v := m["agentSystemPrompt"]; !absent(v) && string(v) != `""` {
		if s, ok := c.text("instructions.agentSystemPrompt", v, maxPrompt, true); ok {
			out.AgentSystemPrompt = &s
		}
	}
}

func (c *checker) plan(raw json.RawMessage, out *Plan) {
	if !c.given("plan", raw) {
		return
	}
	if m, ok := c.object("plan", raw, "mode"); ok && !absent(m["mode"]) {
		c.oneOf("plan.mode", m["mode"], PlanNone)
	}
}

// workspacePath checks a workspace file path: relative, "/"-separated,
// no empty, "." or ".." segment, no backslash, colon or control character,
// and a file inside one of the roots. It returns the root.
func (c *checker) workspacePath(field, p string) (string, bool) {
	problem := ""
	segs := strings.Split(p, "/")
	switch {
	case p == "":
		problem = "must not be empty"
	case len(p) > maxPathBytes:
		problem = fmt.Sprintf("is longer than %d bytes", maxPathBytes)
	case strings.ContainsAny(p, "\\:"):
		problem = "must use / as separator and contain no \\ or : (no drive prefixes)"
	case strings.HasPrefix(p, "/"):
		problem = "must be relative to the workspace, like output/main.md"
	case strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		problem = "must not contain control characters"
	case slices.ContainsFunc(segs, func(s string) bool { return s == "" || s == "." || s == ".." }):
		problem = "must not contain empty, . or .. segments"
	case len(segs) < 2:
		problem = "must name a file inside a root, like output/main.md"
	case !slices.Contains(Roots(), segs[0]):
		problem = "must start with a workspace root: " + strings.Join(Roots(), ", ")
	}
	if problem != "" {
		c.add(field, IssueValue, "is %q; it %s", short(p), problem)
		return "", false
	}
	return segs[0], true
}
