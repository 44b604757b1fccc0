package agent_test

import (
	"encoding/json"
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
