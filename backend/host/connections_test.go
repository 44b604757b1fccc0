package host_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/app"
	"hearth/backend/app/apptest"
	"hearth/backend/apperr"
	"hearth/backend/providers/providertest"
)

type connDTO struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Provider  string            `json:"provider"`
	BaseURL   string            `json:"baseUrl"`
	Model     string            `json:"model"`
	Headers   map[string]string `json:"headers"`
	APIKeySet bool              `json:"apiKeySet"`
}

func secretsFile(e *apptest.Env) string { return filepath.Join(e.App.DataDir, "secrets.json") }

// The key goes in, is used, and never comes back out: not from save, get,
// list or active, and not in the database file.
func TestConnectionKeysAreWriteOnly(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	srv := providertest.NewOpenAI()
	t.Cleanup(srv.Close)
	srv.Models = []string{"llama-3.1-8b"}
	const key = "sk-hearth-secret-123456"

	var c connDTO
	e.Must(&c, "connections.save", map[string]any{"name": "Local llama", "provider": "openai-compatible", "baseUrl": srv.URL,
		"model": "llama-3.1-8b", "apiKey": key, "headers": map[string]string{"HTTP-Referer": "https://hearth.invalid"}})
	if c.ID == "" || !c.APIKeySet || c.BaseURL != srv.URL || c.Headers["HTTP-Referer"] != "https://hearth.invalid" {
		t.Fatalf("saved %+v", c)
	}
	for _, call := range []struct {
		method string
		args   []any
	}{{"connections.get", []any{c.ID}}, {"connections.list", nil}, {"connections.select", []any{c.ID}}, {"connections.active", nil}} {
		out, err := e.Call(call.method, call.args...)
		if err != nil {
			t.Fatalf("%s: %v", call.method, err)
		}
		if strings.Contains(string(out), key) || strings.Contains(string(out), "apiKey\"") {
			t.Fatalf("%s returned the key: %s", call.method, out)
		}
		if !strings.Contains(string(out), `"apiKeySet":true`) {
			t.Fatalf("%s: %s", call.method, out)
		}
	}
	var models []string
	e.Must(&models, "connections.models", c.ID)
	if len(models) != 1 || models[0] != "llama-3.1-8b" {
		t.Fatalf("models %v", models)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("the server got Authorization %q", got)
	}
	info, err := os.Stat(secretsFile(e))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file mode %v, want 0600", info.Mode().Perm())
	}
	db, err := os.ReadFile(filepath.Join(e.App.DataDir, "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(db), key) {
		t.Fatal("the key is in the database file")
	}

	// Absent apiKey keeps the key; "" removes it.
	e.Must(&c, "connections.save", map[string]any{"id": c.ID, "name": "Renamed"})
	if !c.APIKeySet || c.Name != "Renamed" || c.Model != "llama-3.1-8b" {
		t.Fatalf("after a rename %+v", c)
	}
	e.Must(&c, "connections.save", map[string]any{"id": c.ID, "apiKey": ""})
	if c.APIKeySet {
		t.Fatal("apiKey \"\" kept the key")
	}
	raw, _ := os.ReadFile(secretsFile(e))
	if strings.Contains(string(raw), key) {
		t.Fatal("the removed key is still in the secrets file")
	}
}

func TestConnectionValidationChangesNothing(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	var c connDTO
	e.Must(&c, "connections.save", map[string]any{"name": "A", "provider": "anthropic", "apiKey": "sk-ant-1"})
	before, _ := os.ReadFile(secretsFile(e))
	bad := []map[string]any{
		{"name": "", "provider": "anthropic"},
		{"name": "x", "provider": "palm"},
		{"name": "x", "provider": "openai-compatible"},
		{"name": "x", "provider": "openai-compatible", "baseUrl": "file:///etc/passwd"},
		{"name": "x", "provider": "openai-compatible", "baseUrl": "https://user:pw@example.com/v1"},
		{"name": "x", "provider": "anthropic", "headers": map[string]string{"Authorization": "Bearer sk"}},
		{"name": "x", "provider": "anthropic", "headers": map[string]string{"X-Bad\n": "v"}},
		{"name": "x", "provider": "anthropic", "headers": map[string]string{"X-Ok": "a\r\nInjected: 1"}},
		{"name": "x", "provider": "anthropic", "apiKey": "sk\nnewline"},
		{"name": strings.Repeat("n", 201), "provider": "anthropic"},
		{"id": c.ID, "name": " ", "apiKey": "sk-ant-2"},
	}
	for i, in := range bad {
		_, err := e.Call("connections.save", in)
		if apptest.Code(err) != "validation.invalid_argument" {
			t.Errorf("input %d: error %v", i, err)
		}
	}
	if _, err := e.Call("connections.save", map[string]any{"id": "missing", "name": "x", "apiKey": "sk-ant-3"}); apptest.Code(err) != "connection.not_found" {
		t.Errorf("update of a missing id: %v", err)
	}
	var list []connDTO
	e.Must(&list, "connections.list")
	if len(list) != 1 || list[0].Name != "A" {
		t.Fatalf("list after refused saves: %+v", list)
	}
	after, _ := os.ReadFile(secretsFile(e))
	if string(after) != string(before) {
		t.Fatalf("a refused save changed the secrets file:\n%s\n%s", before, after)
	}
	for _, m := range []string{"connections.get", "connections.delete", "connections.test", "connections.models", "connections.select"} {
		if _, err := e.Call(m, "nope"); apptest.Code(err) != "connection.not_found" {
			t.Errorf("%s of a missing id: %v", m, err)
		}
	}
	if _, err := e.Call("connections.get", 5); apptest.Code(err) != "validation.invalid_argument" {
		t.Errorf("get(5): %v", err)
	}
}

