package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"hearth/backend/apperr"
)

// invokeRequest is the body of POST /api/invoke. Args stay raw: the host
// router validates them, once, for every transport.
type invokeRequest struct {
	Method string          `json:"method"`
	Args   json.RawMessage `json:"args"`
}

// handleInvoke serves POST /api/invoke once the session is checked.
func (s *Server) handleInvoke(w http.ResponseWriter, r *http.Request) {
	ServeInvoke(w, r, s.router, s.maxBody)
}

// ServeInvoke decodes a {method, args} body of at most maxBody bytes, runs
// it on router and writes {result} or {error} — no logic of its own. Both
// transports answer POST /api/invoke with it: this server after its session
// check, the desktop asset handler after its token check (the window's
// bulk reads, which stream faster there than through Wails IPC).
func ServeInvoke(w http.ResponseWriter, r *http.Request, router Invoker, maxBody int64) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			e := apperr.New(CodeTooLarge, "request body exceeds %d bytes", tooBig.Limit).
				WithDetails(map[string]any{"limit": tooBig.Limit})
			writeError(w, statusFor(e.Code), e)
			return
		}
		writeError(w, http.StatusBadRequest, apperr.Invalid("read request body: %v", err))
		return
	}
	var req invokeRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, apperr.Invalid(`request body must be {"method": string, "args": array}: %v`, err))
		return
	}
	if req.Method == "" {
		writeError(w, http.StatusBadRequest, apperr.Invalid("method is required"))
		return
	}
	out, err := router.Invoke(r.Context(), req.Method, req.Args)
	if err != nil {
		e := apperr.Shape(err)
		writeError(w, statusFor(e.Code), e)
		return
	}
	// The router's output is JSON it encoded itself; re-validating a
	// whole chat here would cost more than producing it.
	if len(bytes.TrimSpace(out)) == 0 {
		out = []byte("null")
	}
	resp := make([]byte, 0, len(out)+len(`{"result":}`))
	resp = append(resp, `{"result":`...)
	resp = append(resp, out...)
	resp = append(resp, '}')
	writeJSONBytes(w, http.StatusOK, resp)
}
