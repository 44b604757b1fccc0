package profile

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// seedExample is the seed's "minimal structure example", verbatim.
const seedExample = `{
  "schemaVersion": 1,
  "kind": "tauritavern.agentProfile",
  "id": "my-writer",
  "displayName": "My Writer",
  "preset": {"mode": "currentPromptSnapshot"},
  "model": {"mode": "currentPromptSnapshot"},
  "run": {"presentation": "foreground", "modelRetry": {"maxRetries": 3, "intervalMs": 3000}},
  "instructions": {"agentSystemPrompt": null},
  "tools": {
    "allow": ["chat.search", "chat.read_messages", "worldinfo.read_activated", "skill.list", "skill.search",
      "skill.read", "workspace.list_files", "workspace.search_files", "workspace.read_file",
      "workspace.write_file", "workspace.apply_patch", "workspace.commit", "workspace.finish"],
    "deny": [], "maxRounds": 80, "maxCallsPerRun": 80
  },
  "skills": {"visible": ["*"], "deny": [], "maxReadCharsPerCall": 20000, "maxReadCharsPerRun": 80000},
  "workspace": {
    "visibleRoots": ["output", "scratch", "plan", "summaries", "persist"],
    "writableRoots": ["output", "scratch", "plan", "summaries", "persist"]
  },
  "plan": {"mode": "none"},
  "output": {"artifacts": [{"id": "main", "path": "output/main.md", "kind": "markdown",
    "target": "messageBody", "required": true, "assemblyOrder": 0}]}
}`

// doc returns the seed example with edits applied: each edit is a path
// ("tools.maxRounds", "output.artifacts.0.path") and a value; the value
// del removes the key.
func doc(t testing.TB, edits ...any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(seedExample), &m); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(edits); i += 2 {
		set(t, m, edits[i].(string), edits[i+1])
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type deleted struct{}

var del = deleted{}

func set(t testing.TB, root map[string]any, path string, v any) {
	t.Helper()
	parts := strings.Split(path, ".")
	var cur any = root
	for i, p := range parts {
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if v == del {
					delete(c, p)
				} else {
					c[p] = v
				}
				return
			}
			if _, ok := c[p]; !ok {
				c[p] = map[string]any{}
			}
			cur = c[p]
		case []any:
			n, err := strconv.Atoi(p)
			if err != nil || n >= len(c) {
				t.Fatalf("bad path %s", path)
			}
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		default:
			t.Fatalf("bad path %s", path)
		}
	}
}

func field(err error) string {
	if e := apperr.As(err); e != nil {
		f, _ := e.Details["field"].(string)
		return f
	}
	return "<no apperr>"
}

func TestSeedExampleIsTheDefaultWriter(t *testing.T) {
	t.Parallel()
	p, err := Parse([]byte(seedExample))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultWriter()
	want.ID, want.DisplayName = "my-writer", "My Writer"
	if !reflect.DeepEqual(p, want) {
		t.Errorf("seed example parsed to\n%s\nwant\n%s", p.JSON(), want.JSON())
	}
	if p.Kind != Kind {
		t.Errorf("kind %q, want it normalised to %q", p.Kind, Kind)
	}
}

func TestDefaultWriterRoundTrips(t *testing.T) {
	t.Parallel()
	d := DefaultWriter()
	p, err := Parse(d.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, d) {
		t.Errorf("round-trip changed the default writer:\n%s\n%s", p.JSON(), d.JSON())
	}
	if !strings.Contains(string(d.JSON()), `"agentSystemPrompt":null`) {
		t.Errorf("agentSystemPrompt should be written as null like the seed: %s", d.JSON())
	}
}