func TestConnectionSelectDeleteAndTest(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	good := providertest.NewOpenAI()
	t.Cleanup(good.Close)
	good.Models = []string{"m1", "m2"}
	var a, b connDTO
	e.Must(&a, "connections.save", map[string]any{"name": "Good", "provider": "openai-compatible", "baseUrl": good.URL, "model": "m1", "apiKey": "sk-a"})
	e.Must(&b, "connections.save", map[string]any{"name": "Refused", "provider": "anthropic", "baseUrl": good.URL + "/nothing-here", "model": "c"})

	var res struct {
		OK     bool `json:"ok"`
		Models *int `json:"models"`
		Error  *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	e.Must(&res, "connections.test", a.ID)
	if !res.OK || res.Models == nil || *res.Models != 2 {
		t.Fatalf("test of a working connection: %+v", res)
	}
	res.OK, res.Models = false, nil
	e.Must(&res, "connections.test", b.ID)
	if res.OK || res.Error == nil || res.Error.Code != "model.request_failed" {
		t.Fatalf("test of a connection that answers 404: %+v", res)
	}

	var g connDTO
	e.Must(&g, "connections.save", map[string]any{"name": "Gemini", "provider": "google", "model": "gemini-2.5-flash"})
	res.OK, res.Error = true, nil
	e.Must(&res, "connections.test", g.ID)
	if res.OK || res.Error == nil || res.Error.Code != "validation.invalid_argument" {
		t.Fatalf("test of a Google connection without a key: %+v", res)
	}
	e.Must(nil, "connections.delete", g.ID)

	var active *connDTO
	e.Must(&active, "connections.active")
	if active != nil {
		t.Fatalf("active before any select: %+v", active)
	}
	e.Must(&active, "connections.select", a.ID)
	if active == nil || active.ID != a.ID {
		t.Fatalf("select returned %+v", active)
	}
	e.Must(&active, "connections.active")
	if active == nil || active.ID != a.ID {
		t.Fatalf("active %+v", active)
	}
	e.Must(nil, "connections.delete", b.ID)
	e.Must(&active, "connections.active")
	if active == nil || active.ID != a.ID {
		t.Fatal("deleting another connection cleared the active one")
	}
	e.Must(nil, "connections.delete", a.ID)
	e.Must(&active, "connections.active")
	if active != nil {
		t.Fatalf("the deleted connection is still active: %+v", active)
	}
	raw, _ := os.ReadFile(secretsFile(e))
	var keys map[string]string
	_ = json.Unmarshal(raw, &keys)
	if len(keys) != 0 {
		t.Fatalf("keys left after deleting every connection: %d", len(keys))
	}
	e.Must(&active, "connections.select", nil)
	if active != nil {
		t.Fatalf("select(null) returned %+v", active)
	}
}

// A key entered for one server is not sent to another: moving a
// connection's address drops its key (save answers apiKeySet false), and
// test() against the new server goes out without it (security issue 33,
// finding 2).
func TestConnectionKeyStaysWithItsServer(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	first, second := providertest.NewOpenAI(), providertest.NewOpenAI()
	t.Cleanup(first.Close)
	t.Cleanup(second.Close)
	first.Models, second.Models = []string{"m"}, []string{"m"}
	const key = "sk-only-for-the-first-server-42"

	var c connDTO
	e.Must(&c, "connections.save", map[string]any{"name": "Local", "provider": "openai-compatible", "baseUrl": first.URL, "model": "m", "apiKey": key})
	var res struct {
		OK bool `json:"ok"`
	}
	e.Must(&res, "connections.test", c.ID)
	if !res.OK || first.Requests()[0].Header.Get("Authorization") != "Bearer "+key {
		t.Fatalf("the first server did not get the key: %+v", res)
	}
	e.Events()

	e.Must(&c, "connections.save", map[string]any{"id": c.ID, "baseUrl": second.URL})
	if c.APIKeySet || c.BaseURL != second.URL {
		t.Errorf("after moving the address: %+v", c)
	}
	if evs := e.Events(); len(evs) != 1 || evs[0].Type != "connections_changed" {
		t.Fatalf("events %+v, want one CONNECTIONS_CHANGED", evs)
	}
	e.Must(&c, "connections.get", c.ID)
	if c.APIKeySet {
		t.Error("get still reports the dropped key")
	}
	e.Must(&res, "connections.test", c.ID)
	e.Must(nil, "connections.models", c.ID)
	reqs := second.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the second server got %d requests", len(reqs))
	}
	for _, r := range reqs {
		for name, vals := range r.Header {
			if strings.Contains(strings.Join(vals, " "), key) {
				t.Errorf("the second server got the key in %s %s", r.Method, name)
			}
		}
	}
	if raw, _ := os.ReadFile(secretsFile(e)); strings.Contains(string(raw), key) {
		t.Error("the dropped key is still in the secrets file")
	}

	// A key given in the same save goes with the new address.
	e.Must(&c, "connections.save", map[string]any{"id": c.ID, "baseUrl": first.URL, "apiKey": "sk-second-key"})
	if !c.APIKeySet {
		t.Fatalf("a key given with the new address was dropped: %+v", c)
	}
	e.Must(&res, "connections.test", c.ID)
	if got := first.Requests()[len(first.Requests())-1].Header.Get("Authorization"); got != "Bearer sk-second-key" {
		t.Fatalf("the new key was not sent: %q", got)
	}
}

