package wailsbridge

import (
	"net/http"
	"strings"
	"testing"

	"hearth/backend/media"
)

// The desktop window serves message attachments as `hearth serve` does.
func TestMiddlewareServesMedia(t *testing.T) {
	t.Parallel()
	files, err := media.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gif := []byte("GIF89a fake image")
	name, err := files.Put(gif, "gif")
	if err != nil {
		t.Fatal(err)
	}
	with := Middleware(testToken, nil, nil, WithMedia(files))(assetsHandler())
	without := Middleware(testToken, nil, nil)(assetsHandler())

	res := get(t, with, "/api/media/"+name, nil)
	if got := body(t, res); res.StatusCode != http.StatusOK || got != string(gif) || res.Header.Get("Content-Type") != "image/gif" {
		t.Fatalf("status %d type %q body %q", res.StatusCode, res.Header.Get("Content-Type"), got)
	}
	for _, c := range []struct {
		h    http.Handler
		path string
	}{{with, "/api/media/nothing.gif"}, {with, "/api/media/"}, {with, "/api/media/a%2Fb"}, {without, "/api/media/" + name}} {
		res := get(t, c.h, c.path, nil)
		if text := body(t, res); res.StatusCode != http.StatusNotFound || !strings.Contains(text, `"media.not_found"`) || strings.Contains(text, testToken) {
			t.Errorf("%s: status %d body %s", c.path, res.StatusCode, text)
		}
	}
}
