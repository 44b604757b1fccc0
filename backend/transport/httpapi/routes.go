package httpapi

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/internal/extframe"
)

// routes builds the mux and wraps it in what every request passes: the
// body deadline, security headers, the Host check and the Origin/CSRF
// check. Session checks sit on the individual API routes so static files
// (the login page) load without one; each runs before any handler reads a
// byte of the body.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /api/invoke", s.requireSession(http.HandlerFunc(s.handleInvoke)))
	mux.Handle("GET /api/events", s.requireSession(http.HandlerFunc(s.handleEvents)))
	mux.Handle("GET /api/avatar/{avatar}", s.requireSession(http.HandlerFunc(s.handleAvatar)))
	mux.Handle("GET /api/persona-avatar/{id}", s.requireSession(http.HandlerFunc(s.handlePersonaAvatar)))
	mux.Handle("GET /api/media/{name}", s.requireSession(http.HandlerFunc(s.handleMedia)))
	mux.HandleFunc("POST /api/login", s.handleLogin)
	mux.HandleFunc("POST /api/logout", s.handleLogout)
	mux.HandleFunc("GET /api/session", s.handleSession)
	mux.Handle("/api/", s.requireSession(http.HandlerFunc(s.handleUnknownAPI)))
	mux.HandleFunc("/", s.handleStatic)
	return s.limitBody(s.guard(s.extensionFiles(mux)))
}

// extensionFiles sends every path under extframe.PathPrefix to
// handleExtension as it came, before the mux would clean it and redirect
// ("/ext/x/../../y" to "/y"): it is refused there with the 404 the
// desktop gives too. Sandboxed frames have an opaque origin, so no
// session reaches them: their files are served like the frontend's,
// without one. Page extensions' files (extframe.PagePathPrefix) are the
// window's own scripts and need its session.
func (s *Server) extensionFiles(mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, extframe.PathPrefix) {
			s.handleExtension(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, extframe.PagePathPrefix) {
			s.requireSession(http.HandlerFunc(s.handlePageExtension)).ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// guard applies the checks that hold for every route, before routing. A
// request that passes them admits its connection (takes it out of the
// count of strangers, conns.go) when it shows a valid session or the
// launch token. A page address with ?token= logs in (tokenLogin).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer recoverRequest(w, r)
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", apiCSP)
		if err := s.checkHost(r); err != nil {
			s.refuse(w, r, http.StatusForbidden, err)
			return
		}
		if err := s.checkOrigin(r); err != nil {
			s.refuse(w, r, http.StatusForbidden, err)
			return
		}
		if s.tokenLogin(w, r) {
			return
		}
		if s.auth.authenticated(r) {
			s.admit(r)
		}
		next.ServeHTTP(w, r)
	})
}

// recoverRequest answers a request whose handler panicked with "internal"
// and closes its connection; the stack goes to the log under the error's
// ref (the request's headers and body, which may carry a session or
// secrets, do not). A handler that panics after it began its answer
// (the event socket) can only have its connection closed.
func recoverRequest(w http.ResponseWriter, r *http.Request) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	e := apperr.Shape(fmt.Errorf("panic serving %s %s: %v\n%s", r.Method, r.URL.Path, p, debug.Stack()))
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusInternalServerError, e)
}

// handleUnknownAPI answers API paths no route claims, in the API's own
// error shape rather than with the SPA's index.html. Nothing reads the
// body, so the connection closes after the answer (refuse).
func (s *Server) handleUnknownAPI(w http.ResponseWriter, r *http.Request) {
	s.refuse(w, r, http.StatusNotFound, apperr.New(apperr.CodeUnknownMethod, "no API endpoint %s %s", r.Method, r.URL.Path))
}
