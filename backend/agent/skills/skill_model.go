// Package skills is the agent's skill library: folders
// <data>/skills/<name>/SKILL.md whose YAML front matter gives the skill's
// name and description and whose body is the instructions the model reads
// (AGENT.md §5, skill.list, skill.search and skill.read).
//
// Everything here is bounded: how many folders are read, how big a
// SKILL.md and its front matter may be, how much a run may read, and what
// Install copies. A broken skill folder is reported as a Problem next to
// the good ones, never an error for the whole library.
package skills

import (
	"path"
	"regexp"
	"sync"
)

// Error codes of this package (HOST-ABI §0: stable, dotted).
const (
	// CodeNotFound: no skill has the name.
	CodeNotFound = "skill.not_found"
	// CodeExists: Install found a skill of the same name and was not told
	// to replace it.
	CodeExists = "skill.exists"
	// CodeInvalid: a skill folder breaks a rule (no SKILL.md, bad front
	// matter, a symlink, too many files); details.reason says which.
	CodeInvalid = "skill.invalid"
	// CodeBudgetExhausted: the run has read all the skill text its profile
	// allows.
	CodeBudgetExhausted = "skill.budget_exhausted"
	// CodePolicyDenied: the profile hides or denies the skill (the seed's
	// code for any hidden or denied tool or resource).
	CodePolicyDenied = "tool.policy_denied"
)

// Bounds.
const (
	// FileName is the file that makes a folder a skill.
	FileName = "SKILL.md"
	// MaxSkills bounds how many skill folders List and Search read.
	MaxSkills = 500
	// MaxFileBytes bounds a SKILL.md.
	MaxFileBytes = 1 << 20
	// MaxFrontMatterBytes bounds the YAML front matter, before it is parsed.
	MaxFrontMatterBytes = 16 << 10
	// MaxDescription bounds a description, in characters (the Agent Skills
	// format's limit).
	MaxDescription = 1024
	// MaxInstallFiles, MaxInstallBytes and MaxInstallDepth bound what
	// Install copies: files (and, separately, folders), their total size,
	// and how deep they nest below the skill folder.
	MaxInstallFiles = 200
	MaxInstallBytes = 20 << 20
	MaxInstallDepth = 8
	// DefaultReadChars is what Read returns when maxChars is not positive,
	// and the per-call budget when NewBudget gets none (the seed's default).
	DefaultReadChars = 20_000
	// DefaultRunChars is the per-run budget when NewBudget gets none.
	DefaultRunChars = 80_000
	// MaxQuery bounds a search query, in characters.
	MaxQuery = 200
)

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ValidName reports whether name can name a skill: 1 to 64 characters of
// a-z, 0-9, ".", "_" and "-", starting with a letter or digit.
func ValidName(name string) bool { return namePattern.MatchString(name) }

// Skill is one readable skill.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the SKILL.md path relative to the library, "<name>/SKILL.md"
	// (no absolute path reaches a model or a script; Library.Dir has the
	// rest).
	Path string `json:"path"`
	// Bytes is the size of SKILL.md.
	Bytes int64 `json:"bytes"`
}

// Problem is a skill folder that cannot be used, and why. Dir is the
// folder's name in the library; "" means the library as a whole.
type Problem struct {
	Dir     string `json:"dir"`
	Message string `json:"message"`
}

// Filter is a profile's skill policy: a skill is visible when its name
// matches a Visible glob and no Deny glob (path.Match syntax; skill names
// hold no "/", so "*" matches any name). An empty Visible shows nothing;
// the seed's profiles use ["*"] for everything.
type Filter struct {
	Visible []string `json:"visible"`
	Deny    []string `json:"deny"`
}

// All is the filter that shows every skill (the library UI's view).
func All() Filter { return Filter{Visible: []string{"*"}} }

// Allows reports whether the filter shows the skill name. A malformed
// pattern matches nothing.
func (f Filter) Allows(name string) bool {
	return matchAny(f.Visible, name) && !matchAny(f.Deny, name)
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, err := path.Match(p, name); ok && err == nil {
			return true
		}
	}
	return false
}

// Hit is one result of Search.
type Hit struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Snippet is a short, one-line piece of the body around the first
	// match in it, or the body's start when only the name or description
	// matched.
	Snippet string `json:"snippet"`
}

// Text is a window of a skill's body, counted in characters (runes).
type Text struct {
	Name       string `json:"name"`
	Text       string `json:"text"`
	StartChar  int    `json:"startChar"`
	TotalChars int    `json:"totalChars"`
	// Truncated is true when the body goes on past the window.
	Truncated bool `json:"truncated"`
}

// Library is the skill folder tree under one directory. Its methods are
// safe for concurrent use; Install calls are serialised.
type Library struct {
	dir     string
	install sync.Mutex
}

// Open returns the library in dir. It touches nothing: a missing dir is an
// empty library until the first Install creates it.
func Open(dir string) *Library { return &Library{dir: dir} }

// Dir is the library's directory.
func (l *Library) Dir() string { return l.dir }
