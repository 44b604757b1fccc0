package wailsbridge

import (
	"errors"
	"net/url"
	"strings"
)

// Navigation is one navigation the webview asks about: a frame or the
// window loading URI, or (NewWindow) a request for a new window, as a
// link with target=_blank or window.open makes. LinkClicked says a link
// (<a>, <area>) was activated, rather than a script setting location or
// calling window.open; UserGesture says WebKit counts it as a person's
// doing. WebKitGTK also counts as a gesture what a script does while it
// runs from the UI process (every Wails IPC answer does), so only the two
// together mean a person clicked a link.
type Navigation struct {
	URI         string
	NewWindow   bool
	LinkClicked bool
	UserGesture bool
}

// NavigationGuard keeps the desktop window on the app. Message HTML and
// extensions may hold links (an image map's <area>, an SVG <a>, a plain
// <a> that lost its target); left to WebKit, one click would replace
// Hearth with a remote page inside the app's own window. The guard refuses
// every navigation away from AppOrigin and every new window, and sends
// links a person clicked (http, https, mailto) to the system browser.
type NavigationGuard struct {
	// AppOrigin is scheme://host of the app's own pages ("wails://wails").
	AppOrigin string
	// OpenExternal opens a URL in the system browser; it runs on a
	// goroutine of its own, never on the UI thread.
	OpenExternal func(url string)
	// Observe, when set, hears every decision (the self-test counts them).
	Observe func(n Navigation, allowed bool, external string)
	// Installed, when set, hears whether the guard could be attached to
	// the window's webview.
	Installed func(ok bool)
}

// ErrNoNavigationGuard is InstallNavigationGuard's answer in builds
// without the Linux window (the guard hooks WebKitGTK directly).
var ErrNoNavigationGuard = errors.New("this build has no WebKitGTK window to guard")

// InstallNavigationGuard attaches g to the window's webview once the
// window exists (it may be called before). Call it once per process.
func InstallNavigationGuard(g *NavigationGuard) error { return installNavigationGuard(g) }

// Decide is the guard's policy. The app's own pages may load in the window
// and its frames, as may about:, data: and blob: documents (sandboxed
// frames and previews; the page's CSP decides what they may load). Nothing
// else loads, and no window opens; external is the address to hand to the
// system browser instead, when a person clicked a link to it.
func (g *NavigationGuard) Decide(n Navigation) (allow bool, external string) {
	u, err := url.Parse(n.URI)
	if err != nil {
		return false, ""
	}
	scheme := strings.ToLower(u.Scheme)
	if !n.NewWindow {
		if app, err := url.Parse(g.AppOrigin); err == nil && scheme == strings.ToLower(app.Scheme) && strings.EqualFold(u.Host, app.Host) {
			return true, ""
		}
		switch scheme {
		case "about", "data", "blob":
			return true, ""
		}
	}
	if n.LinkClicked && n.UserGesture {
		switch scheme {
		case "http", "https", "mailto":
			return false, u.String()
		}
	}
	return false, ""
}

// decide applies Decide to one navigation from the webview and reports it.
func (g *NavigationGuard) decide(n Navigation) bool {
	allow, external := g.Decide(n)
	if external != "" && g.OpenExternal != nil {
		go g.OpenExternal(external)
	}
	if g.Observe != nil {
		g.Observe(n, allow, external)
	}
	return allow
}
