package profile

import (
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// Every rule names its field: Parse's details.field is the JSON path and
// the issue code says what kind of rule it is.
func TestParseNamesTheField(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("a", n) }
	art := func(id, path string) map[string]any {
		return map[string]any{"id": id, "path": path, "kind": "markdown", "target": "messageBody"}
	}
	for _, c := range []struct {
		name  string
		edits []any
		field string
		code  string
	}{
		{"schemaVersion missing", []any{"schemaVersion", del}, "schemaVersion", IssueRequired},
		{"schemaVersion 2", []any{"schemaVersion", 2}, "schemaVersion", IssueValue},
		{"schemaVersion string", []any{"schemaVersion", "1"}, "schemaVersion", IssueValue},
		{"kind missing", []any{"kind", del}, "kind", IssueRequired},
		{"kind other", []any{"kind", "sillytavern.preset"}, "kind", IssueValue},
		{"id missing", []any{"id", del}, "id", IssueRequired},
		{"id upper", []any{"id", "Writer"}, "id", IssueValue},
		{"id slash", []any{"id", "a/b"}, "id", IssueValue},
		{"id too long", []any{"id", long(129)}, "id", IssueValue},
		{"id number", []any{"id", 7}, "id", IssueType},
		{"displayName missing", []any{"displayName", del}, "displayName", IssueRequired},
		{"displayName blank", []any{"displayName", "  "}, "displayName", IssueRequired},
		{"displayName long", []any{"displayName", long(201)}, "displayName", IssueRange},
		{"displayName newline", []any{"displayName", "a\nb"}, "displayName", IssueValue},
		{"description long", []any{"description", long(2001)}, "description", IssueRange},
		{"description NUL", []any{"description", "a\x00b"}, "description", IssueValue},
		{"preset array", []any{"preset", []any{}}, "preset", IssueType},
		{"preset.mode", []any{"preset.mode", "latest"}, "preset.mode", IssueValue},
		{"preset.ref without ref mode", []any{"preset.ref", map[string]any{"apiId": "openai", "name": "x"}}, "preset.ref", IssuePolicy},
		{"preset.ref missing", []any{"preset.mode", "ref"}, "preset.ref", IssueRequired},
		{"preset.ref.apiId missing", []any{"preset.mode", "ref", "preset.ref", map[string]any{"name": "x"}}, "preset.ref.apiId", IssueRequired},
		{"preset.ref.name type", []any{"preset.mode", "ref", "preset.ref", map[string]any{"apiId": "a", "name": 1}}, "preset.ref.name", IssueType},
		{"preset.required", []any{"preset.required", "yes"}, "preset.required", IssueType},
		{"preset unknown", []any{"preset.presetId", "x"}, "preset.presetId", IssueUnknown},
		{"model.mode", []any{"model.mode", "connectionRef"}, "model.mode", IssueValue},
		{"model.connectionId missing", []any{"model.mode", "connection"}, "model.connectionId", IssueRequired},
		{"model.connectionId snapshot", []any{"model.connectionId", "c1"}, "model.connectionId", IssuePolicy},
		{"model.model snapshot", []any{"model.model", "gpt"}, "model.model", IssuePolicy},
		{"model.model empty", []any{"model.mode", "connection", "model.connectionId", "c1", "model.model", ""}, "model.model", IssueRequired},
		{"model.temperature high", []any{"model.temperature", 2.5}, "model.temperature", IssueRange},
		{"model.temperature string", []any{"model.temperature", "hot"}, "model.temperature", IssueType},
		{"model.maxTokens zero", []any{"model.maxTokens", 0}, "model.maxTokens", IssueRange},
		{"model.maxTokens fraction", []any{"model.maxTokens", 1.5}, "model.maxTokens", IssueType},
		{"run.presentation", []any{"run.presentation", "sideways"}, "run.presentation", IssueValue},
		{"run.modelRetry type", []any{"run.modelRetry", []any{3}}, "run.modelRetry", IssueType},
		{"run.modelRetry.maxRetries high", []any{"run.modelRetry.maxRetries", 11}, "run.modelRetry.maxRetries", IssueRange},
		{"run.modelRetry.maxRetries negative", []any{"run.modelRetry.maxRetries", -1}, "run.modelRetry.maxRetries", IssueRange},
		{"run.modelRetry.intervalMs", []any{"run.modelRetry.intervalMs", 600001}, "run.modelRetry.intervalMs", IssueRange},
		{"run.modelRetry.intervalMs huge", []any{"run.modelRetry.intervalMs", 1e30}, "run.modelRetry.intervalMs", IssueType},
		{"run.stream", []any{"run.stream", true}, "run.stream", IssueUnknown},
		{"instructions.agentSystemPrompt", []any{"instructions.agentSystemPrompt", 5}, "instructions.agentSystemPrompt", IssueType},
		{"tools.allow type", []any{"tools.allow", "all"}, "tools.allow", IssueType},
		{"tools.allow item type", []any{"tools.allow", []any{1}}, "tools.allow[0]", IssueType},
		{"tools.allow unknown", []any{"tools.allow", []string{"workspace.commit", "workspace.finish", "shell.exec"}}, "tools.allow[2]", IssueTool},
		{"tools.allow too many", []any{"tools.allow", make([]string, 65)}, "tools.allow", IssueRange},
		{"tools.deny unknown", []any{"tools.deny", []string{"net.fetch"}}, "tools.deny[0]", IssueTool},
		{"tools.requireApproval unknown", []any{"tools.requireApproval", []string{"x"}}, "tools.requireApproval[0]", IssueTool},
		{"tools.requireApproval denied", []any{"tools.deny", []string{"chat.search"}, "tools.requireApproval", []string{"workspace.commit", "chat_search"}}, "tools.requireApproval[1]", IssuePolicy},
		{"tools.requireApproval not allowed", []any{"tools.allow", []string{"workspace.commit", "workspace.finish"}, "tools.requireApproval", []string{"skill.read"}}, "tools.requireApproval[0]", IssuePolicy},
		{"tools.maxRounds zero", []any{"tools.maxRounds", 0}, "tools.maxRounds", IssueRange},
		{"tools.maxRounds 501", []any{"tools.maxRounds", 501}, "tools.maxRounds", IssueRange},
		{"tools.maxRounds string", []any{"tools.maxRounds", "80"}, "tools.maxRounds", IssueType},
		{"tools.maxRounds float", []any{"tools.maxRounds", 80.5}, "tools.maxRounds", IssueType},
		{"tools.maxCallsPerRun", []any{"tools.maxCallsPerRun", 2001}, "tools.maxCallsPerRun", IssueRange},
		{"tools unknown", []any{"tools.maxRound", 3}, "tools.maxRound", IssueUnknown},
		{"tools.allow foreground without commit", []any{"tools.allow", []string{"workspace.write_file", "workspace.finish"}}, "tools.allow", IssuePolicy},
		{"tools.deny foreground finish", []any{"tools.deny", []string{"workspace_finish"}}, "tools.deny", IssuePolicy},
		{"skills.visible", []any{"skills.visible", []string{"Bad*"}}, "skills.visible[0]", IssueValue},
		{"skills.deny empty", []any{"skills.deny", []string{""}}, "skills.deny[0]", IssueValue},
		{"skills.deny bracket", []any{"skills.deny", []string{"[a-z]"}}, "skills.deny[0]", IssueValue},
		{"skills.maxReadCharsPerCall", []any{"skills.maxReadCharsPerCall", 0}, "skills.maxReadCharsPerCall", IssueRange},
		{"skills.maxReadCharsPerRun", []any{"skills.maxReadCharsPerRun", 10_000_001}, "skills.maxReadCharsPerRun", IssueRange},
		{"skills per call over per run", []any{"skills.maxReadCharsPerCall", 90_000}, "skills.maxReadCharsPerCall", IssuePolicy},
		{"workspace.visibleRoots", []any{"workspace.visibleRoots", []string{"output", "home"}}, "workspace.visibleRoots[1]", IssueValue},
		{"workspace.writableRoots", []any{"workspace.writableRoots", []string{"tmp"}}, "workspace.writableRoots[0]", IssueValue},
		{"workspace.writableRoots not visible", []any{"workspace.visibleRoots", []string{"output", "plan"}, "workspace.writableRoots", []string{"output", "persist"}}, "workspace.writableRoots[1]", IssuePolicy},
		{"plan.mode", []any{"plan.mode", "tree"}, "plan.mode", IssueValue},
		{"plan unknown", []any{"plan.beta", 1}, "plan.beta", IssueUnknown},
		{"output.artifacts empty", []any{"output.artifacts", []any{}}, "output.artifacts", IssueRequired},
		{"output.artifacts type", []any{"output.artifacts", map[string]any{}}, "output.artifacts", IssueType},
		{"output.artifacts too many", []any{"output.artifacts", make([]any, 17)}, "output.artifacts", IssueRange},
		{"output.artifacts item type", []any{"output.artifacts.0", "output/main.md"}, "output.artifacts[0]", IssueType},
		{"artifact id missing", []any{"output.artifacts.0.id", del}, "output.artifacts[0].id", IssueRequired},
		{"artifact id bad", []any{"output.artifacts.0.id", "Main!"}, "output.artifacts[0].id", IssueValue},
		{"artifact path missing", []any{"output.artifacts.0.path", del}, "output.artifacts[0].path", IssueRequired},
		{"artifact path dotdot", []any{"output.artifacts.0.path", "output/../x.md"}, "output.artifacts[0].path", IssueValue},
		{"artifact path leading dotdot", []any{"output.artifacts.0.path", "../x.md"}, "output.artifacts[0].path", IssueValue},
		{"artifact path absolute", []any{"output.artifacts.0.path", "/output/main.md"}, "output.artifacts[0].path", IssueValue},
		{"artifact path backslash", []any{"output.artifacts.0.path", `output\main.md`}, "output.artifacts[0].path", IssueValue},
		{"artifact path drive", []any{"output.artifacts.0.path", `C:/output/main.md`}, "output.artifacts[0].path", IssueValue},
		{"artifact path root only", []any{"output.artifacts.0.path", "output"}, "output.artifacts[0].path", IssueValue},
		{"artifact path dot", []any{"output.artifacts.0.path", "output/./main.md"}, "output.artifacts[0].path", IssueValue},
		{"artifact path double slash", []any{"output.artifacts.0.path", "output//main.md"}, "output.artifacts[0].path", IssueValue},
		{"artifact path NUL", []any{"output.artifacts.0.path", "output/a\x00.md"}, "output.artifacts[0].path", IssueValue},
		{"artifact path other root", []any{"output.artifacts.0.path", "home/main.md"}, "output.artifacts[0].path", IssueValue},
		{"artifact path not writable", []any{"workspace.writableRoots", []string{"output"}, "output.artifacts.0.path", "scratch/main.md"}, "output.artifacts[0].path", IssuePolicy},
		{"artifact kind", []any{"output.artifacts.0.kind", "pdf"}, "output.artifacts[0].kind", IssueValue},
		{"artifact target", []any{"output.artifacts.0.target", "sidebar"}, "output.artifacts[0].target", IssueValue},
		{"artifact required", []any{"output.artifacts.0.required", "yes"}, "output.artifacts[0].required", IssueType},
		{"artifact assemblyOrder", []any{"output.artifacts.0.assemblyOrder", -1}, "output.artifacts[0].assemblyOrder", IssueRange},
		{"artifact unknown", []any{"output.artifacts.0.mime", "text/markdown"}, "output.artifacts[0].mime", IssueUnknown},
		{"artifact duplicate id", []any{"output.artifacts", []any{art("main", "output/a.md"), art("main", "output/b.md")}}, "output.artifacts[1].id", IssueDuplicate},
		{"artifact duplicate path", []any{"output.artifacts", []any{art("a", "output/a.md"), art("b", "output/a.md")}}, "output.artifacts[1].path", IssueDuplicate},
		{"two message bodies", []any{"output.artifacts", []any{art("a", "output/a.md"), art("b", "output/b.md")}}, "output.artifacts[1].target", IssueDuplicate},
		{"output unknown", []any{"output.main", "x"}, "output.main", IssueUnknown},
		{"unknown nested object", []any{"tools.a.b", 1}, `tools.a`, IssueUnknown},
		// null is what JSON makes of NaN: refused like 2.5 or 0, not read
		// as "left out" and given the default.
		{"tools.maxRounds null", []any{"tools.maxRounds", nil}, "tools.maxRounds", IssueType},
		{"tools.maxCallsPerRun null", []any{"tools.maxCallsPerRun", nil}, "tools.maxCallsPerRun", IssueType},
		{"run.modelRetry.maxRetries null", []any{"run.modelRetry.maxRetries", nil}, "run.modelRetry.maxRetries", IssueType},
		{"run.modelRetry.intervalMs null", []any{"run.modelRetry.intervalMs", nil}, "run.modelRetry.intervalMs", IssueType},
		{"run.modelRetry null", []any{"run.modelRetry", nil}, "run.modelRetry", IssueType},
		{"skills.maxReadCharsPerCall null", []any{"skills.maxReadCharsPerCall", nil}, "skills.maxReadCharsPerCall", IssueType},
		{"skills.maxReadCharsPerRun null", []any{"skills.maxReadCharsPerRun", nil}, "skills.maxReadCharsPerRun", IssueType},
		{"model.temperature null", []any{"model.temperature", nil}, "model.temperature", IssueType},
		{"model.maxTokens null", []any{"model.maxTokens", nil}, "model.maxTokens", IssueType},
		{"assemblyOrder null", []any{"output.artifacts.0.assemblyOrder", nil}, "output.artifacts[0].assemblyOrder", IssueType},
		{"tools null", []any{"tools", nil}, "tools", IssueType},
		{"workspace null", []any{"workspace", nil}, "workspace", IssueType},
		{"skills null", []any{"skills", nil}, "skills", IssueType},
		{"run null", []any{"run", nil}, "run", IssueType},
		{"model null", []any{"model", nil}, "model", IssueType},
		{"preset null", []any{"preset", nil}, "preset", IssueType},
		{"instructions null", []any{"instructions", nil}, "instructions", IssueType},
		{"plan null", []any{"plan", nil}, "plan", IssueType},
		{"output null", []any{"output", nil}, "output", IssueType},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(doc(t, c.edits...))
			e := apperr.As(err)
			if e == nil || e.Code != CodeInvalidProfile {
				t.Fatalf("err = %v, want %s", err, CodeInvalidProfile)
			}
			if e.Details["field"] != c.field || e.Details["issue"] != c.code {
				t.Errorf("field %v issue %v (%s), want %s %s", e.Details["field"], e.Details["issue"], e.Message, c.field, c.code)
			}
			if !strings.Contains(e.Message, c.field) {
				t.Errorf("message %q does not name %s", e.Message, c.field)
			}
		})
	}
}

