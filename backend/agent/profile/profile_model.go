// Package profile holds agent profiles: the JSON documents (AGENT.md §9,
// the seed's AgentProfileDefinition) that say which model an agent run
// talks to, which tools and skills it may use, where in its workspace it
// may write and which file becomes the chat reply.
//
// Parse and Diagnose share one validator that collects every issue with
// the JSON path of its field, so a form can point at all of them at once;
// Parse reports the first as an agent.invalid_profile error. Store keeps
// user profiles in SQLite next to the built-in "default-writer", which is
// never stored and cannot be changed or deleted.
package profile

import (
	"encoding/json"
	"slices"
)

// Error codes of this package (HOST-ABI §0: stable, dotted).
const (
	// CodeInvalidProfile: the profile JSON breaks a rule; details.field
	// names the field as a JSON path ("tools.maxRounds").
	CodeInvalidProfile = "agent.invalid_profile"
	// CodeNotFound: no profile has the id.
	CodeNotFound = "agent.profile_not_found"
	// CodeBuiltin: the built-in profile cannot be deleted.
	CodeBuiltin = "agent.profile_builtin"
)

// Document identity and bounds.
const (
	// Kind is the kind every profile is saved with.
	Kind = "hearth.agentProfile"
	// SeedKind is the seed's kind; it is accepted and normalised to Kind
	// so profiles written for TauriTavern import unchanged.
	SeedKind = "tauritavern.agentProfile"
	// SchemaVersion is the only schema version this package reads.
	SchemaVersion = 1
	// DefaultID is the built-in profile's id.
	DefaultID = "default-writer"
	// MaxBytes bounds a profile document, as sent and as stored.
	MaxBytes = 256 << 10
	// MaxDepth bounds how deeply a profile document nests objects and
	// arrays, so unknown keys kept for round-trip cannot hold a bomb.
	MaxDepth = 32
)

// Workspace roots (AGENT.md §6): the folders of a run's workspace.
const (
	RootOutput    = "output"
	RootScratch   = "scratch"
	RootPlan      = "plan"
	RootSummaries = "summaries"
	RootPersist   = "persist"
)

// Roots returns the workspace roots a profile may name, in the seed's
// order.
func Roots() []string {
	return []string{RootOutput, RootScratch, RootPlan, RootSummaries, RootPersist}
}

// Profile is one agent profile, normalised: kind is always Kind, tool names
// are dotted, lists hold no duplicates and every optional section has its
// default (see DefaultWriter for the values).
//
// Top-level keys this schema does not know (a newer seed's "context" or
// "delegation", an editor's "$schema") are kept in Extra and written back
// by MarshalJSON, so a profile survives a round-trip through Hearth
// unchanged. Unknown keys inside known sections are refused instead: there
// they are far more likely a typo ("maxRound") than data.
type Profile struct {
	SchemaVersion int          `json:"schemaVersion"`
	Kind          string       `json:"kind"`
	ID            string       `json:"id"`
	DisplayName   string       `json:"displayName"`
	Description   string       `json:"description,omitempty"`
	Preset        Preset       `json:"preset"`
	Model         Model        `json:"model"`
	Run           Run          `json:"run"`
	Instructions  Instructions `json:"instructions"`
	Tools         ToolPolicy   `json:"tools"`
	Skills        SkillPolicy  `json:"skills"`
	Workspace     Workspace    `json:"workspace"`
	Plan          Plan         `json:"plan"`
	Output        Output       `json:"output"`
	// Extra holds unknown top-level keys, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// Preset modes. They are recorded, not applied: like the seed, a run uses
// the prompt snapshot it was started with.
const (
	PresetCurrentPromptSnapshot = "currentPromptSnapshot"
	PresetByRef                 = "ref"
	PresetNone                  = "none"
)

// Preset records which generation preset the profile was written for.
type Preset struct {
	Mode string `json:"mode"`
	// Ref names the preset when Mode is "ref" (the seed's {apiId, name}).
	Ref      *PresetRef `json:"ref,omitempty"`
	Required bool       `json:"required,omitempty"`
}

// PresetRef is the seed's reference to a named preset of an API.
type PresetRef struct {
	APIID string `json:"apiId"`
	Name  string `json:"name"`
}

// Model modes.
const (
	// ModelCurrentPromptSnapshot sends the run's requests to the
	// connection and model of the prompt snapshot it started from.
	ModelCurrentPromptSnapshot = "currentPromptSnapshot"
	// ModelConnection sends them to a saved connection (Hearth's addition).
	ModelConnection = "connection"
)

// Model says where a run's model requests go.
type Model struct {
	Mode string `json:"mode"`
	// ConnectionID and Model are set only in "connection" mode; an empty
	// Model means the connection's own model.
	ConnectionID string `json:"connectionId,omitempty"`
	Model        string `json:"model,omitempty"`
	// Temperature and MaxTokens override the snapshot's or connection's
	// values when set.
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   *int     `json:"maxTokens,omitempty"`
}

// Run presentations.
const (
	Foreground = "foreground"
	Background = "background"
)

// Run holds how a run shows and how it retries its model requests.
type Run struct {
	Presentation string `json:"presentation"`
	ModelRetry   Retry  `json:"modelRetry"`
}

// Retry bounds the retries of a model request on 429, 5xx and timeouts.
type Retry struct {
	MaxRetries int `json:"maxRetries"`
	IntervalMs int `json:"intervalMs"`
}

// Instructions holds the profile's own system prompt; nil means the
// built-in one.
type Instructions struct {
	AgentSystemPrompt *string `json:"agentSystemPrompt"`
}

// ToolPolicy says which tools the model sees and how often it may call them.
type ToolPolicy struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
	// RequireApproval lists allowed tools whose calls wait for the user.
	RequireApproval []string `json:"requireApproval"`
	MaxRounds       int      `json:"maxRounds"`
	MaxCallsPerRun  int      `json:"maxCallsPerRun"`
}

