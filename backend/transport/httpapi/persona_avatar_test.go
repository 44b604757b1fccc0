package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A persona's avatarUrl serves its image, revalidated by content hash; a
// persona without one, a missing persona and a path trick are 404
// persona.not_found.
func TestPersonaAvatarServesImage(t *testing.T) {
	t.Parallel()
	a := openApp(t)
	_, ts := serve(t, Config{Router: a.Router, Bus: a.Bus, Avatars: a.Characters, PersonaAvatars: a.Personas})
	c := NewClient(ts.URL, testToken)
	save := func(in map[string]any) (id string, url *string) {
		t.Helper()
		args, _ := json.Marshal([]any{in})
		out, err := c.Invoke(t.Context(), "personas.save", args)
		if err != nil {
			t.Fatalf("save: %v", err)
		}
		var p struct {
			ID        string  `json:"id"`
			AvatarURL *string `json:"avatarUrl"`
		}
		if err := json.Unmarshal(out, &p); err != nil {
			t.Fatalf("save returned %s (%v)", out, err)
		}
		return p.ID, p.AvatarURL
	}
	pic := tinyPNG(t)
	id, url := save(map[string]any{"name": "Wren", "avatar": "data:image/png;base64," + b64(pic)})
	if url == nil {
		t.Fatal("no avatarUrl")
	}
	res, body := do(t, nil, "GET", ts.URL+*url, "", nil)
	if res.StatusCode != http.StatusOK || !bytes.Equal(body, pic) {
		t.Fatalf("status %d, %d bytes", res.StatusCode, len(body))
	}
	if res.Header.Get("Content-Type") != "image/png" || res.Header.Get("Cross-Origin-Resource-Policy") != "same-origin" {
		t.Errorf("headers %v", res.Header)
	}
	etag := res.Header.Get("ETag")
	if res, _ = do(t, nil, "GET", ts.URL+*url, "", map[string]string{"If-None-Match": etag}); etag == "" || res.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation with %q: status %d", etag, res.StatusCode)
	}

	plain, _ := save(map[string]any{"name": "Ash"})
	for _, path := range []string{"/api/persona-avatar/" + plain, "/api/persona-avatar/missing", "/api/persona-avatar/..%2Fhearth.db"} {
		res, body := do(t, nil, "GET", ts.URL+path, "", nil)
		wantError(t, res, body, http.StatusNotFound, codePersonaNotFound)
	}

	// Without a persona source (an embedder that serves none), every
	// persona avatar is 404 too.
	rec := httptest.NewRecorder()
	ServePersonaAvatar(rec, httptest.NewRequest("GET", "/api/persona-avatar/"+id, nil), nil, id)
	if rec.Code != http.StatusNotFound || rec.Header().Get("Cross-Origin-Resource-Policy") != "same-origin" {
		t.Errorf("no source: status %d", rec.Code)
	}
}
