package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"hearth/backend/agent"
	"hearth/backend/agent/workspace"
	pt "hearth/backend/providers/providertest"
)

// patchStep is one round of a scripted run: files written from outside
// Hearth before the model answers, the one call the model makes, and
// texts its result must contain.
type patchStep struct {
	outside map[string]string
	call    call
	want    []string
}

// TestPatchTouchesOnlyReadText: apply_patch replaces text the run has read
// (or written) since the file last changed, and nothing else (AGENT.md
// §5). A patch reaching into lines the run has not read is refused with
// workspace.stale_file naming the lines to read, and the file stays as
// it was; reading them lets the same patch through. A whole read allows
// any patch; an outside edit voids every earlier read; the run's own
// writes and patches count as read text.
func TestPatchTouchesOnlyReadText(t *testing.T) {
	t.Parallel()
	notes := numbered(50, map[int]string{40: "line 40: the lantern burns blue\n"})
	blueToGold := patch("scratch/notes.md", "the lantern burns blue", "the lantern burns gold")
	refused := func(lines string) []string {
		return []string{agent.CodeStaleFile, "read " + lines + " of scratch/notes.md first"}
	}
	patched := []string{`"replacements":1`}
	seeded := map[string]string{"scratch/notes.md": notes}

	cases := []struct {
		name  string
		steps []patchStep
		final map[string]string
	}{{
		name: "lines 1-2 read, line 40 patched, then lines 38-42 read",
		steps: []patchStep{
			{outside: seeded, call: read("scratch/notes.md", 1, 2), want: []string{`"end_line":2`}},
			{call: blueToGold, want: append(refused("line 40"), "workspace_read_file with start_line 40, line_count 1")},
			{call: read("scratch/notes.md", 38, 5), want: []string{"the lantern burns blue", `"end_line":42`}},
			{call: blueToGold, want: patched},
		},
		final: map[string]string{"scratch/notes.md": strings.Replace(notes, "blue", "gold", 1)},
	}, {
		name: "occurrences straddling the edges of the read lines",
		steps: []patchStep{
			{outside: seeded, call: read("scratch/notes.md", 1, 2)},
			{call: read("scratch/notes.md", 38, 5)},
			{call: patch("scratch/notes.md", "2 of the notes\nline 3 of", "2 and 3"), want: refused("line 3")},
			{call: patch("scratch/notes.md", "37 of the notes\nline 38 of", "37 and 38"), want: refused("line 37")},
			{call: patch("scratch/notes.md", "line 2 of the notes\n", "line 2, amended\n"), want: patched},
			{call: patch("scratch/notes.md", "line 38 of", "line thirty-eight of"), want: patched},
		},
		final: map[string]string{"scratch/notes.md": strings.NewReplacer("line 2 of the notes\n", "line 2, amended\n", "line 38 of", "line thirty-eight of").Replace(notes)},
	}, {
		name: "whole reads, also after a partial one",
		steps: []patchStep{
			{outside: map[string]string{"scratch/notes.md": notes, "scratch/long.md": numbered(500, nil)}, call: read("scratch/notes.md", 0, 0), want: []string{`"more":false`}},
			{call: blueToGold, want: patched},
			{call: patch("scratch/notes.md", "line 1 of", "line one of"), want: patched},
			{call: read("scratch/long.md", 1, 2)},
			{call: patch("scratch/long.md", "line 450 of", "line four fifty of"), want: []string{agent.CodeStaleFile, "read line 450 of scratch/long.md first"}},
			{call: read("scratch/long.md", 1, 1000), want: []string{`"end_line":500`}},
			{call: patch("scratch/long.md", "line 450 of", "line four fifty of"), want: patched},
		},
		final: map[string]string{
			"scratch/notes.md": strings.Replace(strings.Replace(notes, "blue", "gold", 1), "line 1 of", "line one of", 1),
			"scratch/long.md":  strings.Replace(numbered(500, nil), "line 450 of", "line four fifty of", 1),
		},
	}, {
		name: "a read without a range shows 400 lines",
		steps: []patchStep{
			{outside: map[string]string{"scratch/long.md": numbered(500, nil)}, call: read("scratch/long.md", 0, 0), want: []string{`"end_line":400`, `"more":true`}},
			{call: patch("scratch/long.md", "line 450 of", "line four fifty of"), want: []string{agent.CodeStaleFile, "read line 450 of scratch/long.md first"}},
			{call: patch("scratch/long.md", "line 400 of", "line four hundred of"), want: patched},
		},
	}, {
		name: "an outside edit voids earlier reads",
		steps: []patchStep{
			{outside: seeded, call: read("scratch/notes.md", 0, 0)},
			{outside: map[string]string{"scratch/notes.md": "line 0\n" + notes}, call: blueToGold, want: []string{agent.CodeStaleFile, "changed since you last read it"}},
			{call: read("scratch/notes.md", 1, 2), want: []string{"line 0"}},
			{call: blueToGold, want: refused("line 41")},
			{call: read("scratch/notes.md", 41, 1)},
			{call: blueToGold, want: patched},
		},
		final: map[string]string{"scratch/notes.md": "line 0\n" + strings.Replace(notes, "blue", "gold", 1)},
	}, {
		name: "the run's own writes and patches are read text",
		steps: []patchStep{
			{outside: seeded, call: call{"workspace_write_file", map[string]any{"path": "scratch/new.md", "content": notes}}},
			{call: patch("scratch/new.md", "the lantern burns blue", "the lantern burns gold"), want: patched},
			{call: read("scratch/notes.md", 38, 5)},
			{call: blueToGold, want: patched},
			{call: patch("scratch/notes.md", "line 41 of", "line forty-one of"), want: patched},
			{call: patch("scratch/notes.md", "line 10 of", "line ten of"), want: refused("line 10")},
			{call: call{"workspace_write_file", map[string]any{"path": "scratch/notes.md", "content": "line 51, appended\n", "mode": "append"}}},
			{call: patch("scratch/notes.md", "line 51, appended", "line 51"), want: patched},
			{call: patch("scratch/notes.md", "line 42 of", "line forty-two of"), want: patched},
			{call: patch("scratch/notes.md", "line 37 of", "line thirty-seven of"), want: refused("line 37")},
		},
		final: map[string]string{
			"scratch/new.md": strings.Replace(notes, "blue", "gold", 1),
			"scratch/notes.md": strings.NewReplacer("blue", "gold", "line 41 of", "line forty-one of", "line 42 of", "line forty-two of").
				Replace(notes) + "line 51\n",
		},
	}, {
		name: "an append after an outside edit keeps only the appended text",
		steps: []patchStep{
			{outside: seeded, call: read("scratch/notes.md", 0, 0)},
			{outside: map[string]string{"scratch/notes.md": "line 0\n" + notes}, call: call{"workspace_write_file", map[string]any{"path": "scratch/notes.md", "content": "line 51\n", "mode": "append"}}},
			{call: patch("scratch/notes.md", "line 1 of", "line one of"), want: refused("line 2")},
			{call: patch("scratch/notes.md", "line 51", "line fifty-one"), want: patched},
		},
	}, {
		name: "CRLF, no final newline, a range past the end",
		steps: []patchStep{
			{outside: map[string]string{"scratch/crlf.md": "a1\r\nb2\r\nc3"}, call: read("scratch/crlf.md", 3, 10), want: []string{`"end_line":3`, `"total_lines":3`}},
			{call: patch("scratch/crlf.md", "c3", "c4"), want: []string{`"replacements":1`}},
			{call: patch("scratch/crlf.md", "a1\r\nb2\r\nc", "A1\r\nB2\r\nC"), want: []string{agent.CodeStaleFile, "read lines 1–2 of scratch/crlf.md first"}},
			{call: read("scratch/crlf.md", 9, 1), want: []string{`"text":""`}},
			{call: patch("scratch/crlf.md", "b2\r\n", "B2\r\n"), want: []string{agent.CodeStaleFile, "read line 2 of scratch/crlf.md first"}},
			{call: read("scratch/crlf.md", 2, 1)},
			{call: patch("scratch/crlf.md", "b2\r\nc4", "B2\r\nC4"), want: []string{`"replacements":1`}},
		},
		final: map[string]string{"scratch/crlf.md": "a1\r\nB2\r\nC4"},
	}, {
		name: "replace_all needs every occurrence read",
		steps: []patchStep{
			{outside: map[string]string{"scratch/marks.md": numbered(50, map[int]string{5: "mark\n", 15: "mark\n", 16: "mark\n", 25: "mark\n", 35: "mark\n", 40: "mark\n", 45: "mark\n", 48: "mark\n"})},
				call: read("scratch/marks.md", 1, 30)},
			{call: patchAll("scratch/marks.md", "mark", "MARK"), want: []string{agent.CodeStaleFile, "read lines 35, 40, 45 and 48 of scratch/marks.md first"}},
			{call: read("scratch/marks.md", 31, 20)},
			{call: patchAll("scratch/marks.md", "mark", "MARK"), want: []string{`"replacements":8`}},
		},
	}, {
		name: "the stale-file error lists at most five ranges",
		steps: []patchStep{
			{outside: map[string]string{"scratch/marks.md": numbered(50, map[int]string{5: "mark\n", 15: "mark\n", 25: "mark\n", 35: "mark\n", 40: "mark\n", 45: "mark\n", 48: "mark\n"})},
				call: read("scratch/marks.md", 1, 1)},
			{call: patchAll("scratch/marks.md", "mark", "MARK"), want: []string{agent.CodeStaleFile, "read lines 5, 15, 25, 35, 40 and more of scratch/marks.md first"}},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			h := r.runSteps(tc.steps)
			r.wantAnswers(tc.steps)
			for path, want := range tc.final {
				var file struct {
					Text string `json:"text"`
				}
				r.call(&file, "agent.readWorkspaceFile", map[string]any{"runId": h.RunID, "path": path})
				if file.Text != want {
					t.Errorf("%s ends as\n%q\nwant\n%q", path, file.Text, want)
				}
			}
		})
	}
}