// Problems with the document as a whole have the field "".
func TestParseRejectsBadDocuments(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	for _, c := range []struct {
		name string
		raw  string
		code string
	}{
		{"empty", "", IssueSyntax},
		{"not json", "{nope", IssueSyntax},
		{"trailing", `{"id":"a"} {}`, IssueSyntax},
		{"array", `[1]`, IssueSyntax},
		{"null", `null`, IssueSyntax},
		{"string", `"profile"`, IssueSyntax},
		{"too large", `{"x":"` + strings.Repeat("a", MaxBytes) + `"}`, IssueTooLarge},
		{"too deep", `{"x":` + deep + `}`, IssueTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			issues := Diagnose([]byte(c.raw))
			if len(issues) != 1 || issues[0].Field != "" || issues[0].Code != c.code {
				t.Fatalf("issues = %+v, want one %s at the root", issues, c.code)
			}
			if _, err := Parse([]byte(c.raw)); field(err) != "" || apperr.CodeOf(err) != CodeInvalidProfile {
				t.Errorf("Parse: %v", err)
			}
		})
	}
	// Exactly MaxDepth deep, counting the profile object, is fine.
	ok := doc(t, "x", nil)
	okDeep := strings.Replace(string(ok), `"x":null`, `"x":`+strings.Repeat(`[`, MaxDepth-1)+strings.Repeat(`]`, MaxDepth-1), 1)
	if _, err := Parse([]byte(okDeep)); err != nil {
		t.Errorf("depth %d refused: %v", MaxDepth, err)
	}
	// Brackets inside strings do not count.
	if _, err := Parse(doc(t, "x", strings.Repeat("[{", 100))); err != nil {
		t.Errorf("brackets in a string counted: %v", err)
	}
}

