package agent_test

import (
	"math"
	"testing"
)

// TestHugeReadRanges: a model's line_count, index, start_char or
// max_chars of math.MaxInt reads to the end, or past it, as a large value
// would; none wraps around. read_file's start-1+line_count overflowed and
// returned no lines, and chat.read_messages' index+1 became a negative
// range end that refused the whole call.
func TestHugeReadRanges(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	doc := "---\nname: tone\ndescription: Keep replies warm.\n---\nWrite warmly, in the present tense.\n"
	r.call(nil, "agent.skills.install", map[string]any{"files": []any{map[string]any{"path": "tone/SKILL.md", "data": []byte(doc)}}})
	messages := func(ms ...map[string]any) call {
		return call{"chat_read_messages", map[string]any{"messages": ms}}
	}
	steps := []patchStep{
		{outside: map[string]string{"scratch/notes.md": numbered(5, nil)}, call: read("scratch/notes.md", 2, math.MaxInt),
			want: []string{`"start_line":2`, `"end_line":5`, "line 2 of the notes", "line 5 of the notes", `"more":false`}},
		{call: read("scratch/notes.md", math.MaxInt, math.MaxInt), want: []string{`"text":""`, `"total_lines":5`}},
		{call: messages(map[string]any{"index": math.MaxInt}), want: []string{"no message 9223372036854775807"}},
		{call: messages(map[string]any{"index": 1, "start_char": 1, "max_chars": math.MaxInt}),
			want: []string{`"text":"ell me about the lantern."`, `"more":false`}},
		{call: messages(map[string]any{"index": 1, "start_char": math.MaxInt, "max_chars": math.MaxInt}),
			want: []string{`"text":""`, `"more":false`}},
		{call: call{"skill_read", map[string]any{"name": "tone", "start_char": 1, "max_chars": math.MaxInt}},
			want: []string{`"text":"rite warmly, in the present tense.`}},
		{call: call{"skill_read", map[string]any{"name": "tone", "start_char": math.MaxInt, "max_chars": math.MaxInt}},
			want: []string{`"text":""`}},
	}
	r.runSteps(steps)
	r.wantAnswers(steps)
}
