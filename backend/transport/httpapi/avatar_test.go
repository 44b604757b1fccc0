package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"hearth/backend/apperr"
)

func TestAvatarServesImage(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)
	c := NewClient(ts.URL, testToken)
	pic := tinyPNG(t)
	args, _ := json.Marshal([]any{map[string]any{"name": "Pixel Girl"}, map[string]any{"image": b64(pic)}})
	out, err := c.Invoke(t.Context(), "characters.create", args)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	var card struct {
		Avatar string `json:"avatar"`
	}
	if err := json.Unmarshal(out, &card); err != nil || card.Avatar == "" {
		t.Fatalf("create returned %s (%v)", out, err)
	}
	avatarURL := ts.URL + "/api/avatar/" + url.PathEscape(card.Avatar)

	res, body := do(t, nil, "GET", avatarURL, "", nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	if !bytes.Equal(body, pic) {
		t.Error("served bytes differ from the upload")
	}
	if ct := res.Header.Get("Content-Type"); ct != "image/png" {
		t.Errorf("Content-Type = %q", ct)
	}
	if res.Header.Get("Cache-Control") == "" || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
		res.Header.Get("Cross-Origin-Resource-Policy") != "same-origin" {
		t.Errorf("headers = %v", res.Header)
	}
	etag := res.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	res, _ = do(t, nil, "GET", avatarURL, "", map[string]string{"If-None-Match": etag})
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation: status %d, want 304", res.StatusCode)
	}

	noPic, _ := json.Marshal([]any{map[string]any{"name": "Faceless"}})
	if _, err := c.Invoke(t.Context(), "characters.create", noPic); err != nil {
		t.Fatal(err)
	}
	for _, avatar := range []string{"Faceless.png", "Nobody.png", "..%2F..%2Fhearth.db"} {
		res, body := do(t, nil, "GET", ts.URL+"/api/avatar/"+avatar, "", nil)
		wantError(t, res, body, http.StatusNotFound, apperr.CodeCharacterNotFound)
	}
}

// fileAvatars serves every avatar from one file.
type fileAvatars string

func (f fileAvatars) ImagePath(context.Context, string) (string, error) { return string(f), nil }

// TestServeAvatarCrossOriginPolicy: other sites may not embed avatars (the
// desktop asset handler serves them through ServeAvatar too), whether the
// image exists or not.
func TestServeAvatarCrossOriginPolicy(t *testing.T) {
	t.Parallel()
	pic := filepath.Join(t.TempDir(), "0123abcd.png")
	if err := os.WriteFile(pic, tinyPNG(t), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		avatars AvatarSource
		status  int
	}{
		{"found", fileAvatars(pic), http.StatusOK},
		{"missing file", fileAvatars(pic + ".gone"), http.StatusNotFound},
		{"no source", nil, http.StatusNotFound},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		ServeAvatar(rec, httptest.NewRequest("GET", "/api/avatar/A.png", nil), tt.avatars, "A.png")
		if rec.Code != tt.status || rec.Header().Get("Cross-Origin-Resource-Policy") != "same-origin" {
			t.Errorf("%s: status %d, CORP %q", tt.name, rec.Code, rec.Header().Get("Cross-Origin-Resource-Policy"))
		}
	}
}
