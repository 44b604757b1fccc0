package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"hearth/backend/apperr"
)

// The Client is an Invoker: the same calls through it and through the
// router give the same bytes and the same error codes.
func TestClientMatchesRouter(t *testing.T) {
	t.Parallel()
	a, _, ts := serveApp(t, nil)
	var viaHTTP Invoker = NewClient(ts.URL)
	var inProcess Invoker = a.Router

	create, _ := json.Marshal([]any{map[string]any{"name": "Twin"}})
	if _, err := viaHTTP.Invoke(t.Context(), "characters.create", create); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		method string
		args   string
	}{
		{"characters.list", ""},
		{"characters.get", `["Twin.png"]`},
		{"characters.get", `["Nobody.png"]`},
		{"characters.get", `[7]`},
		{"characters.get", `{"not":"an array"}`},
		{"characters.get", `[1,`},
		{"no.such_method", "[]"},
	}
	for _, c := range calls {
		want, wantErr := inProcess.Invoke(t.Context(), c.method, []byte(c.args))
		got, gotErr := viaHTTP.Invoke(t.Context(), c.method, []byte(c.args))
		if !bytes.Equal(got, want) {
			t.Errorf("%s(%s): HTTP %s, router %s", c.method, c.args, got, want)
		}
		if apperr.CodeOf(gotErr) != apperr.CodeOf(wantErr) {
			t.Errorf("%s(%s): HTTP error %v, router error %v", c.method, c.args, gotErr, wantErr)
		}
		if gotErr != nil {
			if _, ok := gotErr.(*apperr.Error); !ok {
				t.Errorf("%s: error %T is not *apperr.Error", c.method, gotErr)
			}
		}
	}
}

func TestClientTransportErrors(t *testing.T) {
	t.Parallel()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad gateway from a proxy", http.StatusBadGateway)
	}))
	t.Cleanup(proxy.Close)
	_, err := NewClient(proxy.URL).Invoke(t.Context(), "characters.list", nil)
	e := apperr.As(err)
	if e == nil || e.Code != apperr.CodeInternal || !bytes.Contains([]byte(e.Message), []byte("bad gateway")) {
		t.Errorf("non-API error body: %v", err)
	}

	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if _, err := NewClient(dead.URL).Invoke(t.Context(), "characters.list", nil); apperr.CodeOf(err) != apperr.CodeInternal {
		t.Errorf("unreachable server: %v", err)
	}
}