// TestPatchTooLargeRefusedUnbuilt: a replace_all whose result would pass
// workspace.MaxFileBytes is refused with the write's own
// workspace.file_too_large, and before the result is built: replacing
// each byte of a 16 KiB file with 64 KiB asks for 1 GiB, which the run
// must not allocate (a model can ask for terabytes the same way). The
// file stays as it was.
func TestPatchTooLargeRefusedUnbuilt(t *testing.T) {
	// Not parallel: TotalAlloc counts the allocations of every test
	// running, and parallel tests wait for this one to end.
	r := newRig(t)
	text, long := strings.Repeat("a", 16<<10), strings.Repeat("b", 64<<10)
	wouldBe := len(text) * len(long)
	steps := []patchStep{
		{outside: map[string]string{"scratch/a.md": text}, call: read("scratch/a.md", 0, 0), want: []string{`"more":false`}},
		{call: patchAll("scratch/a.md", "a", long), want: []string{
			workspace.CodeFileTooLarge, fmt.Sprintf("scratch/a.md would be %d bytes; the limit is %d", wouldBe, workspace.MaxFileBytes),
		}},
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h := r.runSteps(steps)
	runtime.ReadMemStats(&after)
	r.wantAnswers(steps)
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(wouldBe/4) {
		t.Errorf("the run allocated %d MiB; the patch it refused would have been %d MiB", n>>20, wouldBe>>20)
	}
	var file struct {
		Text string `json:"text"`
	}
	r.call(&file, "agent.readWorkspaceFile", map[string]any{"runId": h.RunID, "path": "scratch/a.md"})
	if file.Text != text {
		t.Errorf("scratch/a.md is %d bytes after the refused patch; want the %d it had", len(file.Text), len(text))
	}
}

// wantAnswers checks that the answer to each step's call contains the
// texts the step wants; the run answered the model in request i+1.
func (r *rig) wantAnswers(steps []patchStep) {
	r.t.Helper()
	for i, s := range steps {
		res := r.toolResults(i + 1)
		got := res[len(res)-1]
		for _, w := range s.want {
			if !strings.Contains(got, w) {
				r.t.Errorf("step %d (%s %v) answered %s; want %q in it", i+1, s.call.name, s.call.args, got, w)
			}
		}
	}
}

// runSteps runs steps, one call a round, writing each step's outside
// files before the model answers it (the run is then between two tool
// calls), and waits for the run to end.
func (r *rig) runSteps(steps []patchStep) handle {
	r.t.Helper()
	gates := make([]chan struct{}, len(steps))
	for i, s := range steps {
		script := round("", s.call)
		if s.outside != nil {
			gates[i] = make(chan struct{})
			script.Wait = gates[i]
		}
		r.model.Push(script)
	}
	r.model.Push(pt.Script{Status: 400, Body: `{"error":{"message":"enough"}}`})
	h := r.start(nil)
	root := filepath.Join(r.dir, "agent", "workspaces", h.WorkspaceID, "runs", h.RunID)
	for i, s := range steps {
		if s.outside == nil {
			continue
		}
		r.waitCount(h.RunID, "model_request_created", i+1)
		for path, text := range s.outside {
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(path)), []byte(text), 0o600); err != nil {
				r.t.Fatal(err)
			}
		}
		close(gates[i])
	}
	r.waitStatus(h.RunID, "failed")
	return h
}

