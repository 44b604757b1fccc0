package wailsbridge

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestBridgeCallObserver(t *testing.T) {
	t.Parallel()
	type call struct {
		method   string
		accepted bool
	}
	var mu sync.Mutex
	var seen []call
	b := New(context.Background(), &fakeRouter{result: []byte("1")}, "secret", WithCallObserver(func(method string, accepted bool) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, call{method, accepted})
	}))
	if _, err := b.Invoke("secret", "chat.count", `["c"]`); err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{"", "wrong", "secre"} {
		if _, err := b.Invoke(token, "characters.create", `[{"name":"PWNED"}]`); decodeWire(t, err).Code != "auth.denied" {
			t.Fatalf("token %q was not refused", token)
		}
	}
	want := []call{{"chat.count", true}, {"characters.create", false}, {"characters.create", false}, {"characters.create", false}}
	if len(seen) != len(want) {
		t.Fatalf("observed %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("observed %v, want %v", seen, want)
		}
	}
}

func TestMiddlewareExtraScripts(t *testing.T) {
	t.Parallel()
	boots := 0
	h := Middleware(testToken, nil, nil,
		WithScripts(
			ExtraScript{Path: "/__hearth__/selftest.js", Body: []byte("/* main */"), Boot: true},
			ExtraScript{Path: "/__hearth__/frame.js", Body: []byte("/* frame */")},
		),
		WithBootObserver(func() { boots++ }),
	)(assetsHandler())

	res := get(t, h, "/", map[string]string{"Accept": "text/html"})
	doc := body(t, res)
	wantHead := `<HEAD>` + string(cspMeta()) + `<script id="hearth-boot" type="application/json">{"token":"` + testToken + `"}</script><script src="/__hearth__/selftest.js"></script><meta`
	if !strings.Contains(doc, wantHead) {
		t.Fatalf("main document does not load the boot script right after the token:\n%s", doc)
	}
	if strings.Contains(doc, "frame.js") {
		t.Fatalf("a non-boot script is referenced from the main document:\n%s", doc)
	}
	if boots != 1 {
		t.Fatalf("boot observer called %d times, want 1", boots)
	}

	for path, want := range map[string]string{"/__hearth__/selftest.js": "/* main */", "/__hearth__/frame.js": "/* frame */"} {
		res := get(t, h, path, nil)
		if res.StatusCode != http.StatusOK || body(t, res) != want {
			t.Fatalf("%s: status %d", path, res.StatusCode)
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
			t.Fatalf("%s: Content-Type %q", path, ct)
		}
	}

	// A fetch of "/" (not a navigation) gets no token and is not counted.
	res = get(t, h, "/", map[string]string{"Accept": "*/*", "Origin": "null"})
	if doc := body(t, res); strings.Contains(doc, testToken) {
		t.Fatalf("token served to a fetch:\n%s", doc)
	}
	if boots != 1 {
		t.Fatalf("boot observer called %d times after a fetch, want 1", boots)
	}
}

func TestMiddlewareWithoutScriptsServesNone(t *testing.T) {
	t.Parallel()
	h := Middleware(testToken, nil, nil)(assetsHandler())
	if res := get(t, h, "/__hearth__/selftest.js", nil); res.StatusCode == http.StatusOK {
		t.Fatal("a self-test script is served without WithScripts")
	}
	if doc := body(t, get(t, h, "/", map[string]string{"Accept": "text/html"})); strings.Contains(doc, "__hearth__") {
		t.Fatalf("main document references self-test scripts:\n%s", doc)
	}
}
