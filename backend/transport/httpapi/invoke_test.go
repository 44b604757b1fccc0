package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestInvokeRoundTrip(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)

	res, body := do(t, nil, "POST", ts.URL+"/api/invoke",
		invokeBody(t, "characters.create", map[string]any{"name": "Seraphina", "first_mes": "Hello"}), jsonHeader)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("create: status %d: %s", res.StatusCode, body)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	var created struct {
		Result struct {
			Avatar string `json:"avatar"`
			Name   string `json:"name"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &created); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	if created.Result.Avatar != "Seraphina.png" {
		t.Errorf("avatar = %q, want Seraphina.png (body %s)", created.Result.Avatar, body)
	}

	out, err := NewClient(ts.URL, testToken).Invoke(t.Context(), "characters.list", nil)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	var list []map[string]any
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("decode %s: %v", out, err)
	}
	if len(list) != 1 || list[0]["avatar"] != "Seraphina.png" {
		t.Errorf("list = %s", out)
	}
}

func TestInvokeErrors(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)
	tests := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"unknown method", invokeBody(t, "nope.nothing"), http.StatusNotFound, apperr.CodeUnknownMethod},
		{"validation", invokeBody(t, "characters.create", map[string]any{"name": 42}), http.StatusBadRequest, apperr.CodeInvalidArgument},
		{"missing name", invokeBody(t, "characters.create", map[string]any{}), http.StatusBadRequest, apperr.CodeInvalidArgument},
		{"not found", invokeBody(t, "characters.get", "Nobody.png"), http.StatusNotFound, apperr.CodeCharacterNotFound},
		{"args not an array", `{"method":"characters.list","args":{"a":1}}`, http.StatusBadRequest, apperr.CodeInvalidArgument},
		{"malformed body", `{"method":`, http.StatusBadRequest, apperr.CodeInvalidArgument},
		{"no method", `{"args":[]}`, http.StatusBadRequest, apperr.CodeInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, body := do(t, nil, "POST", ts.URL+"/api/invoke", tt.body, jsonHeader)
			wantError(t, res, body, tt.status, tt.code)
		})
	}
}

func TestInvokeBodyTooLarge(t *testing.T) {
	t.Parallel()
	a, _, ts := serveApp(t, nil, func(s *Server) { s.maxBody = 1 << 10 })
	big := invokeBody(t, "characters.create", map[string]any{"name": "Big", "description": strings.Repeat("x", 2<<10)})
	res, body := do(t, nil, "POST", ts.URL+"/api/invoke", big, jsonHeader)
	e := wantError(t, res, body, http.StatusRequestEntityTooLarge, CodeTooLarge)
	if e.Details["limit"] != float64(1<<10) {
		t.Errorf("details = %v", e.Details)
	}
	if list, _ := a.Characters.List(t.Context()); len(list) != 0 {
		t.Errorf("oversized create still wrote %d characters", len(list))
	}
}

func TestStatusFor(t *testing.T) {
	t.Parallel()
	tests := map[string]int{
		apperr.CodeInternal:        http.StatusInternalServerError,
		apperr.CodeInvalidArgument: http.StatusBadRequest,
		apperr.CodePatchTestFailed: http.StatusBadRequest,
		apperr.CodeChatNotFound:    http.StatusNotFound,
		apperr.CodeUnknownMethod:   http.StatusNotFound,
		apperr.CodeChatConflict:    http.StatusConflict,
		"state.conflict":           http.StatusConflict,
		apperr.CodeChatNameTaken:   http.StatusConflict,
		apperr.CodeAuthDenied:      http.StatusUnauthorized,
		"workspace.path_denied":    http.StatusForbidden,
		CodeRateLimited:            http.StatusTooManyRequests,
		CodeTooLarge:               http.StatusRequestEntityTooLarge,
		apperr.CodeLastSwipe:       http.StatusBadRequest,
	}
	for code, want := range tests {
		if got := statusFor(code); got != want {
			t.Errorf("statusFor(%q) = %d, want %d", code, got, want)
		}
	}
}

func TestUnknownAPIRoute(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)
	res, body := do(t, nil, "GET", ts.URL+"/api/nothing", "", nil)
	wantError(t, res, body, http.StatusNotFound, apperr.CodeUnknownMethod)
	res, body = do(t, nil, "GET", ts.URL+"/api/invoke", "", nil)
	wantError(t, res, body, http.StatusNotFound, apperr.CodeUnknownMethod)
}

// panicRouter panics on every call, as a handler bug outside the host
// router's own recovery would.
type panicRouter struct{}

func (panicRouter) Invoke(context.Context, string, []byte) ([]byte, error) { panic("router bug") }

// A panicking handler answers "internal" with a ref and closes its
// connection; the panic's text stays in the log.
func TestPanicAnswersInternal(t *testing.T) {
	t.Parallel()
	_, ts := serve(t, Config{Router: panicRouter{}})
	res, data := do(t, nil, "POST", ts.URL+"/api/invoke", `{"method":"characters.list","args":[]}`, jsonHeader)
	var body struct{ Error *apperr.Error }
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusInternalServerError || body.Error == nil || body.Error.Code != apperr.CodeInternal ||
		body.Error.Details["ref"] == nil || strings.Contains(body.Error.Message, "router bug") {
		t.Fatalf("status %d, error %+v", res.StatusCode, body.Error)
	}
	if !res.Close {
		t.Fatal("the connection should close after a panic")
	}
}
