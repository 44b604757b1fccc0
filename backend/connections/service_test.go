package connections

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/backend/events"
	"hearth/backend/events/eventstest"
	"hearth/backend/providers"
	"hearth/backend/providers/providertest"
	"hearth/backend/store"
)

// rig is a Service over a real SQLite database and secrets file in a temp
// dir, with the events it published.
type rig struct {
	t       *testing.T
	svc     *Service
	secrets string
	bus     *events.Bus
	rec     *eventstest.Recorder
}

func newRig(t *testing.T) *rig {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, secrets: filepath.Join(dir, "secrets.json"), bus: events.NewBus()}
	r.rec = eventstest.Record(t, r.bus)
	t.Cleanup(func() { db.Close() })
	r.svc = New(db, r.bus, NewSecrets(r.secrets), time.Now)
	return r
}

// published returns the events since the last call, once all are delivered.
func (r *rig) published() []events.Event {
	r.t.Helper()
	return r.rec.Take(r.t)
}

// file reads the secrets file as stored.
func (r *rig) file() map[string]secret {
	r.t.Helper()
	m, err := NewSecrets(r.secrets).all()
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

func ptr(s string) *string { return &s }

// A stored key is bound to the origin and provider it was entered for: a
// save that keeps both (however the address is written) keeps the key, a
// save that changes either drops it unless it brings a key of its own.
func TestSaveKeepsTheKeyOnlyForItsOrigin(t *testing.T) {
	t.Parallel()
	const key = "sk-bound-0123456789"
	cases := []struct {
		name     string
		provider string
		base     string
		in       Input
		keep     bool
		// newKey: the save brought a key, bound to its origin.
		newKey string
	}{
		{"rename", "openai-compatible", "http://127.0.0.1:8080/v1", Input{Name: ptr("Renamed")}, true, ""},
		{"another path", "openai-compatible", "http://127.0.0.1:8080/v1", Input{BaseURL: ptr("http://127.0.0.1:8080/api/v2")}, true, ""},
		{"trailing slash", "openai-compatible", "http://127.0.0.1:8080/v1", Input{BaseURL: ptr("http://127.0.0.1:8080/v1/")}, true, ""},
		{"host case", "openai-compatible", "https://api.example.com/v1", Input{BaseURL: ptr("HTTPS://API.Example.COM/v1")}, true, ""},
		{"default https port", "openai-compatible", "https://api.example.com/v1", Input{BaseURL: ptr("https://api.example.com:443/v1")}, true, ""},
		{"default http port", "openai-compatible", "http://localhost/v1", Input{BaseURL: ptr("http://localhost:80/v1")}, true, ""},
		{"empty is the default", "anthropic", "", Input{BaseURL: ptr("https://api.anthropic.com/")}, true, ""},
		{"default to empty", "google", "https://generativelanguage.googleapis.com", Input{BaseURL: ptr("")}, true, ""},
		{"another port", "openai-compatible", "http://127.0.0.1:8080/v1", Input{BaseURL: ptr("http://127.0.0.1:8081/v1")}, false, ""},
		{"another host", "openai-compatible", "https://api.example.com/v1", Input{BaseURL: ptr("https://evil.example.net/v1")}, false, ""},
		{"a subdomain", "openai-compatible", "https://example.com/v1", Input{BaseURL: ptr("https://api.example.com/v1")}, false, ""},
		{"localhost for 127.0.0.1", "openai-compatible", "http://127.0.0.1:8080/v1", Input{BaseURL: ptr("http://localhost:8080/v1")}, false, ""},
		{"https to http", "openai-compatible", "https://api.example.com/v1", Input{BaseURL: ptr("http://api.example.com/v1")}, false, ""},
		{"https port to http", "openai-compatible", "https://api.example.com/v1", Input{BaseURL: ptr("http://api.example.com:443/v1")}, false, ""},
		{"away from the default", "anthropic", "", Input{BaseURL: ptr("https://proxy.example/anthropic")}, false, ""},
		{"another provider, same address", "openai-compatible", "https://proxy.example/v1", Input{Provider: ptr("anthropic")}, false, ""},
		{"another provider, both defaults", "anthropic", "", Input{Provider: ptr("google")}, false, ""},
		{"another host with a key", "openai-compatible", "http://127.0.0.1:8080/v1", Input{BaseURL: ptr("http://127.0.0.1:9090/v1"), APIKey: ptr("sk-new")}, false, "sk-new"},
		{"another provider with the same key", "openai-compatible", "https://proxy.example/v1", Input{Provider: ptr("anthropic"), APIKey: ptr(key)}, false, key},
		{"the key removed", "openai-compatible", "http://127.0.0.1:8080/v1", Input{APIKey: ptr("")}, false, ""},
		{"null keeps", "openai-compatible", "http://127.0.0.1:8080/v1", Input{APIKey: nil, Model: ptr("m2")}, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			ctx := context.Background()
			saved, err := r.svc.Save(ctx, Input{Name: ptr("C"), Provider: ptr(c.provider), BaseURL: ptr(c.base), Model: ptr("m"), APIKey: ptr(key)})
			if err != nil || !saved.APIKeySet {
				t.Fatalf("first save: %+v, %v", saved, err)
			}
			r.published()
			c.in.ID = &saved.ID
			got, err := r.svc.Save(ctx, c.in)
			if err != nil {
				t.Fatal(err)
			}
			wantSet := c.keep || c.newKey != ""
			if got.APIKeySet != wantSet {
				t.Errorf("save answered apiKeySet %v, want %v", got.APIKeySet, wantSet)
			}
			again, err := r.svc.Get(ctx, saved.ID)
			if err != nil || again.APIKeySet != wantSet {
				t.Errorf("get: %+v, %v", again, err)
			}
			list, err := r.svc.List(ctx)
			if err != nil || len(list) != 1 || list[0].APIKeySet != wantSet {
				t.Errorf("list: %+v, %v", list, err)
			}
			e := r.file()[saved.ID]
			origin, _ := providers.Origin(got.Provider, got.BaseURL)
			switch {
			case c.keep && e.Key != key, c.newKey != "" && e.Key != c.newKey, !wantSet && e.Key != "":
				t.Errorf("the file holds %q", e.Key)
			case wantSet && !e.bound(got.Provider, origin):
				t.Errorf("the key is bound to %s %s, the connection is %s %s", e.Provider, e.Origin, got.Provider, origin)
			}
			if evs := r.published(); len(evs) != 1 || evs[0].Type != events.ConnectionsChanged {
				t.Errorf("events %+v, want one CONNECTIONS_CHANGED", evs)
			}
		})
	}
}

