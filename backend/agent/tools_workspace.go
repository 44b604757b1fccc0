package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"hearth/backend/agent/workspace"
	"hearth/backend/apperr"
)

// Bounds of what workspace.read_file returns at once.
const (
	defaultReadLines = 400
	maxReadChars     = 40_000
)

func (r *run) listFiles(args json.RawMessage) (any, error) {
	var a struct {
		Path  string `json:"path"`
		Depth int    `json:"depth"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	rel, err := workspace.CleanDir(a.Path, r.visible())
	if err != nil {
		return nil, err
	}
	files, truncated, err := r.dir.List(rel, a.Depth)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(files))
	for _, f := range files {
		if rel == "" && !underAny(f.Path, r.visible()) {
			continue
		}
		out = append(out, map[string]any{"path": f.Path, "bytes": f.Bytes})
	}
	return map[string]any{"files": out, "truncated": truncated}, nil
}

func (r *run) searchFiles(args json.RawMessage) (any, error) {
	var a struct {
		Query        string `json:"query"`
		Path         string `json:"path"`
		Limit        int    `json:"limit"`
		ContextLines int    `json:"context_lines"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	rel, err := workspace.CleanDir(a.Path, r.visible())
	if err != nil {
		return nil, err
	}
	hits, err := r.dir.Search(a.Query, rel, r.visible(), a.Limit, a.ContextLines)
	if err != nil {
		return nil, err
	}
	return map[string]any{"hits": hits}, nil
}

func (r *run) readFile(args json.RawMessage) (any, error) {
	var a struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		LineCount int    `json:"line_count"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	path, err := workspace.Clean(a.Path, r.visible())
	if err != nil {
		return nil, err
	}
	data, err := r.dir.Read(path)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, apperr.New("workspace.not_text", "%s is not UTF-8 text", path)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start := max(a.StartLine, 1)
	count := a.LineCount
	if count <= 0 {
		count = defaultReadLines
	}
	var b strings.Builder
	end := start - 1
	from := lineOffset(lines, start-1)
	shown := span{from, from}
	// i-(start-1) < count, not i < start-1+count: a model's line_count of
	// math.MaxInt would overflow the sum and read nothing.
	for i := start - 1; i < len(lines) && i-(start-1) < count; i++ {
		line := fmt.Sprintf("%6d| %s", i+1, lines[i])
		if b.Len()+len(line) > maxReadChars && b.Len() > 0 {
			break
		}
		b.WriteString(line)
		end = i + 1
		shown.end += len(lines[i])
	}
	r.noteRead(path, hashOf(data), shown)
	return map[string]any{
		"path": path, "start_line": start, "end_line": end, "total_lines": len(lines), "bytes": len(data),
		"text": b.String(), "more": end < len(lines),
	}, nil
}

func (r *run) writeFileTool(args json.RawMessage) (any, error) {
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
		Mode    string `json:"mode"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if a.Mode == "" {
		a.Mode = "replace"
	}
	if a.Mode != "replace" && a.Mode != "append" {
		return nil, apperr.Invalid("mode must be replace or append; got %q", cut(a.Mode, 40))
	}
	path, err := r.writablePath(a.Path)
	if err != nil {
		return nil, err
	}
	e, err := r.writeFile(path, []byte(a.Content), a.Mode, "write "+path)
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": path, "bytes": e.Bytes, "sha256": e.SHA256, "checkpointId": r.checkpoint}, nil
}

func (r *run) applyPatch(args json.RawMessage) (any, error) {
	var a struct {
		Path       string `json:"path"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	path, err := r.writablePath(a.Path)
	if err != nil {
		return nil, err
	}
	if a.OldString == "" {
		return nil, apperr.Invalid("old_string is empty: name the text to replace (to write a whole file, use workspace_write_file)")
	}
	data, err := r.dir.Read(path)
	if err != nil {
		return nil, err
	}
	seen := r.seenOf(path)
	if seen.hash != hashOf(data) {
		why := "it changed since you last read it"
		if seen.hash == "" {
			why = "you have not read it in this run"
		}
		return nil, apperr.New(CodeStaleFile, "cannot patch %s: %s; read it with workspace_read_file, then patch again", path, why).
			WithDetails(map[string]any{"path": path})
	}
	text := string(data)
	n := strings.Count(text, a.OldString)
	switch {
	case n == 0:
		return nil, apperr.New("workspace.patch_no_match", "old_string does not occur in %s", path)
	case n > 1 && !a.ReplaceAll:
		return nil, apperr.New("workspace.patch_ambiguous", "old_string occurs %d times in %s: give more context, or set replace_all", n, path)
	}
	if err := workspace.CheckSize(path, patchedSize(len(text), n, len(a.OldString), len(a.NewString))); err != nil {
		return nil, err
	}
	at := occurrences(text, a.OldString, a.ReplaceAll)
	if ranges, more := seen.unread(text, at, len(a.OldString)); len(ranges) > 0 {
		return nil, unreadError(path, ranges, more)
	}
	next := []byte(strings.Replace(text, a.OldString, a.NewString, n))
	known := seen.replaced(hashOf(next), at, len(a.OldString), len(a.NewString))
	e, err := r.ownWrite(path, next, known, "patch "+path, "workspace_patch_applied", map[string]any{"replacements": n})
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": path, "replacements": n, "bytes": e.Bytes, "sha256": e.SHA256, "checkpointId": r.checkpoint}, nil
}

func (r *run) finish(args json.RawMessage) (any, error) {
	var a struct {
		Reason string `json:"reason"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if r.presentation == "foreground" {
		if path, ok := r.uncommittedArtifact(); ok {
			return nil, apperr.New(CodeArtifactMissing, "%s is not committed yet: write it, call workspace_commit with path %s, then finish", path, path).
				WithDetails(map[string]any{"path": path})
		}
	}
	return map[string]any{"finished": true, "commits": len(r.commits)}, errFinished
}

// patchedSize is the length of a text of size bytes once n occurrences of
// oldLen bytes are replaced by newLen bytes; math.MaxInt64 when that does
// not fit in an int64. applyPatch checks it before building the text, as
// a replace_all of a one-byte old_string with a long new_string asks for
// size times that length.
func patchedSize(size, n, oldLen, newLen int) int64 {
	grow := int64(newLen) - int64(oldLen)
	if grow > 0 && int64(n) > (math.MaxInt64-int64(size))/grow {
		return math.MaxInt64
	}
	return int64(size) + int64(n)*grow
}

// unreadError is the stale-file error of a patch whose old_string reaches
// lines the run has not read since the file last changed. It names those
// lines, so that reading them lets the same patch through.
func unreadError(path string, ranges []lineRange, more bool) error {
	where := rangesText(ranges, more)
	how := ""
	if len(ranges) == 1 && !more {
		how = fmt.Sprintf(" (workspace_read_file with start_line %d, line_count %d)", ranges[0].first, ranges[0].last-ranges[0].first+1)
	}
	lines := make([]map[string]int, len(ranges))
	for i, r := range ranges {
		lines[i] = map[string]int{"start_line": r.first, "end_line": r.last}
	}
	return apperr.New(CodeStaleFile, "cannot patch %s: old_string reaches %s, which you have not read since the file last changed; read %s of %s first%s, then patch again",
		path, where, where, path, how).WithDetails(map[string]any{"path": path, "lines": lines})
}

// noteRead records that the model read sp of path's content with hash. A
// read of other content voids what was seen of the old: that text is gone.
func (r *run) noteRead(path, hash string, sp span) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seen[path]
	if s.hash != hash {
		s = seenText{hash: hash}
	}
	r.seen[path] = s.with(sp)
}

// seenOf returns what the run has seen of path; its hash is "" when the
// run has neither read nor written it.
func (r *run) seenOf(path string) seenText {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[path]
}

// lineOffset returns the offset of line i (0-based) of lines, or the end
// of the text when there is no such line.
func lineOffset(lines []string, i int) int {
	off := 0
	for _, l := range lines[:min(i, len(lines))] {
		off += len(l)
	}
	return off
}

// uncommittedArtifact returns the first required artifact of the profile
// that no commit of the run took from its path. Any commit is not enough:
// a reply committed from scratch/ leaves the artifact the chat expects
// unwritten.
func (r *run) uncommittedArtifact() (string, bool) {
	for _, a := range r.prof.Output.Artifacts {
		if a.Required && !slices.ContainsFunc(r.commits, func(c commitRecord) bool { return c.Path == a.Path }) {
			return a.Path, true
		}
	}
	return "", false
}

// writablePath checks a path the model wants to write.
func (r *run) writablePath(p string) (string, error) {
	path, err := workspace.Clean(p, r.visible())
	if err != nil {
		return "", err
	}
	if !underAny(path, r.writable()) {
		return "", apperr.New(CodePolicyDenied, "%s is read-only in this run (writable: %s)", path, strings.Join(r.writable(), ", "))
	}
	return path, nil
}

// underAny reports whether path is inside one of roots.
func underAny(path string, roots []string) bool {
	for _, root := range roots {
		if strings.HasPrefix(path, root+"/") {
			return true
		}
	}
	return false
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
