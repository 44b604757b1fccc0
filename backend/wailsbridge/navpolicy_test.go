package wailsbridge

import (
	"sync"
	"testing"
)

func TestNavigationGuardDecide(t *testing.T) {
	t.Parallel()
	g := &NavigationGuard{AppOrigin: "wails://wails"}
	for _, tc := range []struct {
		name     string
		nav      Navigation
		allow    bool
		external string
	}{
		{"the app's start page", Navigation{URI: "wails://wails/"}, true, ""},
		{"a reload of the app", Navigation{URI: "wails://wails/index.html?x=1#y"}, true, ""},
		{"the app's scheme and host in another case", Navigation{URI: "WAILS://Wails/"}, true, ""},
		{"a srcdoc frame", Navigation{URI: "about:srcdoc"}, true, ""},
		{"a blank frame", Navigation{URI: "about:blank"}, true, ""},
		{"a data: frame", Navigation{URI: "data:text/html,<p>x"}, true, ""},
		{"a blob: frame", Navigation{URI: "blob:wails://wails/0b5f"}, true, ""},
		{"another wails host", Navigation{URI: "wails://evil/"}, false, ""},
		{"a script leaving for the web", Navigation{URI: "https://example.com/"}, false, ""},
		{"a script leaving during a gesture (an IPC answer)", Navigation{URI: "https://example.com/", UserGesture: true}, false, ""},
		{"a click leaving for the web (an <area> without target)", Navigation{URI: "https://example.com/x?y", LinkClicked: true, UserGesture: true}, false, "https://example.com/x?y"},
		{"a link followed without a gesture", Navigation{URI: "https://example.com/", LinkClicked: true}, false, ""},
		{"a clicked mailto: link", Navigation{URI: "mailto:ann@example.com", LinkClicked: true, UserGesture: true}, false, "mailto:ann@example.com"},
		{"a clicked file: link", Navigation{URI: "file:///etc/passwd", LinkClicked: true, UserGesture: true}, false, ""},
		{"a clicked custom scheme", Navigation{URI: "steam://run/1", LinkClicked: true, UserGesture: true}, false, ""},
		{"a clicked link to a new tab", Navigation{URI: "http://example.com/", NewWindow: true, LinkClicked: true, UserGesture: true}, false, "http://example.com/"},
		{"window.open by a script alone", Navigation{URI: "https://example.com/", NewWindow: true}, false, ""},
		{"window.open during a gesture", Navigation{URI: "https://example.com/", NewWindow: true, UserGesture: true}, false, ""},
		{"a new window of the app itself", Navigation{URI: "wails://wails/", NewWindow: true, LinkClicked: true, UserGesture: true}, false, ""},
		{"an unparsable address", Navigation{URI: "http://[::1", LinkClicked: true, UserGesture: true}, false, ""},
	} {
		allow, external := g.Decide(tc.nav)
		if allow != tc.allow || external != tc.external {
			t.Errorf("%s: Decide(%+v) = %v, %q; want %v, %q", tc.name, tc.nav, allow, external, tc.allow, tc.external)
		}
	}
}

func TestNavigationGuardOpensExternallyAndReports(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	opened := make(chan string, 1)
	g := &NavigationGuard{
		AppOrigin:    "wails://wails",
		OpenExternal: func(url string) { opened <- url },
		Observe: func(n Navigation, allowed bool, external string) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, n.URI)
		},
	}
	if g.decide(Navigation{URI: "https://example.com/", LinkClicked: true, UserGesture: true}) {
		t.Fatal("a navigation away was allowed")
	}
	if got := <-opened; got != "https://example.com/" {
		t.Fatalf("opened %q", got)
	}
	if !g.decide(Navigation{URI: "wails://wails/"}) {
		t.Fatal("the app's own page was refused")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 {
		t.Fatalf("observed %v", seen)
	}
}