// Omitted optional sections and fields take the default writer's values.
func TestDefaultsFillOmittedSections(t *testing.T) {
	t.Parallel()
	minimal := `{"schemaVersion":1,"kind":"hearth.agentProfile","id":"min","displayName":"Min"}`
	p, err := Parse([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultWriter()
	want.ID, want.DisplayName = "min", "Min"
	if !reflect.DeepEqual(p, want) {
		t.Errorf("minimal profile parsed to\n%s\nwant\n%s", p.JSON(), want.JSON())
	}

	partial := doc(t, "tools", map[string]any{"maxRounds": 5}, "workspace", map[string]any{"visibleRoots": []string{"output", "plan"}},
		"output.artifacts.0", map[string]any{"id": "main", "path": "output/reply.md"}, "run", map[string]any{"presentation": "background"},
		"description", nil, "instructions", map[string]any{"agentSystemPrompt": "Be brief."})
	p, err = Parse(partial)
	if err != nil {
		t.Fatal(err)
	}
	if p.Tools.MaxRounds != 5 || p.Tools.MaxCallsPerRun != 80 || len(p.Tools.Allow) != 13 {
		t.Errorf("tools = %+v", p.Tools)
	}
	if !reflect.DeepEqual(p.Workspace.WritableRoots, []string{"output", "plan"}) {
		t.Errorf("writableRoots left out should be the visible roots, got %v", p.Workspace.WritableRoots)
	}
	a := p.Output.Artifacts[0]
	if a.Kind != "markdown" || a.Target != TargetMessageBody || !a.Required || a.AssemblyOrder != 0 {
		t.Errorf("artifact defaults = %+v", a)
	}
	if p.Run.ModelRetry != (Retry{MaxRetries: 3, IntervalMs: 3000}) {
		t.Errorf("modelRetry default = %+v", p.Run.ModelRetry)
	}
	if p.Instructions.AgentSystemPrompt == nil || *p.Instructions.AgentSystemPrompt != "Be brief." {
		t.Errorf("agentSystemPrompt = %v", p.Instructions.AgentSystemPrompt)
	}
}

func TestToolNamesNormalise(t *testing.T) {
	t.Parallel()
	p, err := Parse(doc(t, "tools.allow", []string{"workspace_commit", "workspace.finish", "workspace_finish", "chat_search", "skill.read"},
		"tools.requireApproval", []string{"chat_search"}, "tools.deny", []string{"skill_read"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"workspace.commit", "workspace.finish", "chat.search", "skill.read"}; !reflect.DeepEqual(p.Tools.Allow, want) {
		t.Errorf("allow = %v, want %v", p.Tools.Allow, want)
	}
	if !reflect.DeepEqual(p.Tools.RequireApproval, []string{"chat.search"}) || !reflect.DeepEqual(p.Tools.Deny, []string{"skill.read"}) {
		t.Errorf("requireApproval = %v, deny = %v", p.Tools.RequireApproval, p.Tools.Deny)
	}
	for _, c := range []struct {
		tool             string
		allowed, approve bool
	}{
		{"chat.search", true, true},
		{"chat_search", true, true},
		{"workspace.finish", true, false},
		{"skill.read", false, false}, // denied
		{"skill_list", false, false}, // not in allow
		{"rm -rf", false, false},     // no tool
		{"workspace.Finish", false, false},
	} {
		if got := p.Allowed(c.tool); got != c.allowed {
			t.Errorf("Allowed(%q) = %v", c.tool, got)
		}
		if got := p.NeedsApproval(c.tool); got != c.approve {
			t.Errorf("NeedsApproval(%q) = %v", c.tool, got)
		}
	}
}

func TestAliasAndCanonical(t *testing.T) {
	t.Parallel()
	tools := Tools()
	if len(tools) != 13 {
		t.Fatalf("%d tools", len(tools))
	}
	tools[0] = "mutated"
	if Tools()[0] != ToolChatSearch {
		t.Error("Tools shares its slice")
	}
	for _, name := range Tools() {
		alias := Alias(name)
		if strings.Contains(alias, ".") {
			t.Errorf("Alias(%q) = %q", name, alias)
		}
		for _, in := range []string{name, alias} {
			if got, ok := Canonical(in); !ok || got != name {
				t.Errorf("Canonical(%q) = %q, %v", in, got, ok)
			}
		}
	}
	if Alias("workspace.read_file") != "workspace_read_file" {
		t.Error("Alias of workspace.read_file")
	}
	for _, bad := range []string{"", "workspace", "workspace.read", "Workspace.read_file", "workspace-read_file", "builtin:workspace.read_file"} {
		if _, ok := Canonical(bad); ok {
			t.Errorf("Canonical(%q) accepted", bad)
		}
	}
}

func TestUnknownTopLevelKeysRoundTrip(t *testing.T) {
	t.Parallel()
	raw := doc(t, "context", map[string]any{"initialChatHistoryMessages": -1, "nested": []any{1, "two", nil}},
		"$schema", "https://example.invalid/profile.json", "x-editor", 7)
	p, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Extra) != 3 {
		t.Fatalf("extra = %v", p.Extra)
	}
	out := p.JSON()
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if m["x-editor"] != float64(7) || m["$schema"] != "https://example.invalid/profile.json" {
		t.Errorf("extras lost: %s", out)
	}
	if ctx, _ := json.Marshal(m["context"]); string(ctx) != `{"initialChatHistoryMessages":-1,"nested":[1,"two",null]}` {
		t.Errorf("context = %s", ctx)
	}
	again, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(again.JSON()) != string(out) {
		t.Errorf("second round-trip differs:\n%s\n%s", out, again.JSON())
	}
	// A Profile inside a request decodes with the same rules.
	var wrapped struct{ Profile Profile }
	if err := json.Unmarshal([]byte(`{"Profile":`+string(raw)+`}`), &wrapped); err != nil {
		t.Fatal(err)
	}
	if string(wrapped.Profile.JSON()) != string(out) {
		t.Errorf("UnmarshalJSON differs from Parse")
	}
	if err := json.Unmarshal([]byte(`{"Profile":{"id":"x"}}`), &wrapped); apperr.CodeOf(err) != CodeInvalidProfile {
		t.Errorf("UnmarshalJSON of a broken profile: %v", err)
	}
}

func TestDiagnoseCollectsEveryIssue(t *testing.T) {
	t.Parallel()
	raw := doc(t, "id", "Bad ID", "tools.maxRounds", 0, "tools.allow", []string{"workspace.commit", "workspace.finish", "shell.exec"},
		"workspace.writableRoots", []string{"output", "home"}, "output.artifacts.0.path", "../escape.md", "skills.extra", true)
	issues := Diagnose(raw)
	want := []Issue{
		{Field: "id", Code: IssueValue},
		{Field: "tools.allow[2]", Code: IssueTool},
		{Field: "tools.maxRounds", Code: IssueRange},
		{Field: "skills.extra", Code: IssueUnknown},
		{Field: "workspace.writableRoots[1]", Code: IssueValue},
		{Field: "output.artifacts[0].path", Code: IssueValue},
	}
	if len(issues) != len(want) {
		t.Fatalf("got %d issues, want %d: %+v", len(issues), len(want), issues)
	}
	for i, w := range want {
		if issues[i].Field != w.Field || issues[i].Code != w.Code || issues[i].Message == "" {
			t.Errorf("issue %d = %+v, want field %s code %s", i, issues[i], w.Field, w.Code)
		}
	}
	_, err := Parse(raw)
	e := apperr.As(err)
	if e == nil || e.Code != CodeInvalidProfile || e.Details["field"] != "id" {
		t.Fatalf("Parse error = %v", err)
	}
	if !strings.Contains(e.Message, "id: ") || !strings.Contains(e.Message, "and 5 more issues") {
		t.Errorf("message %q", e.Message)
	}
	if got, _ := e.Details["issues"].([]Issue); len(got) != len(want) {
		t.Errorf("details.issues = %v", e.Details["issues"])
	}
	if len(Diagnose([]byte(seedExample))) != 0 {
		t.Error("the seed example has issues")
	}
}
