package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// The Client is an Invoker: the same calls through it and through the
// router give the same bytes and the same error codes.
func TestClientMatchesRouter(t *testing.T) {
	t.Parallel()
	a, _, ts := serveApp(t, nil)
	var viaHTTP Invoker = NewClient(ts.URL, testToken)
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
	_, err := NewClient(proxy.URL, testToken).Invoke(t.Context(), "characters.list", nil)
	e := apperr.As(err)
	if e == nil || e.Code != apperr.CodeInternal || !bytes.Contains([]byte(e.Message), []byte("bad gateway")) {
		t.Errorf("non-API error body: %v", err)
	}

	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if _, err := NewClient(dead.URL, testToken).Invoke(t.Context(), "characters.list", nil); apperr.CodeOf(err) != apperr.CodeInternal {
		t.Errorf("unreachable server: %v", err)
	}
}

// The invoke answer declares its exact length, and the client reads by it:
// a body cut short of it is an error, not a truncated result; a declared
// length past maxPresize reserves nothing up front and still reads.
func TestClientReadsByDeclaredLength(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)
	res, body := do(t, nil, "POST", ts.URL+"/api/invoke", invokeBody(t, "characters.list"), jsonHeader)
	if res.StatusCode != http.StatusOK || res.ContentLength != int64(len(body)) || string(body) != `{"result":[]}` {
		t.Fatalf("answer: status %d, Content-Length %d, body %q", res.StatusCode, res.ContentLength, body)
	}

	short := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "40")
		_, _ = w.Write([]byte(`{"result":[1,2,3]}`))
	}))
	t.Cleanup(short.Close)
	if out, err := NewClient(short.URL, testToken).Invoke(t.Context(), "characters.list", nil); apperr.CodeOf(err) != apperr.CodeInternal {
		t.Errorf("a body shorter than its Content-Length: %s, %v", out, err)
	}

	resp := &http.Response{ContentLength: maxPresize + 1, Body: io.NopCloser(strings.NewReader(`{"result":7}`))}
	if data, err := readBody(resp); err != nil || string(data) != `{"result":7}` {
		t.Errorf("a declared length past maxPresize: %q, %v", data, err)
	}
}
