package httpapi

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"hearth/backend/apperr"
)

// checkHost defends a loopback server against DNS rebinding: a page on
// evil.example whose name later resolves to 127.0.0.1 sends Host
// "evil.example:PORT", which is refused. Only the loopback names on the port
// the connection arrived on (and the listen address itself) pass. A server
// bound to a public address has a password instead, and a rebound page never
// holds its session cookie, so any Host is accepted there.
func (s *Server) checkHost(r *http.Request) *apperr.Error {
	if !s.loopback {
		return nil
	}
	local := localAddr(r)
	_, port, err := net.SplitHostPort(local)
	if err != nil {
		return apperr.New(apperr.CodeAuthDenied, "cannot verify the Host header")
	}
	host := strings.ToLower(r.Host)
	if _, _, err := net.SplitHostPort(host); err != nil {
		defPort := "80"
		if r.TLS != nil {
			defPort = "443"
		}
		if port != defPort {
			return apperr.New(apperr.CodeAuthDenied, "Host %q is not allowed", r.Host)
		}
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	for _, allowed := range []string{
		net.JoinHostPort("127.0.0.1", port),
		net.JoinHostPort("localhost", port),
		net.JoinHostPort("::1", port),
		strings.ToLower(local),
	} {
		if host == allowed {
			return nil
		}
	}
	return apperr.New(apperr.CodeAuthDenied, "Host %q is not allowed", r.Host)
}

// localAddr is the address the request's connection was accepted on, or ""
// when the handler runs outside an http.Server (the Host check then fails
// closed).
func localAddr(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return a.String()
	}
	return ""
}

// checkOrigin blocks cross-site requests that change state. Browsers send
// Origin on every POST and WebSocket handshake, so a present Origin must be
// this server's own. Without Origin (non-browser clients, some old
// browsers), a request must declare a JSON body: an HTML form cannot, and a
// cross-site fetch that does is preflighted, which this server never
// answers.
func checkOrigin(r *http.Request) *apperr.Error {
	if !isUnsafe(r) && !isWebSocketUpgrade(r) {
		return nil
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if isWebSocketUpgrade(r) || isJSON(r) {
			return nil
		}
		return apperr.New(apperr.CodeAuthDenied, "requests without an Origin header must have Content-Type application/json")
	}
	if !sameOrigin(origin, r) {
		return apperr.New(apperr.CodeAuthDenied, "cross-origin request from %q refused", origin)
	}
	return nil
}

// sameOrigin compares scheme and host:port. Behind a TLS-terminating proxy
// the page is https while this server sees plain HTTP, so https is also
// accepted then; the host must match exactly either way.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Path != "" || u.User != nil {
		return false
	}
	switch u.Scheme {
	case "https":
	case "http":
		if r.TLS != nil {
			return false
		}
	default:
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

func isUnsafe(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

func isWebSocketUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}
