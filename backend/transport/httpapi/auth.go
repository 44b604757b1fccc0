package httpapi

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"hearth/backend/apperr"
)

const (
	sessionCookie = "hearth_session"
	sessionTTL    = 30 * 24 * time.Hour
	maxLoginBody  = 4 << 10
)

// authenticator holds the password digest, the live sessions and the
// login limiter. Everything is in memory: a restart logs everyone out, and
// the password never touches disk.
type authenticator struct {
	required bool
	digest   [sha256.Size]byte
	now      func() time.Time
	limiter  *loginLimiter

	mu       sync.Mutex
	sessions map[[sha256.Size]byte]time.Time // token digest → expiry
}

func newAuthenticator(password string) *authenticator {
	return &authenticator{
		required: password != "",
		digest:   sha256.Sum256([]byte(password)),
		now:      time.Now,
		limiter:  newLoginLimiter(),
		sessions: map[[sha256.Size]byte]time.Time{},
	}
}

// checkPassword compares digests in constant time, so neither the content
// nor the length of the password leaks through timing.
func (a *authenticator) checkPassword(password string) bool {
	d := sha256.Sum256([]byte(password))
	return subtle.ConstantTimeCompare(d[:], a.digest[:]) == 1
}

// newSession returns a fresh random token; only its digest is kept, so a
// lookup never compares secrets byte by byte.
func (a *authenticator) newSession() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, exp := range a.sessions {
		if now.After(exp) {
			delete(a.sessions, k)
		}
	}
	a.sessions[sha256.Sum256([]byte(token))] = now.Add(sessionTTL)
	return token, nil
}

func (a *authenticator) validSession(token string) bool {
	if token == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.sessions[sha256.Sum256([]byte(token))]
	return ok && a.now().Before(exp)
}

func (a *authenticator) revoke(token string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.sessions, sha256.Sum256([]byte(token)))
}

// authenticated reports whether r may use the API.
func (a *authenticator) authenticated(r *http.Request) bool {
	if !a.required {
		return true
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && a.validSession(c.Value)
}

// requireSession guards an API route in password mode. It runs before the
// route reads a byte of the body; a refusal closes the connection (refuse).
// A request that passes has already admitted its connection in the guard.
func (s *Server) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.auth.authenticated(r) {
			s.refuse(w, r, http.StatusUnauthorized, apperr.New(apperr.CodeAuthDenied, "login required"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sessionState is the body of /api/session, /api/login and /api/logout.
type sessionState struct {
	Authenticated    bool `json:"authenticated"`
	PasswordRequired bool `json:"passwordRequired"`
}

func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, sessionState{Authenticated: s.auth.authenticated(r), PasswordRequired: s.auth.required})
}

func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	if !s.auth.required {
		writeJSON(w, http.StatusOK, sessionState{Authenticated: true})
		return
	}
	// The budget is spent before a byte of the body is read, and a body
	// larger than any login is refused unread.
	if !s.auth.limiter.allow(r.RemoteAddr) {
		w.Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(loginEvery.Seconds()))))
		s.refuse(w, r, http.StatusTooManyRequests, apperr.New(CodeRateLimited, "too many login attempts; try again later"))
		return
	}
	if r.ContentLength > maxLoginBody {
		s.refuse(w, r, http.StatusRequestEntityTooLarge, apperr.New(CodeTooLarge, "login body exceeds %d bytes", maxLoginBody).
			WithDetails(map[string]any{"limit": maxLoginBody}))
		return
	}
	s.setBodyDeadline(w, r, maxLoginBody)
	var body struct {
		Password *string `json:"password"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxLoginBody)).Decode(&body); err != nil || body.Password == nil {
		writeError(w, http.StatusBadRequest, apperr.Invalid(`login body must be {"password": string}`))
		return
	}
	if !s.auth.checkPassword(*body.Password) {
		writeError(w, http.StatusUnauthorized, apperr.New(apperr.CodeAuthDenied, "wrong password"))
		return
	}
	token, err := s.auth.newSession()
	if err != nil {
		writeError(w, http.StatusInternalServerError, apperr.Shape(err))
		return
	}
	s.admit(r)
	http.SetCookie(w, sessionCookieFor(token, int(sessionTTL.Seconds()), s.viaTLS(r)))
	writeJSON(w, http.StatusOK, sessionState{Authenticated: true, PasswordRequired: true})
}

func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.auth.revoke(c.Value)
	}
	http.SetCookie(w, sessionCookieFor("", -1, s.viaTLS(r)))
	writeJSON(w, http.StatusOK, sessionState{Authenticated: !s.auth.required, PasswordRequired: s.auth.required})
}

// sessionCookieFor builds the session cookie: HttpOnly so page scripts
// (extensions, rendered card HTML) cannot read it, SameSite=Strict so no
// other site's request carries it, Secure whenever the browser reached this
// server over TLS (directly or through a trusted proxy, viaTLS) so it is
// never sent back in clear.
func sessionCookieFor(token string, maxAge int, secure bool) *http.Cookie {
	return &http.Cookie{
		Name:     sessionCookie,
		Value:    token,
		Path:     "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   secure,
		SameSite: http.SameSiteStrictMode,
	}
}
