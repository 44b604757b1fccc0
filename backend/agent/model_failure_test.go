package agent_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/agent"
	pt "hearth/backend/providers/providertest"
)

// runError is a failed run's error as getRun and listRuns report it, and
// run_failed's payload.
type runError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// TestModelFailureIsRequestFailed: a run whose model request fails for
// good ends with model.request_failed (AGENT.md §3), not the provider's
// code; the message names the cause and details keep the provider's
// detail plus cause, which the window reads to offer Connections. The
// run's row (getRun, listRuns) and its run_failed event say the same.
func TestModelFailureIsRequestFailed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		script pt.Script
		cause  string
		status float64
	}{
		{"bad key", pt.Script{Status: 401, Body: `{"error":{"message":"bad key"}}`}, "model.auth_failed", 401},
		{"bad request", pt.Script{Status: 400, Body: `{"error":{"message":"no such model"}}`}, "model.request_failed", 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.model.Push(c.script)
			h := r.start(nil)
			r.waitStatus(h.RunID, "failed")
			var run struct {
				Error runError `json:"error"`
			}
			r.call(&run, "agent.getRun", h.RunID)
			e := run.Error
			if e.Code != agent.CodeModelRequestFailed || e.Details["cause"] != c.cause || e.Details["status"] != c.status || !strings.Contains(e.Message, c.cause) {
				t.Fatalf("run error %+v, want %s with cause %s and status %v", e, agent.CodeModelRequestFailed, c.cause, c.status)
			}
			// run_failed tells the same failure as the row, details and
			// all: the run panel builds its text and its Connections
			// button from the event alone.
			var failed runError
			if err := json.Unmarshal(r.waitEvent(h.RunID, "run_failed").Payload, &failed); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(failed, e) {
				t.Fatalf("run_failed %+v, want the run's error %+v", failed, e)
			}
			var list struct {
				Runs []struct {
					RunID string   `json:"runId"`
					Error runError `json:"error"`
				} `json:"runs"`
			}
			r.call(&list, "agent.listRuns", map[string]any{"chatId": r.chatID})
			if len(list.Runs) != 1 || list.Runs[0].RunID != h.RunID || !reflect.DeepEqual(list.Runs[0].Error, e) {
				t.Fatalf("listRuns %+v, want the run with error %+v", list.Runs, e)
			}
		})
	}
}