// A refused save leaves the key where it was, and says nothing.
func TestRefusedSaveKeepsTheKey(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	saved, err := r.svc.Save(ctx, Input{Name: ptr("C"), Provider: ptr("openai-compatible"), BaseURL: ptr("http://127.0.0.1:8080/v1"), APIKey: ptr("sk-1")})
	if err != nil {
		t.Fatal(err)
	}
	r.published()
	before := r.file()
	for _, in := range []Input{
		{ID: &saved.ID, BaseURL: ptr("http://127.0.0.1:9/v1"), Name: ptr(" ")},
		{ID: &saved.ID, BaseURL: ptr("ftp://127.0.0.1:9/v1")},
		{ID: &saved.ID, Provider: ptr("anthropic"), Headers: map[string]string{"X-Auth-Token": "t"}},
		{ID: &saved.ID, BaseURL: ptr("")},
	} {
		if _, err := r.svc.Save(ctx, in); err == nil {
			t.Fatalf("save %+v succeeded", in)
		}
	}
	if after := r.file(); len(after) != 1 || after[saved.ID] != before[saved.ID] {
		t.Fatalf("the file changed: %+v, was %+v", after, before)
	}
	if evs := r.published(); len(evs) != 0 {
		t.Fatalf("refused saves published %+v", evs)
	}
}

// A key bound to another origin than its connection's (a save cut short
// between the key and the row, an edited file) is never sent, and not
// reported as set.
func TestKeyBoundElsewhereIsNotSent(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	srv := providertest.NewOpenAI()
	t.Cleanup(srv.Close)
	srv.Models = []string{"m"}
	c, err := r.svc.Save(ctx, Input{Name: ptr("C"), Provider: ptr("openai-compatible"), BaseURL: ptr(srv.URL), Model: ptr("m")})
	if err != nil {
		t.Fatal(err)
	}
	const key = "sk-for-another-server-0123"
	for _, e := range []secret{
		{Key: key, Origin: "http://127.0.0.1:1", Provider: "openai-compatible"},
		{Key: key, Origin: strings.TrimSuffix(srv.URL, "/v1"), Provider: "anthropic"},
		{Key: key}, // unbound: only Prune binds
	} {
		if _, err := r.svc.secrets.set(c.ID, e); err != nil {
			t.Fatal(err)
		}
		got, err := r.svc.Get(ctx, c.ID)
		if err != nil || got.APIKeySet {
			t.Errorf("%+v: get %+v, %v", e, got, err)
		}
		res, err := r.svc.Test(ctx, c.ID)
		if err != nil || !res.OK {
			t.Fatalf("%+v: test %+v, %v", e, res, err)
		}
	}
	for _, req := range srv.Requests() {
		for name, vals := range req.Header {
			if strings.Contains(strings.Join(vals, " "), key) {
				t.Errorf("the server got the key in %s", name)
			}
		}
	}
	if len(srv.Requests()) != 3 {
		t.Fatalf("requests %d", len(srv.Requests()))
	}
	// The matching binding is sent.
	origin, _ := providers.Origin("openai-compatible", srv.URL)
	if _, err := r.svc.secrets.set(c.ID, secret{Key: key, Origin: origin, Provider: "openai-compatible"}); err != nil {
		t.Fatal(err)
	}
	if res, err := r.svc.Test(ctx, c.ID); err != nil || !res.OK {
		t.Fatalf("test %+v, %v", res, err)
	}
	if got := srv.Requests()[3].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("the bound key was not sent: %q", got)
	}
}

