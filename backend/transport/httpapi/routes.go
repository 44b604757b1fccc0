package httpapi

import (
	"net/http"

	"hearth/backend/apperr"
)

// routes builds the mux and wraps it in the guards every request passes:
// security headers, the Host check and the Origin/CSRF check. Session checks
// sit on the individual API routes so static files (the login page) load
// without one.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /api/invoke", s.requireSession(http.HandlerFunc(s.handleInvoke)))
	mux.Handle("GET /api/events", s.requireSession(http.HandlerFunc(s.handleEvents)))
	mux.Handle("GET /api/avatar/{avatar}", s.requireSession(http.HandlerFunc(s.handleAvatar)))
	mux.HandleFunc("POST /api/login", s.handleLogin)
	mux.HandleFunc("POST /api/logout", s.handleLogout)
	mux.HandleFunc("GET /api/session", s.handleSession)
	mux.Handle("/api/", s.requireSession(http.HandlerFunc(handleUnknownAPI)))
	mux.HandleFunc("/", s.handleStatic)
	return s.guard(mux)
}

// guard applies the checks that hold for every route, before routing.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", apiCSP)
		if err := s.checkHost(r); err != nil {
			writeError(w, http.StatusForbidden, err)
			return
		}
		if err := checkOrigin(r); err != nil {
			writeError(w, http.StatusForbidden, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// handleUnknownAPI answers API paths no route claims, in the API's own
// error shape rather than with the SPA's index.html.
func handleUnknownAPI(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, apperr.New(apperr.CodeUnknownMethod, "no API endpoint %s %s", r.Method, r.URL.Path))
}
