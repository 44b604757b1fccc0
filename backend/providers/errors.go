package providers

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"hearth/backend/apperr"
)

// Error codes of model calls (HOST-ABI's model.*). Details carry "status"
// (the HTTP status, when there was one), "providerMessage" (what the
// provider said, shortened) and, for rate limits, "retryAfterMs".
const (
	// CodeAuthFailed: the provider refused the API key (401, 403).
	CodeAuthFailed = "model.auth_failed"
	// CodeRateLimited: too many requests or no quota left (429).
	CodeRateLimited = "model.rate_limited"
	// CodeUnavailable: the provider failed or is overloaded (5xx).
	CodeUnavailable = "model.unavailable"
	// CodeTimeout: no answer, or a stream that stopped sending, in time.
	CodeTimeout = "model.timeout"
	// CodeBadResponse: an answer that is not the wire format (a malformed
	// chunk, a stream cut off before it finished).
	CodeBadResponse = "model.bad_response"
	// CodeUnreachable: no connection to the server (refused, no route,
	// unknown host).
	CodeUnreachable = "model.unreachable"
	// CodeRequestFailed: the provider refused the request for another
	// reason (400 bad request, 404 unknown model…).
	CodeRequestFailed = "model.request_failed"
)

// maxProviderMessage bounds how much of a provider's error text is kept.
const maxProviderMessage = 500

// errStalled is the cause of a stream cancelled for silence.
var errStalled = errors.New("the stream stalled")

// statusError maps an HTTP error answer to its HostError. providerMessage
// may be the answer's whole body: its text is taken out (errorText).
func statusError(status int, header http.Header, providerMessage string, now time.Time) *apperr.Error {
	msg := shorten(errorText(providerMessage))
	details := map[string]any{"status": status}
	if msg != "" {
		details["providerMessage"] = msg
	}
	said := ""
	if msg != "" {
		said = ": " + msg
	}
	var e *apperr.Error
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e = apperr.New(CodeAuthFailed, "the provider refused the API key (HTTP %d)%s", status, said)
	case status == http.StatusTooManyRequests:
		e = apperr.New(CodeRateLimited, "the provider is rate limiting requests (HTTP 429)%s", said)
		if d, ok := retryAfter(header, now); ok {
			details["retryAfterMs"] = d.Milliseconds()
		}
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		e = apperr.New(CodeTimeout, "the provider timed out (HTTP %d)%s", status, said)
	case status >= 500:
		e = apperr.New(CodeUnavailable, "the provider failed (HTTP %d)%s", status, said)
	default:
		e = apperr.New(CodeRequestFailed, "the provider refused the request (HTTP %d)%s", status, said)
	}
	return e.WithDetails(details)
}

// retryAfter reads how long a 429 asks to wait: retry-after-ms (OpenAI),
// or Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e6 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// transportError maps a failure below HTTP (dialing, reading, decoding);
// one to reach or hear from the server reads as a sentence naming it
// (networkError).
func transportError(err error) *apperr.Error {
	var redirect *redirectError
	if errors.As(err, &redirect) {
		return apperr.New(CodeRequestFailed, "%s", redirect.Error()).
			WithDetails(map[string]any{"redirectTo": redirect.to})
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return apperr.New(CodeBadResponse, "the provider sent a malformed chunk: %s", shorten(err.Error()))
	}
	if e := networkError(err); e != nil {
		return e
	}
	return apperr.New(CodeRequestFailed, "the request to the provider failed: %s", shorten(err.Error()))
}

// stalled is the error of a call to the server at addr (Address) that
// sent nothing for longer than idle.
func stalled(addr string, idle time.Duration) *apperr.Error {
	e := tookTooLong(addr, seconds(idle))
	details := map[string]any{"idleMs": idle.Milliseconds()}
	if addr != unnamedServer {
		details["address"] = addr
	}
	return e.WithDetails(details)
}

// shorten keeps the first maxProviderMessage bytes of s (on a rune
// boundary), on one line.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxProviderMessage {
		return s
	}
	cut := maxProviderMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// describeStatus is an in-stream error's code as an HTTP-like status, when
// it is one (OpenRouter sends {"error": {"code": 502, …}} mid-stream).
func describeStatus(code json.RawMessage) (int, bool) {
	var n int
	if err := json.Unmarshal(code, &n); err == nil && n >= 400 && n < 600 {
		return n, true
	}
	var s string
	if err := json.Unmarshal(code, &s); err == nil {
		if n, err := strconv.Atoi(s); err == nil && n >= 400 && n < 600 {
			return n, true
		}
	}
	return 0, false
}
