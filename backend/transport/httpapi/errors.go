package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"hearth/backend/apperr"
)

// Error codes this transport adds to the host's vocabulary; the frontend's
// HTTP transport surfaces them like any other HostError code.
const (
	// CodeRateLimited answers a login attempt beyond the per-IP budget.
	CodeRateLimited = "auth.rate_limited"
	// CodeTooLarge answers a request body beyond the size cap.
	CodeTooLarge = "validation.too_large"
	// CodeBodyTimeout answers a request body that did not arrive within its
	// deadline (see Server.bodyTimeout).
	CodeBodyTimeout = "validation.body_timeout"
)

// errorBody is the wire shape of every failed API request.
type errorBody struct {
	Error *apperr.Error `json:"error"`
}

// statusFor maps an error code to an HTTP status. The status is a courtesy
// for logs and tools; clients act on the code in the body.
func statusFor(code string) int {
	switch {
	case code == apperr.CodeInternal:
		return http.StatusInternalServerError
	case code == apperr.CodeAuthDenied:
		return http.StatusUnauthorized
	case code == CodeRateLimited:
		return http.StatusTooManyRequests
	case code == CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case code == CodeBodyTimeout:
		return http.StatusRequestTimeout
	case code == apperr.CodeUnknownMethod, strings.HasSuffix(code, ".not_found"):
		return http.StatusNotFound
	case strings.HasSuffix(code, ".conflict"), strings.HasSuffix(code, "_taken"):
		return http.StatusConflict
	case strings.HasSuffix(code, ".denied"), strings.HasSuffix(code, "_denied"):
		return http.StatusForbidden
	default:
		// validation.*, patch.* and the other domain errors the caller can fix.
		return http.StatusBadRequest
	}
}

// writeError writes e in the {"error": {code, message, details}} shape.
func writeError(w http.ResponseWriter, status int, e *apperr.Error) {
	writeJSON(w, status, errorBody{Error: e})
}

// writeJSON writes v as a JSON response that no cache keeps.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(errorBody{Error: apperr.Shape(err)})
	}
	writeJSONBytes(w, status, body)
}

// writeJSONBytes writes a JSON response made of parts, in order, with its
// length declared: a large answer (a chat export) is written as it came from the
// router, framed, without being copied into one buffer first, and a
// client knows its size before the first byte.
func writeJSONBytes(w http.ResponseWriter, status int, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	setJSONHeaders(w.Header())
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(status)
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return
		}
	}
}

// setJSONHeaders marks an answer as JSON that no cache may keep.
func setJSONHeaders(h http.Header) {
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
}