// waitCount waits until the run has n events of typ.
func (r *rig) waitCount(runID, typ string, n int) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for count(types(r.events(runID)), typ) < n {
		if time.Now().After(deadline) {
			r.t.Fatalf("run %s never had %d %s events; events %v", runID, n, typ, types(r.events(runID)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// numbered is a file of n lines "line <i> of the notes", with the lines
// in replace instead of theirs.
func numbered(n int, replace map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if line, ok := replace[i]; ok {
			b.WriteString(line)
			continue
		}
		fmt.Fprintf(&b, "line %d of the notes\n", i)
	}
	return b.String()
}

// read is a workspace_read_file call; 0 leaves an argument out.
func read(path string, startLine, lineCount int) call {
	args := map[string]any{"path": path}
	if startLine > 0 {
		args["start_line"] = startLine
	}
	if lineCount > 0 {
		args["line_count"] = lineCount
	}
	return call{"workspace_read_file", args}
}

// patch is a workspace_apply_patch call replacing one occurrence.
func patch(path, old, new string) call {
	return call{"workspace_apply_patch", map[string]any{"path": path, "old_string": old, "new_string": new}}
}

// patchAll is a workspace_apply_patch call replacing every occurrence.
func patchAll(path, old, new string) call {
	c := patch(path, old, new)
	c.args["replace_all"] = true
	return c
}
