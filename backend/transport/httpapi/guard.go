package httpapi

import (
	"mime"
	"net/http"
	"net/url"
	"strings"

	"hearth/backend/apperr"
)

// checkOrigin blocks cross-site requests that change state. Browsers send
// Origin on every POST and WebSocket handshake, so a present Origin must be
// this server's own. Without Origin (non-browser clients, some old
// browsers), a request must declare a JSON body: an HTML form cannot, and a
// cross-site fetch that does is preflighted, which this server never
// answers.
func (s *Server) checkOrigin(r *http.Request) *apperr.Error {
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
	viaTLS := s.viaTLS(r)
	if !sameOrigin(origin, r, viaTLS) {
		if !viaTLS && len(origin) > 8 && strings.EqualFold(origin[:8], "https://") {
			return apperr.New(apperr.CodeAuthDenied,
				"request from %q refused: it reached this server over plain HTTP; if a TLS proxy forwards to Hearth, start it with --trusted-proxy PROXY_IP", origin)
		}
		return apperr.New(apperr.CodeAuthDenied, "cross-origin request from %q refused", origin)
	}
	return nil
}

// sameOrigin compares scheme and host:port. The scheme must be the one the
// browser used to reach this server, viaTLS: directly or through a trusted
// proxy, an https page is only this server's own when the request came over
// TLS, and an http page only when it did not.
func sameOrigin(origin string, r *http.Request, viaTLS bool) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Path != "" || u.User != nil {
		return false
	}
	want := "http"
	if viaTLS {
		want = "https"
	}
	return u.Scheme == want && strings.EqualFold(u.Host, r.Host)
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
