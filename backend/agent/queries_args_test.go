package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"hearth/backend/apperr"
	pt "hearth/backend/providers/providertest"
)

// failedRun starts a run the model fails at once, so the read methods
// have a run with a few stored events to answer for.
func failedRun(r *rig) string {
	r.t.Helper()
	r.model.Push(pt.Script{Status: 400, Body: `{"error":{"message":"stop here"}}`})
	h := r.start(nil)
	r.waitStatus(h.RunID, "failed")
	return h.RunID
}

// invokeRaw calls method with its arguments as written, so a test can send
// the null that JSON.stringify makes of NaN.
func (r *rig) invokeRaw(method, args string) (json.RawMessage, error) {
	return r.app.Router.Invoke(r.ctx, method, json.RawMessage(args))
}

// TestReadEventsRefusesNull: null (NaN on the wire), a fraction or a
// string in readEvents' integer options is validation.invalid_argument,
// never read as "not given"; integers still page as before.
func TestReadEventsRefusesNull(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	id := failedRun(r)
	for _, opt := range []string{
		`"afterSeq":null`, `"beforeSeq":null`, `"limit":null`,
		`"afterSeq":1.5`, `"beforeSeq":"3"`, `"limit":"5"`,
	} {
		_, err := r.invokeRaw("agent.readEvents", `[{"runId":"`+id+`",`+opt+`}]`)
		if apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("readEvents with %s: err %v, want %s", opt, err, apperr.CodeInvalidArgument)
		}
	}
	var page struct {
		Events  []event `json:"events"`
		HasMore bool    `json:"hasMore"`
	}
	r.call(&page, "agent.readEvents", map[string]any{"runId": id, "afterSeq": 1, "beforeSeq": 4, "limit": 1})
	if len(page.Events) != 1 || page.Events[0].Seq != 2 || !page.HasMore {
		t.Fatalf("readEvents after 1 before 4 limit 1 = %+v", page)
	}
	r.call(&page, "agent.readEvents", map[string]any{"runId": id})
	if len(page.Events) < 3 || page.Events[0].Seq != 1 || page.HasMore {
		t.Fatalf("readEvents with no options = %d events, hasMore %v", len(page.Events), page.HasMore)
	}
}

// TestPageLimitsAreRanges: readEvents' limit is 1–1000 and listRuns' 1–500;
// a limit outside, or null in listRuns' integer options, is
// validation.invalid_argument naming the range, not cut to the max or read
// as "not given". The bounds themselves still page.
func TestPageLimitsAreRanges(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	id := failedRun(r)
	for _, c := range []struct{ method, args, inMessage string }{
		{"agent.readEvents", `[{"runId":"` + id + `","limit":0}]`, "between 1 and 1000"},
		{"agent.readEvents", `[{"runId":"` + id + `","limit":1001}]`, "between 1 and 1000"},
		{"agent.readEvents", `[{"runId":"` + id + `","limit":-1}]`, "between 1 and 1000"},
		{"agent.listRuns", `[{"limit":0}]`, "between 1 and 500"},
		{"agent.listRuns", `[{"limit":501}]`, "between 1 and 500"},
		{"agent.listRuns", `[{"limit":-1}]`, "between 1 and 500"},
		{"agent.listRuns", `[{"limit":null}]`, "null"},
		{"agent.listRuns", `[{"beforeCreatedMs":null}]`, "null"},
		{"agent.listRuns", `[{"limit":2.5}]`, "limit"},
	} {
		_, err := r.invokeRaw(c.method, c.args)
		if apperr.CodeOf(err) != apperr.CodeInvalidArgument || !strings.Contains(err.Error(), c.inMessage) {
			t.Errorf("%s %s: err %v, want %s saying %q", c.method, c.args, err, apperr.CodeInvalidArgument, c.inMessage)
		}
	}
	var page struct {
		Events []event `json:"events"`
	}
	r.call(&page, "agent.readEvents", map[string]any{"runId": id, "limit": 1000})
	if len(page.Events) < 3 {
		t.Fatalf("readEvents with limit 1000 = %d events", len(page.Events))
	}
	var list struct {
		Runs []struct {
			RunID string `json:"runId"`
		} `json:"runs"`
	}
	for _, in := range []map[string]any{{"limit": 500}, {"limit": 1}, {"beforeCreatedMs": 1 << 50}, {}} {
		r.call(&list, "agent.listRuns", in)
		if len(list.Runs) != 1 || list.Runs[0].RunID != id {
			t.Fatalf("listRuns(%v) = %+v", in, list.Runs)
		}
	}
}

// TestZeroUpperBounds: a given beforeSeq or beforeCreatedMs of 0 is an
// upper bound below every event and run, so nothing comes back; it read
// as "left out" and returned everything. Left out, they still do not
// bound.
func TestZeroUpperBounds(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	id := failedRun(r)
	var page struct {
		Events  []event `json:"events"`
		HasMore bool    `json:"hasMore"`
	}
	r.call(&page, "agent.readEvents", map[string]any{"runId": id, "beforeSeq": 0})
	if len(page.Events) != 0 || page.HasMore {
		t.Fatalf("readEvents before 0 = %d events, hasMore %v", len(page.Events), page.HasMore)
	}
	var list struct {
		Runs []any `json:"runs"`
	}
	r.call(&list, "agent.listRuns", map[string]any{"beforeCreatedMs": 0})
	if len(list.Runs) != 0 {
		t.Fatalf("listRuns before 0 = %d runs", len(list.Runs))
	}
	r.call(&list, "agent.listRuns", map[string]any{"chatId": r.chatID})
	if len(list.Runs) != 1 {
		t.Fatalf("listRuns without a bound = %d runs", len(list.Runs))
	}
}

// TestListWorkspaceFilesDepth: listWorkspaceFiles' depth is 1–4; null, 0,
// a negative depth or one past 4 is validation.invalid_argument, not a
// listing at depth 4. Left out, it lists at depth 4.
func TestListWorkspaceFilesDepth(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.model.Push(
		round("", call{"workspace_write_file", map[string]any{"path": "output/top.md", "content": "top"}},
			call{"workspace_write_file", map[string]any{"path": "output/a/b/c/deep.md", "content": "deep"}}),
		pt.Script{Status: 400, Body: `{"error":{"message":"stop here"}}`},
	)
	h := r.start(nil)
	r.waitStatus(h.RunID, "failed")
	for _, depth := range []string{"null", "0", "-3", "5", "99", "1.5", `"2"`} {
		_, err := r.invokeRaw("agent.listWorkspaceFiles", `[{"runId":"`+h.RunID+`","path":"output","depth":`+depth+`}]`)
		if apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("listWorkspaceFiles with depth %s: err %v, want %s", depth, err, apperr.CodeInvalidArgument)
		}
	}
	list := func(in map[string]any) string {
		var res struct {
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		}
		r.call(&res, "agent.listWorkspaceFiles", in)
		var paths []string
		for _, f := range res.Files {
			paths = append(paths, f.Path)
		}
		return strings.Join(paths, ",")
	}
	all := "output/a/b/c/deep.md,output/top.md"
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"runId": h.RunID, "path": "output", "depth": 1}, "output/top.md"},
		{map[string]any{"runId": h.RunID, "path": "output", "depth": 3}, "output/top.md"},
		{map[string]any{"runId": h.RunID, "path": "output", "depth": 4}, all},
		{map[string]any{"runId": h.RunID, "path": "output"}, all},
	} {
		if got := list(c.in); got != c.want {
			t.Errorf("listWorkspaceFiles(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}
