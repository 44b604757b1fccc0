package selftest

import "hearth/backend/wailsbridge"

// navigationLog is what the window's navigation guard reported: whether it
// could attach to the webview, what it refused and allowed, and what it
// would have opened in the system browser (the self-test records those
// instead of launching a browser).
type navigationLog struct {
	installed *bool
	refused   []string
	allowed   int
	external  []string
}

func (l *navigationLog) info() map[string]any {
	refused := append([]string{}, l.refused...)
	external := append([]string{}, l.external...)
	return map[string]any{"installed": l.installed, "refused": refused, "allowed": l.allowed, "external": external}
}

// NavigationGuard returns the guard the window installs in self-test mode:
// the production policy, with its reports going to this session.
func (s *Session) NavigationGuard(appOrigin string) *wailsbridge.NavigationGuard {
	return &wailsbridge.NavigationGuard{
		AppOrigin: appOrigin,
		OpenExternal: func(url string) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.nav.external = append(s.nav.external, url)
		},
		Observe: func(n wailsbridge.Navigation, allowed bool, _ string) {
			s.mu.Lock()
			defer s.mu.Unlock()
			if allowed {
				s.nav.allowed++
			} else if len(s.nav.refused) < 100 {
				s.nav.refused = append(s.nav.refused, n.URI)
			}
		},
		Installed: func(ok bool) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.nav.installed = &ok
		},
	}
}
