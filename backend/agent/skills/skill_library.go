package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"hearth/backend/apperr"
)

// readFile reads and parses the SKILL.md at file: a regular file (not a
// symlink) of at most MaxFileBytes. A missing file is fs.ErrNotExist.
func readFile(file string) (parsed, int64, error) {
	info, err := os.Lstat(file)
	if err != nil {
		return parsed{}, 0, err
	}
	if !info.Mode().IsRegular() {
		return parsed{}, 0, problem("%s must be a regular file, not a symlink or folder", FileName)
	}
	if info.Size() > MaxFileBytes {
		return parsed{}, 0, problem("%s is larger than %d MiB", FileName, MaxFileBytes>>20)
	}
	f, err := os.Open(file)
	if err != nil {
		return parsed{}, 0, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return parsed{}, 0, err
	}
	p, err := parseSkill(data)
	return p, int64(len(data)), err
}

// load reads skill folder name: a real folder (not a symlink) holding a
// SKILL.md whose name is the folder's. A missing folder is fs.ErrNotExist;
// a broken one a *problemError.
func (l *Library) load(name string) (Skill, string, error) {
	dir := filepath.Join(l.dir, name)
	info, err := os.Lstat(dir)
	if err != nil {
		return Skill{}, "", err
	}
	if !info.IsDir() {
		return Skill{}, "", problem("is a symlink or a file, not a skill folder")
	}
	p, size, err := readFile(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return Skill{}, "", problem("has no %s", FileName)
	}
	if err != nil {
		return Skill{}, "", err
	}
	if p.Name != name {
		return Skill{}, "", problem("%s names the skill %q but its folder is %q; they must be equal", FileName, p.Name, name)
	}
	return Skill{Name: name, Description: p.Description, Path: name + "/" + FileName, Bytes: size}, p.Body, nil
}

// walk reads every skill folder the filter shows, at most MaxSkills, in
// name order, calling fn for the good ones and collecting problems for
// the rest. Dot folders (Install's temp folders) and loose files are
// skipped silently.
func (l *Library) walk(f Filter, fn func(s Skill, body string)) ([]Problem, error) {
	problems := []Problem{}
	entries, err := os.ReadDir(l.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return problems, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list skills: %w", err)
	}
	read := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || (!e.IsDir() && e.Type()&fs.ModeSymlink == 0) || !f.Allows(name) {
			continue
		}
		if read == MaxSkills {
			problems = append(problems, Problem{Message: fmt.Sprintf("the library holds more than %d skill folders; the rest were not read", MaxSkills)})
			break
		}
		read++
		if !ValidName(name) {
			problems = append(problems, Problem{Dir: name, Message: "folder name is not a skill name: 1 to 64 characters of a-z, 0-9, ., _ and -, starting with a letter or digit"})
			continue
		}
		s, body, err := l.load(name)
		if err != nil {
			problems = append(problems, Problem{Dir: name, Message: problemText(err)})
			continue
		}
		fn(s, body)
	}
	return problems, nil
}

// problemText is a problem's message; other errors are reported without
// the absolute path they carry.
func problemText(err error) string {
	var pe *problemError
	if errors.As(err, &pe) {
		return pe.msg
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return "cannot be read: " + pathErr.Err.Error()
	}
	return "cannot be read"
}

// List returns the skills the filter shows, by name, and the problems of
// the folders it shows that cannot be used. A missing library is empty.
func (l *Library) List(f Filter) ([]Skill, []Problem, error) {
	skills := []Skill{}
	problems, err := l.walk(f, func(s Skill, _ string) { skills = append(skills, s) })
	if err != nil {
		return nil, nil, err
	}
	return skills, problems, nil
}

// Search finds the skills the filter shows whose name, description or
// body contains query, case-insensitively: name matches first, then
// description, then body, each by name. limit ≤ 0 means 10; at most 50.
func (l *Library) Search(query string, f Filter, limit int) ([]Hit, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return nil, apperr.Invalid("query must not be empty").WithDetails(map[string]any{"field": "query"})
	}
	if utf8.RuneCountInString(q) > MaxQuery {
		return nil, apperr.Invalid("query is longer than %d characters", MaxQuery).WithDetails(map[string]any{"field": "query"})
	}
	switch {
	case limit <= 0:
		limit = 10
	case limit > 50:
		limit = 50
	}
	lq := lower(q)
	type ranked struct {
		rank int
		hit  Hit
	}
	var found []ranked
	_, err := l.walk(f, func(s Skill, body string) {
		lbody := lower(body)
		at := strings.Index(lbody, lq)
		rank := 2
		switch {
		case strings.Contains(lower(s.Name), lq):
			rank = 0
		case strings.Contains(lower(s.Description), lq):
			rank = 1
		case at < 0:
			return
		}
		snip := snippet(body, 0, 0)
		if at >= 0 {
			snip = snippet(body, utf8.RuneCountInString(lbody[:at]), utf8.RuneCountInString(lq))
		}
		found = append(found, ranked{rank, Hit{Name: s.Name, Description: s.Description, Snippet: snip}})
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].rank < found[j].rank })
	hits := make([]Hit, 0, min(limit, len(found)))
	for _, r := range found[:min(limit, len(found))] {
		hits = append(hits, r.hit)
	}
	return hits, nil
}

// lower maps every rune to lower case one for one, so rune offsets into
// the result are rune offsets into s.
func lower(s string) string { return strings.Map(unicode.ToLower, s) }

// snippet returns about 160 characters of body around the n runes at rune
// offset at, on one line, with "…" where it was cut.
func snippet(body string, at, n int) string {
	const before, around = 60, 160
	r := []rune(body)
	start := max(0, at-before)
	end := min(len(r), start+max(around, n))
	s := strings.Join(strings.Fields(string(r[start:end])), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(r) {
		s += "…"
	}
	return s
}

// Read returns up to maxChars characters of skill name's body from
// startChar on (maxChars ≤ 0 means DefaultReadChars; a negative startChar
// is 0, one past the end an empty window). A skill the filter hides is
// tool.policy_denied, whether it exists or not; an unknown one
// skill.not_found; a broken one skill.invalid.
func (l *Library) Read(name string, f Filter, startChar, maxChars int) (Text, error) {
	if !ValidName(name) {
		return Text{}, notFound(name)
	}
	if !f.Allows(name) {
		return Text{}, apperr.New(CodePolicyDenied, "skill %q is hidden or denied by this profile", name).
			WithDetails(map[string]any{"name": name})
	}
	_, body, err := l.load(name)
	if errors.Is(err, fs.ErrNotExist) {
		return Text{}, notFound(name)
	}
	if err != nil {
		var pe *problemError
		if errors.As(err, &pe) {
			return Text{}, apperr.New(CodeInvalid, "skill %q cannot be read: %s", name, pe.msg).
				WithDetails(map[string]any{"name": name, "reason": pe.msg})
		}
		return Text{}, fmt.Errorf("read skill %s: %w", name, err)
	}
	if maxChars <= 0 {
		maxChars = DefaultReadChars
	}
	r := []rune(body)
	start := min(max(0, startChar), len(r))
	end := start + min(maxChars, len(r)-start)
	return Text{Name: name, Text: string(r[start:end]), StartChar: start, TotalChars: len(r), Truncated: end < len(r)}, nil
}

func notFound(name string) error {
	return apperr.New(CodeNotFound, "no skill named %q", short(name)).WithDetails(map[string]any{"name": name})
}
