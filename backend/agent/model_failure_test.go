package agent_test

import (
	"strings"
	"testing"

	"hearth/backend/agent"
	pt "hearth/backend/providers/providertest"
)

// TestModelFailureIsRequestFailed: a run whose model request fails for
// good ends with model.request_failed (AGENT.md §3), not the provider's
// code; the message names the cause and details keep the provider's
// detail plus cause, which the window reads to offer Connections.
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
				Error struct {
					Code    string         `json:"code"`
					Message string         `json:"message"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}
			r.call(&run, "agent.getRun", h.RunID)
			e := run.Error
			if e.Code != agent.CodeModelRequestFailed || e.Details["cause"] != c.cause || e.Details["status"] != c.status || !strings.Contains(e.Message, c.cause) {
				t.Fatalf("run error %+v, want %s with cause %s and status %v", e, agent.CodeModelRequestFailed, c.cause, c.status)
			}
			failed := r.waitEvent(h.RunID, "run_failed")
			if !strings.Contains(string(failed.Payload), `"code":"`+agent.CodeModelRequestFailed+`"`) {
				t.Fatalf("run_failed %s", failed.Payload)
			}
		})
	}
}
