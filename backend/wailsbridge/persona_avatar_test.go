package wailsbridge

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The desktop window serves a persona's avatarUrl as `hearth serve` does;
// without WithPersonaAvatars every persona avatar is 404, and the
// character avatar source never answers for a persona.
func TestMiddlewareServesPersonaAvatars(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "blob")
	gif := []byte("GIF89a fake image")
	if err := os.WriteFile(img, gif, 0o600); err != nil {
		t.Fatal(err)
	}
	chars := fakeAvatars{"p-1": img}
	with := Middleware(testToken, nil, chars, WithPersonaAvatars(fakeAvatars{"p-1": img}))(assetsHandler())
	without := Middleware(testToken, nil, chars)(assetsHandler())

	res := get(t, with, "/api/persona-avatar/p-1?v=0123", nil)
	if got := body(t, res); res.StatusCode != http.StatusOK || got != string(gif) || res.Header.Get("Content-Type") != "image/gif" {
		t.Fatalf("status %d type %q body %q", res.StatusCode, res.Header.Get("Content-Type"), got)
	}
	for _, c := range []struct {
		h    http.Handler
		path string
	}{
		{with, "/api/persona-avatar/nobody"},
		{with, "/api/persona-avatar/"},
		{with, "/api/persona-avatar/a%2Fb"},
		{without, "/api/persona-avatar/p-1"},
	} {
		res := get(t, c.h, c.path, nil)
		if text := body(t, res); res.StatusCode != http.StatusNotFound || !strings.Contains(text, `not_found"`) || strings.Contains(text, testToken) {
			t.Errorf("%s: status %d body %s", c.path, res.StatusCode, text)
		}
	}
	if res := get(t, without, "/api/persona-avatar/p-1", nil); !strings.Contains(body(t, res), `"persona.not_found"`) {
		t.Error("without a persona source, the answer is not persona.not_found")
	}
}
