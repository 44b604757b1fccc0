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
	"strings"
	"sync"
	"time"

	"hearth/backend/apperr"
)

const (
	sessionCookie = "hearth_session"
	sessionTTL    = 30 * 24 * time.Hour
	maxLoginBody  = 4 << 10
)

// authenticator holds the password digest, the launch token's digest, the
// live sessions and the login limiter. Everything is in memory: a restart
// logs everyone out, and the password never touches disk.
//
// Every API call needs a credential, even on loopback: any account on a
// shared machine can reach 127.0.0.1, and a loopback server without one
// would hand each of them the owner's chats, keys and files. The launch
// token (token.go) is that credential when there is no password: the URL
// `hearth serve` prints carries it, a script sends it as a bearer token.
type authenticator struct {
	password bool // a password was configured: the login form asks for it
	digest   [sha256.Size]byte
	token    [sha256.Size]byte // digest of the launch token
	now      func() time.Time
	limiter  *loginLimiter

	mu       sync.Mutex
	sessions map[[sha256.Size]byte]time.Time // session token digest → expiry
	// ended is closed per session when it is revoked, so the event
	// sockets it opened close too (sessionEnded).
	ended map[[sha256.Size]byte]chan struct{}
}

func newAuthenticator(password, token string) *authenticator {
	return &authenticator{
		password: password != "",
		digest:   sha256.Sum256([]byte(password)),
		token:    sha256.Sum256([]byte(token)),
		now:      time.Now,
		limiter:  newLoginLimiter(),
		sessions: map[[sha256.Size]byte]time.Time{},
		ended:    map[[sha256.Size]byte]chan struct{}{},
	}
}

// checkPassword compares digests in constant time, so neither the content
// nor the length of the password leaks through timing. Without a
// configured password nothing matches.
func (a *authenticator) checkPassword(password string) bool {
	d := sha256.Sum256([]byte(password))
	return a.password && subtle.ConstantTimeCompare(d[:], a.digest[:]) == 1
}

// checkToken compares a presented launch token with this launch's, in
// constant time.
func (a *authenticator) checkToken(token string) bool {
	d := sha256.Sum256([]byte(token))
	return token != "" && subtle.ConstantTimeCompare(d[:], a.token[:]) == 1
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
			a.endLocked(k)
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

// revoke ends a session: its cookie stops working and its event sockets
// close.
func (a *authenticator) revoke(token string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.endLocked(sha256.Sum256([]byte(token)))
}

func (a *authenticator) endLocked(k [sha256.Size]byte) {
	delete(a.sessions, k)
	if ch, ok := a.ended[k]; ok {
		close(ch)
		delete(a.ended, k)
	}
}

// bearer is the token of an "Authorization: Bearer" header, "" for none.
func bearer(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// authenticated reports whether r may use the API: it carries a live
// session cookie, or the launch token as a bearer token.
func (a *authenticator) authenticated(r *http.Request) bool {
	if a.checkToken(bearer(r)) {
		return true
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && a.validSession(c.Value)
}

// alreadyEnded is the ended channel of a request let in by no live session.
var alreadyEnded = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// sessionEnded returns a channel closed when the session r was let in by
// ends: on logout, or when it expires (the timer's stop func must be
// called when the caller is done). A request let in by the launch token
// gets a channel that closes only with the process.
func (a *authenticator) sessionEnded(r *http.Request) (<-chan struct{}, func()) {
	if a.checkToken(bearer(r)) {
		return nil, func() {}
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return alreadyEnded, func() {}
	}
	k := sha256.Sum256([]byte(c.Value))
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.sessions[k]
	if !ok || !a.now().Before(exp) {
		return alreadyEnded, func() {}
	}
	ch, ok := a.ended[k]
	if !ok {
		ch = make(chan struct{})
		a.ended[k] = ch
	}
	t := time.AfterFunc(exp.Sub(a.now()), func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.endLocked(k)
	})
	return ch, func() { t.Stop() }
}

// requireSession guards an API route. It runs before the route reads a
// byte of the body; a refusal closes the connection (refuse).
// A request that passes has already admitted its connection in the guard.
func (s *Server) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.auth.authenticated(r) {
			msg := "login required"
			if !s.auth.password {
				msg = "access token required: open the address hearth serve printed, or send its serve-token file as \"Authorization: Bearer TOKEN\""
			}
			s.refuse(w, r, http.StatusUnauthorized, apperr.New(apperr.CodeAuthDenied, "%s", msg))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sessionState is the body of /api/session, /api/login and /api/logout.
// Without a password the way in is the launch token (TokenRequired): the
// address `hearth serve` printed, or the token pasted into the login form.
type sessionState struct {
	Authenticated    bool `json:"authenticated"`
	PasswordRequired bool `json:"passwordRequired"`
	TokenRequired    bool `json:"tokenRequired"`
}

func (s *Server) sessionState(authenticated bool) sessionState {
	return sessionState{Authenticated: authenticated, PasswordRequired: s.auth.password, TokenRequired: !s.auth.password}
}

func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.sessionState(s.auth.authenticated(r)))
}

// handleLogin opens a session for the password, or for the launch token
// (which is as good as the password: it is on this machine's disk, 0600).
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
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
		Token    *string `json:"token"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxLoginBody)).Decode(&body); err != nil || (body.Password == nil) == (body.Token == nil) {
		writeError(w, http.StatusBadRequest, apperr.Invalid(`login body must be {"password": string} or {"token": string}`))
		return
	}
	switch {
	case body.Token != nil && !s.auth.checkToken(strings.TrimSpace(*body.Token)):
		writeError(w, http.StatusUnauthorized, apperr.New(apperr.CodeAuthDenied, "wrong access token: take it from the address hearth serve printed (after ?token=), or from the serve-token file in its data folder"))
		return
	case body.Password != nil && !s.auth.password:
		writeError(w, http.StatusUnauthorized, apperr.New(apperr.CodeAuthDenied, "this server has no password: log in with the access token hearth serve printed"))
		return
	case body.Password != nil && !s.auth.checkPassword(*body.Password):
		writeError(w, http.StatusUnauthorized, apperr.New(apperr.CodeAuthDenied, "wrong password"))
		return
	}
	if !s.startSession(w, r) {
		return
	}
	writeJSON(w, http.StatusOK, s.sessionState(true))
}

// startSession sets a new session's cookie on w; false when it could not
// (the error is written).
func (s *Server) startSession(w http.ResponseWriter, r *http.Request) bool {
	token, err := s.auth.newSession()
	if err != nil {
		writeError(w, http.StatusInternalServerError, apperr.Shape(err))
		return false
	}
	s.admit(r)
	http.SetCookie(w, sessionCookieFor(token, int(sessionTTL.Seconds()), s.viaTLS(r)))
	return true
}

func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.auth.revoke(c.Value)
	}
	http.SetCookie(w, sessionCookieFor("", -1, s.viaTLS(r)))
	writeJSON(w, http.StatusOK, s.sessionState(s.auth.checkToken(bearer(r))))
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
