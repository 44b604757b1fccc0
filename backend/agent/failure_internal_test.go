package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// TestRunFailureBoundsDetails: what a failed run reports keeps the
// error's scalar details, cut to size, so its run_failed payload always
// marshals (a NaN would keep the event, and the failed status, from being
// stored) and a nested value (a tool's arguments) never reaches the bus.
func TestRunFailureBoundsDetails(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxFailureDetailBytes)
	many := map[string]any{"cause": "model.auth_failed"}
	for i := range 2 * maxFailureDetails {
		many[fmt.Sprintf("k%02d", i)] = i
	}
	for _, c := range []struct {
		name string
		in   map[string]any
		want map[string]any
	}{
		{"scalars kept", map[string]any{"cause": "model.auth_failed", "status": 401, "retryAfterMs": int64(1500), "ok": false, "ratio": 0.5, "none": nil},
			map[string]any{"cause": "model.auth_failed", "status": 401, "retryAfterMs": int64(1500), "ok": false, "ratio": 0.5, "none": nil}},
		{"nested and non-finite dropped", map[string]any{"path": "a.md", "pending": map[string]any{"args": "x"}, "files": []string{"a"}, "nan": math.NaN(), "inf": math.Inf(1)},
			map[string]any{"path": "a.md"}},
		{"nothing left", map[string]any{"pending": map[string]any{}}, nil},
		{"none", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := runFailure(apperr.New("x.y", "m").WithDetails(c.in)).Details
			if fmt.Sprint(got) != fmt.Sprint(c.want) || (got == nil) != (c.want == nil) {
				t.Fatalf("details %v, want %v", got, c.want)
			}
		})
	}

	got := runFailure(apperr.New("x.y", "m").WithDetails(map[string]any{"providerMessage": long})).Details["providerMessage"].(string)
	if len(got) > maxFailureDetailBytes+len("…") || !strings.HasSuffix(got, "…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Fatalf("a long string is cut at a rune boundary and marked; got %d bytes", len(got))
	}

	bounded := runFailure(apperr.New("x.y", "m").WithDetails(many)).Details
	if len(bounded) != maxFailureDetails || bounded["cause"] != "model.auth_failed" || bounded["k00"] != 0 {
		t.Fatalf("at most %d members, cause first: %v", maxFailureDetails, bounded)
	}

	in := map[string]any{"cause": "model.auth_failed", "nan": math.NaN()}
	shared := apperr.New("x.y", "m").WithDetails(in)
	ae := runFailure(fmt.Errorf("wrapped: %w", shared))
	if ae == shared || len(in) != 2 || ae.Code != "x.y" || ae.Message != "m" {
		t.Fatalf("runFailure must leave the error it was given alone: %+v, %v", ae, in)
	}
	if _, err := json.Marshal(failedPayload(ae)); err != nil {
		t.Fatalf("run_failed's payload must marshal: %v", err)
	}
	if p := failedPayload(runFailure(errors.New("disk full"))); p["code"] != apperr.CodeInternal || p["message"] != "disk full" || p["details"] != nil {
		t.Fatalf("a foreign error fails the run as internal with its text and no details: %v", p)
	}
}
