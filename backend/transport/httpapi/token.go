package httpapi

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"hearth/backend/apperr"
)

// TokenParam is the query parameter of the address `hearth serve` prints:
// a browser that opens it is given a session cookie and sent on to the
// same address without it, so the token leaves the address bar (and is
// never in a Referer: every answer says no-referrer).
const TokenParam = "token"

// NewToken draws a launch token: 256 random bits, URL-safe.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("launch token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Token is this server's launch token: valid for the life of the process,
// as a bearer token (Authorization: Bearer TOKEN) on any API call, or in
// the ?token= of a page address to open a browser session.
func (s *Server) Token() string { return s.token }

// LaunchURL is URL with the launch token: the address to open in a
// browser on this machine. "" before Start.
func (s *Server) LaunchURL() string {
	base := s.URL()
	if base == "" {
		return ""
	}
	return base + "/?" + TokenParam + "=" + url.QueryEscape(s.token)
}

// tokenLogin handles a page request whose address carries ?token=: the
// right token opens a session and redirects to the address without it; a
// wrong one is refused (the login form says what to do). Only GET and HEAD
// of pages count: an API call sends the token as a bearer token, never in
// an address a log or a history keeps.
func (s *Server) tokenLogin(w http.ResponseWriter, r *http.Request) bool {
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || strings.HasPrefix(r.URL.Path, "/api/") || !r.URL.Query().Has(TokenParam) {
		return false
	}
	q := r.URL.Query()
	if !s.auth.checkToken(q.Get(TokenParam)) {
		// Only wrong tokens spend the login budget: the right one is
		// opened again with every new tab or window of the printed address.
		if !s.auth.limiter.allow(r.RemoteAddr) {
			s.refuse(w, r, http.StatusTooManyRequests, apperr.New(CodeRateLimited, "too many login attempts; try again later"))
			return true
		}
		s.refuse(w, r, http.StatusUnauthorized, apperr.New(apperr.CodeAuthDenied,
			"this address carries an access token of another launch of hearth serve: open the address it printed this time, or log in"))
		return true
	}
	if !s.startSession(w, r) {
		return true
	}
	q.Del(TokenParam)
	to := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to.String(), http.StatusSeeOther)
	return true
}