// Accepted variants: connection mode, ref presets, background runs that
// need no commit, null as "left out".
func TestParseAccepts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		edits []any
		check func(p Profile) bool
	}{
		{"connection", []any{"model", map[string]any{"mode": "connection", "connectionId": "c1", "model": "gpt-x", "temperature": 0.7, "maxTokens": 4096}},
			func(p Profile) bool {
				return p.Model.ConnectionID == "c1" && p.Model.Model == "gpt-x" && *p.Model.Temperature == 0.7 && *p.Model.MaxTokens == 4096
			}},
		{"preset ref", []any{"preset", map[string]any{"mode": "ref", "ref": map[string]any{"apiId": "openai", "name": "Default"}, "required": true}},
			func(p Profile) bool {
				return p.Preset.Ref != nil && p.Preset.Ref.Name == "Default" && p.Preset.Required
			}},
		{"background without commit", []any{"run.presentation", "background", "tools.allow", []string{"chat.search"}},
			func(p Profile) bool { return p.Run.Presentation == Background && !p.Allowed("workspace.commit") }},
		{"nulls", []any{"description", nil, "tools.deny", nil},
			func(p Profile) bool { return p.Description == "" && len(p.Tools.Deny) == 0 }},
		{"numbers and sections left out", []any{"tools", map[string]any{"allow": Tools()}, "run", map[string]any{}, "skills", del, "plan", del},
			func(p Profile) bool {
				d := DefaultWriter()
				return p.Tools.MaxRounds == d.Tools.MaxRounds && p.Run.ModelRetry == d.Run.ModelRetry && p.Skills.MaxReadCharsPerCall == d.Skills.MaxReadCharsPerCall
			}},
		{"empty prompt is none", []any{"instructions.agentSystemPrompt", ""},
			func(p Profile) bool { return p.Instructions.AgentSystemPrompt == nil }},
		{"hearth kind", []any{"kind", Kind}, func(p Profile) bool { return p.Kind == Kind }},
		{"deep artifact path", []any{"output.artifacts.0.path", "persist/notes/chapter 1/draft.md"},
			func(p Profile) bool {
				a, ok := p.MessageBody()
				return ok && a.Path == "persist/notes/chapter 1/draft.md"
			}},
		{"duplicates dropped", []any{"skills.visible", []string{"*", "*"}, "workspace", map[string]any{"visibleRoots": []string{"output", "output"}}},
			func(p Profile) bool { return len(p.Skills.Visible) == 1 && len(p.Workspace.VisibleRoots) == 1 }},
		{"reserved id parses", []any{"id", DefaultID}, func(p Profile) bool { return p.ID == DefaultID }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse(doc(t, c.edits...))
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(p) {
				t.Errorf("parsed to %s", p.JSON())
			}
		})
	}
}

// A key that could forge a path is quoted in the field.
func TestOddKeysAreQuoted(t *testing.T) {
	t.Parallel()
	raw := strings.Replace(string(doc(t)), `"maxRounds"`, `"a.b[0]":1,"maxRounds"`, 1)
	issues := Diagnose([]byte(raw))
	if len(issues) != 1 || issues[0].Field != `tools."a.b[0]"` {
		t.Errorf("issues = %+v", issues)
	}
}
