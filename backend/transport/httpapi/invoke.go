package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"

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
//
// A declared Content-Length over maxBody is refused before the body is
// read. Whenever the body was not read to its end (too large, too slow,
// broken), the answer closes the connection. The buffer grows with the
// bytes that arrive, never with what the client declared.
func ServeInvoke(w http.ResponseWriter, r *http.Request, router Invoker, maxBody int64) {
	if r.ContentLength > maxBody {
		closeAfterReply(w, r, defaultRefuseGrace)
		writeError(w, statusFor(CodeTooLarge), tooLarge(maxBody))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		closeAfterReply(w, r, 0)
		var tooBig *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooBig):
			writeError(w, statusFor(CodeTooLarge), tooLarge(tooBig.Limit))
		case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
			writeError(w, statusFor(CodeBodyTimeout), apperr.New(CodeBodyTimeout,
				"request body arrived too slowly: it must come within a fixed allowance plus time for its size at a minimum rate"))
		default:
			writeError(w, http.StatusBadRequest, apperr.Invalid("read request body: %v", err))
		}
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
	writeJSONBytes(w, http.StatusOK, []byte(`{"result":`), out, []byte("}"))
}

// tooLarge is the error for a body over limit bytes.
func tooLarge(limit int64) *apperr.Error {
	return apperr.New(CodeTooLarge, "request body exceeds %d bytes", limit).
		WithDetails(map[string]any{"limit": limit})
}
