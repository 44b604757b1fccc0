package wailsbridge

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"hearth/backend/apperr"
)

// fakeRouter records calls and answers with canned results.
type fakeRouter struct {
	calls  []string
	result []byte
	err    error
}

func (f *fakeRouter) Invoke(_ context.Context, method string, rawArgs []byte) ([]byte, error) {
	f.calls = append(f.calls, method+" "+string(rawArgs))
	return f.result, f.err
}

func decodeWire(t *testing.T, err error) apperr.Error {
	t.Helper()
	if err == nil {
		t.Fatal("want an error, got nil")
	}
	var shape apperr.Error
	if jerr := json.Unmarshal([]byte(err.Error()), &shape); jerr != nil {
		t.Fatalf("error text %q is not the JSON shape: %v", err.Error(), jerr)
	}
	return shape
}

func TestBridgeInvoke(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef"
	tests := []struct {
		name       string
		bridge     func(*fakeRouter) *Bridge
		token      string
		router     fakeRouter
		want       string
		wantCode   string
		wantCalled bool
	}{
		{name: "right token", token: token, router: fakeRouter{result: []byte(`[{"avatar":"a.png"}]`)}, want: `[{"avatar":"a.png"}]`, wantCalled: true},
		{name: "empty result is null", token: token, router: fakeRouter{}, want: "null", wantCalled: true},
		{name: "wrong token", token: "0123456789abcdeF", wantCode: apperr.CodeAuthDenied},
		{name: "prefix of token", token: token[:8], wantCode: apperr.CodeAuthDenied},
		{name: "no token", token: "", wantCode: apperr.CodeAuthDenied},
		{
			name: "zero bridge refuses even an empty token", token: "",
			bridge:   func(r *fakeRouter) *Bridge { return &Bridge{router: r} },
			wantCode: apperr.CodeAuthDenied,
		},
		{
			name: "host error keeps code and details", token: token,
			router:     fakeRouter{err: apperr.New(apperr.CodeChatConflict, "stale").WithDetails(map[string]any{"currentRevision": 4})},
			wantCode:   apperr.CodeChatConflict,
			wantCalled: true,
		},
		{name: "foreign error becomes internal", token: token, router: fakeRouter{err: errors.New("disk on fire")}, wantCode: apperr.CodeInternal, wantCalled: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			router := tc.router
			b := New(context.Background(), &router, token)
			if tc.bridge != nil {
				b = tc.bridge(&router)
			}
			got, err := b.Invoke(tc.token, "characters.list", `[1]`)
			if called := len(router.calls) > 0; called != tc.wantCalled {
				t.Fatalf("router called = %v, want %v", called, tc.wantCalled)
			}
			if tc.wantCode != "" {
				if shape := decodeWire(t, err); shape.Code != tc.wantCode {
					t.Fatalf("code = %q, want %q (error %s)", shape.Code, tc.wantCode, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got != tc.want {
				t.Fatalf("result = %s, want %s", got, tc.want)
			}
			if router.calls[0] != "characters.list [1]" {
				t.Fatalf("router saw %q", router.calls[0])
			}
		})
	}
}

func TestBridgeErrorDetails(t *testing.T) {
	t.Parallel()
	router := &fakeRouter{err: apperr.New(apperr.CodeChatConflict, "stale").WithDetails(map[string]any{"currentRevision": 4})}
	_, err := New(context.Background(), router, "t").Invoke("t", "chat.patch", "[]")
	shape := decodeWire(t, err)
	if shape.Message != "stale" || shape.Details["currentRevision"] != float64(4) {
		t.Fatalf("shape = %+v", shape)
	}
	var wire *Error
	if !errors.As(err, &wire) || apperr.CodeOf(err) != apperr.CodeChatConflict {
		t.Fatalf("error %T does not unwrap to the host error", err)
	}
}

func TestNewToken(t *testing.T) {
	t.Parallel()
	a, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewToken()
	if len(a) != 2*tokenBytes || a == b {
		t.Fatalf("tokens %q and %q: want distinct %d-char tokens", a, b, 2*tokenBytes)
	}
}

// panicRouter panics on every call, as a buggy handler outside the host
// router's own recovery would.
type panicRouter struct{}

func (panicRouter) Invoke(context.Context, string, []byte) ([]byte, error) { panic("boom") }

// A panic must not reach Wails' dispatcher, which logs the raw IPC message
// (token included); the call fails as "internal" instead.
func TestBridgeInvokeRecovers(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef"
	b := New(context.Background(), panicRouter{}, token)
	out, err := b.Invoke(token, "characters.list", "[]")
	if shape := decodeWire(t, err); out != "" || shape.Code != apperr.CodeInternal || shape.Details["ref"] == nil {
		t.Fatalf("Invoke = %q, %+v; want internal with a ref", out, shape)
	}
}