// Prune, run when Hearth opens, binds the keys of a file written before
// keys were bound to their connection's origin, and drops the keys of
// missing connections and keys bound elsewhere.
func TestPruneBindsKeysFromBeforeBindings(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	local, err := r.svc.Save(ctx, Input{Name: ptr("Local"), Provider: ptr("openai-compatible"), BaseURL: ptr("http://127.0.0.1:8080/v1")})
	if err != nil {
		t.Fatal(err)
	}
	claude, err := r.svc.Save(ctx, Input{Name: ptr("Claude"), Provider: ptr("anthropic")})
	if err != nil {
		t.Fatal(err)
	}
	moved, err := r.svc.Save(ctx, Input{Name: ptr("Moved"), Provider: ptr("openai-compatible"), BaseURL: ptr("http://127.0.0.1:9000/v1")})
	if err != nil {
		t.Fatal(err)
	}
	legacy := map[string]any{
		local.ID:  "sk-local",
		claude.ID: "sk-ant",
		moved.ID:  map[string]string{"key": "sk-moved", "origin": "http://127.0.0.1:1", "provider": "openai-compatible"},
		"gone":    "sk-gone",
	}
	raw, _ := json.Marshal(legacy)
	if err := os.WriteFile(r.secrets, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.svc.Get(ctx, local.ID); got.APIKeySet {
		t.Fatal("an unbound key counted before Prune")
	}
	if err := r.svc.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]secret{
		local.ID:  {Key: "sk-local", Origin: "http://127.0.0.1:8080", Provider: "openai-compatible"},
		claude.ID: {Key: "sk-ant", Origin: "https://api.anthropic.com", Provider: "anthropic"},
	}
	got := r.file()
	if len(got) != len(want) || got[local.ID] != want[local.ID] || got[claude.ID] != want[claude.ID] {
		t.Fatalf("after Prune %+v, want %+v", got, want)
	}
	list, _ := r.svc.List(ctx)
	for _, c := range list {
		if c.APIKeySet != (c.ID != moved.ID) {
			t.Errorf("%s: apiKeySet %v", c.Name, c.APIKeySet)
		}
	}
	// Bound now, the key is dropped when the address moves.
	if c, err := r.svc.Save(ctx, Input{ID: &local.ID, BaseURL: ptr("http://127.0.0.1:8081/v1")}); err != nil || c.APIKeySet {
		t.Fatalf("after moving: %+v, %v", c, err)
	}
	// A second Prune has nothing to do.
	before, _ := os.ReadFile(r.secrets)
	if err := r.svc.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(r.secrets); string(after) != string(before) {
		t.Fatal("a second Prune rewrote the file")
	}
}

// Custom headers are stored in the clear and returned by get, so names
// that carry credentials are refused, and the error says where the key
// goes instead.
func TestCredentialHeadersAreRefused(t *testing.T) {
	t.Parallel()
	refused := []string{
		"Authorization", "proxy-authorization", "Cookie", "X-Api-Key", "api-key", "x-goog-api-key",
		"X-Auth-Token", "X-Access-Token", "Ocp-Apim-Subscription-Key", "Cf-Access-Client-Secret", "CF-Access-Client-Id-Secret",
		"X-Amz-Security-Token", "Helicone-Auth", "X-Portkey-Api-Key", "apikey", "X_API_KEY", "X-Session-Token", "X-Session-Id",
		"X-Password", "X-Passwd", "X-Client-Credential", "DPoP", "Private-Token", "X-Vault-Token", "X-Functions-Key", "Set-Cookie",
		"X-Signature",
	}
	for _, h := range refused {
		err := checkHeaders(map[string]string{h: "value"})
		if err == nil {
			t.Errorf("%s was accepted", h)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, h) || !strings.Contains(msg, "apiKey") || !strings.Contains(msg, "stored in the clear") {
			t.Errorf("%s: the error does not say why and where the key goes: %s", h, msg)
		}
	}
	allowed := []string{"HTTP-Referer", "X-Title", "anthropic-version", "anthropic-beta", "OpenAI-Organization", "OpenAI-Project", "User-Agent", "X-Request-Id", "Accept-Language"}
	for _, h := range allowed {
		if err := checkHeaders(map[string]string{h: "value"}); err != nil {
			t.Errorf("%s was refused: %v", h, err)
		}
	}
}