// SkillPolicy says which skills the model sees (globs with "*" over skill
// names) and how much of them it may read.
type SkillPolicy struct {
	Visible             []string `json:"visible"`
	Deny                []string `json:"deny"`
	MaxReadCharsPerCall int      `json:"maxReadCharsPerCall"`
	MaxReadCharsPerRun  int      `json:"maxReadCharsPerRun"`
}

// Workspace says which roots the model may list and read, and which of
// those it may write.
type Workspace struct {
	VisibleRoots  []string `json:"visibleRoots"`
	WritableRoots []string `json:"writableRoots"`
}

// PlanNone is the only plan mode (as in the seed).
const PlanNone = "none"

// Plan is the planning policy.
type Plan struct {
	Mode string `json:"mode"`
}

// Output lists the files a run produces.
type Output struct {
	Artifacts []Artifact `json:"artifacts"`
}

// TargetMessageBody is the artifact target that becomes the chat reply.
const TargetMessageBody = "messageBody"

// Artifact is one output file of a run.
type Artifact struct {
	ID            string `json:"id"`
	Path          string `json:"path"`
	Kind          string `json:"kind"`
	Target        string `json:"target"`
	Required      bool   `json:"required"`
	AssemblyOrder int    `json:"assemblyOrder"`
}

// DefaultWriter returns the built-in profile: the seed's example profile,
// named "Default writer". Its values are also the defaults Parse fills in
// for omitted fields: model and preset "currentPromptSnapshot", foreground,
// 3 retries 3000 ms apart, all 13 tools, 80 rounds and 80 calls, every skill
// visible with 20,000 chars per read and 80,000 per run, all five roots
// visible and writable, plan "none", and one required markdown artifact
// "main" at output/main.md that becomes the message body.
func DefaultWriter() Profile {
	return Profile{
		SchemaVersion: SchemaVersion,
		Kind:          Kind,
		ID:            DefaultID,
		DisplayName:   "Default writer",
		Preset:        Preset{Mode: PresetCurrentPromptSnapshot},
		Model:         Model{Mode: ModelCurrentPromptSnapshot},
		Run:           Run{Presentation: Foreground, ModelRetry: Retry{MaxRetries: 3, IntervalMs: 3000}},
		Tools: ToolPolicy{
			Allow: Tools(), Deny: []string{}, RequireApproval: []string{},
			MaxRounds: 80, MaxCallsPerRun: 80,
		},
		Skills: SkillPolicy{
			Visible: []string{"*"}, Deny: []string{},
			MaxReadCharsPerCall: 20_000, MaxReadCharsPerRun: 80_000,
		},
		Workspace: Workspace{VisibleRoots: Roots(), WritableRoots: Roots()},
		Plan:      Plan{Mode: PlanNone},
		Output:    Output{Artifacts: []Artifact{defaultArtifact()}},
	}
}

func defaultArtifact() Artifact {
	return Artifact{
		ID: "main", Path: "output/main.md", Kind: "markdown",
		Target: TargetMessageBody, Required: true, AssemblyOrder: 0,
	}
}

// Allowed reports whether the model may call tool (either name form): it
// is allowed and not denied.
func (p Profile) Allowed(tool string) bool {
	name, ok := Canonical(tool)
	return ok && slices.Contains(p.Tools.Allow, name) && !slices.Contains(p.Tools.Deny, name)
}

// NeedsApproval reports whether a call of tool waits for the user. A tool
// that is not allowed needs no approval: it is refused outright.
func (p Profile) NeedsApproval(tool string) bool {
	name, ok := Canonical(tool)
	return ok && p.Allowed(name) && slices.Contains(p.Tools.RequireApproval, name)
}

// MessageBody returns the artifact that becomes the chat reply. A parsed
// profile always has exactly one.
func (p Profile) MessageBody() (Artifact, bool) {
	for _, a := range p.Output.Artifacts {
		if a.Target == TargetMessageBody {
			return a, true
		}
	}
	return Artifact{}, false
}