// A secrets file written before keys were bound to an origin (id → key)
// keeps its keys when Hearth opens: each is bound to its connection's
// address then, and dropped when that address later moves.
func TestConnectionKeysFromBeforeBindingsSurviveAnUpgrade(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := providertest.NewOpenAI()
	t.Cleanup(srv.Close)
	srv.Models = []string{"m"}
	ctx := context.Background()
	call := func(a *app.App, dst any, method string, args ...any) {
		t.Helper()
		raw, _ := json.Marshal(args)
		out, err := a.Router.Invoke(ctx, method, raw)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if dst != nil {
			if err := json.Unmarshal(out, dst); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, err := app.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var c connDTO
	call(a, &c, "connections.save", map[string]any{"name": "Local", "provider": "openai-compatible", "baseUrl": srv.URL, "model": "m"})
	a.Close()
	path := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(path, []byte(`{"`+c.ID+`": "sk-from-an-older-hearth"}`), 0o600); err != nil {
		t.Fatal(err)
	}

	a, err = app.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	call(a, &c, "connections.get", c.ID)
	if !c.APIKeySet {
		t.Fatal("the key from before bindings was dropped")
	}
	raw, _ := os.ReadFile(path)
	var file map[string]struct {
		Key, Origin, Provider string
	}
	if err := json.Unmarshal(raw, &file); err != nil || file[c.ID].Origin != strings.TrimSuffix(srv.URL, "/v1") || file[c.ID].Provider != "openai-compatible" {
		t.Fatalf("the key was not bound on open: %v", err)
	}
	call(a, nil, "connections.models", c.ID)
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-from-an-older-hearth" {
		t.Fatalf("the kept key was not sent: %q", got)
	}
	call(a, &c, "connections.save", map[string]any{"id": c.ID, "baseUrl": "http://127.0.0.1:1/v1"})
	if c.APIKeySet {
		t.Fatal("the bound key survived a move to another server")
	}
}

// A wrong address reads as a sentence naming it, in a test's result, in
// the model list's error and in a failed generation, with the code it
// always had.
func TestConnectionWrongAddressReadsAsASentence(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(map[string]any{"is_user": true, "name": "User", "mes": "Hello?"})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	want := "Nothing answered at " + addr

	var c connDTO
	e.Must(&c, "connections.save", map[string]any{"name": "Nowhere", "provider": "openai-compatible", "baseUrl": "http://" + addr + "/v1", "model": "m"})
	var res struct {
		OK    bool `json:"ok"`
		Error *struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	e.Must(&res, "connections.test", c.ID)
	if res.OK || res.Error == nil || res.Error.Code != "model.unreachable" || res.Error.Message != want || res.Error.Details["address"] != addr {
		t.Fatalf("test: %+v", res.Error)
	}
	_, err = e.Call("connections.models", c.ID)
	if ae := apperr.As(err); ae == nil || ae.Code != "model.unreachable" || ae.Message != want {
		t.Fatalf("models: %v", err)
	}
	e.Must(nil, "connections.select", c.ID)
	_, err = e.Call("generate.run", map[string]any{"chatId": e.ChatID})
	if ae := apperr.As(err); ae == nil || ae.Code != "model.unreachable" || ae.Message != want {
		t.Fatalf("generate.run: %v", err)
	}
}

// probe lists a server's models before anything is saved, writes nothing
// and sends no event; with an id it sends the stored key only to the
// server that key was entered for.
func TestConnectionProbe(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	first, second := providertest.NewOpenAI(), providertest.NewOpenAI()
	t.Cleanup(first.Close)
	t.Cleanup(second.Close)
	first.Models, second.Models = []string{"m1", "m2"}, []string{"other"}
	type probe struct {
		OK     bool     `json:"ok"`
		Models []string `json:"models"`
		Error  *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}

	var res probe
	e.Must(&res, "connections.probe", map[string]any{"provider": "openai-compatible", "baseUrl": first.URL, "apiKey": "sk-typed"})
	if !res.OK || len(res.Models) != 2 || res.Models[0] != "m1" {
		t.Fatalf("probe of unsaved settings: %+v", res)
	}
	if got := first.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-typed" {
		t.Errorf("the typed key was not sent: %q", got)
	}
	var list []connDTO
	e.Must(&list, "connections.list")
	if len(list) != 0 {
		t.Fatalf("a probe saved a connection: %+v", list)
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Fatalf("a probe sent events: %+v", evs)
	}

	const key = "sk-stored-for-the-first-server"
	var c connDTO
	e.Must(&c, "connections.save", map[string]any{"name": "Local", "provider": "openai-compatible", "baseUrl": first.URL, "model": "m1", "apiKey": key})
	e.Events()
	res = probe{}
	e.Must(&res, "connections.probe", map[string]any{"id": c.ID})
	if !res.OK || first.Requests()[len(first.Requests())-1].Header.Get("Authorization") != "Bearer "+key {
		t.Fatalf("probe by id did not use the stored key: %+v", res)
	}
	res = probe{}
	e.Must(&res, "connections.probe", map[string]any{"id": c.ID, "baseUrl": second.URL})
	if !res.OK || len(res.Models) != 1 || res.Models[0] != "other" {
		t.Fatalf("probe of another address: %+v", res)
	}
	for _, r := range second.Requests() {
		if strings.Contains(r.Header.Get("Authorization"), key) {
			t.Fatal("the stored key went to a server it was not entered for")
		}
	}
	e.Must(&c, "connections.get", c.ID)
	if c.BaseURL != first.URL || !c.APIKeySet {
		t.Fatalf("a probe changed the connection: %+v", c)
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Fatalf("a probe sent events: %+v", evs)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	res = probe{}
	e.Must(&res, "connections.probe", map[string]any{"provider": "openai-compatible", "baseUrl": "http://" + addr + "/v1"})
	if res.OK || res.Models == nil || len(res.Models) != 0 || res.Error == nil || res.Error.Code != "model.unreachable" || res.Error.Message != "Nothing answered at "+addr {
		t.Fatalf("probe of a closed port: %+v", res)
	}

	for _, bad := range []map[string]any{
		{"provider": "openai-compatible"},
		{"provider": "openai-compatible", "baseUrl": "ftp://127.0.0.1/v1"},
		{"provider": "nope", "baseUrl": first.URL},
		{"provider": "openai-compatible", "baseUrl": first.URL, "headers": map[string]string{"X-Api-Key": "k"}},
	} {
		if _, err := e.Call("connections.probe", bad); apperr.CodeOf(err) != "validation.invalid_argument" {
			t.Errorf("probe(%v): %v, want validation.invalid_argument", bad, err)
		}
	}
	if _, err := e.Call("connections.probe", map[string]any{"id": "no-such-id"}); apperr.CodeOf(err) != "connection.not_found" {
		t.Errorf("probe of an unknown id: %v", err)
	}
}
