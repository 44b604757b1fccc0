package wailsbridge

import (
	"net/http"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/transport/httpapi"
)

// InvokePath is where the window's bulk reads go: the same {method, args}
// → {result} | {error} exchange as the browser server's POST /api/invoke,
// answered by the asset handler. Wails IPC hands a result to the page as a
// string literal inside a script it evaluates; a chat page of a few
// megabytes arrives sooner and stalls the page less streamed through the
// asset server (measured in docs/DEVELOPING.md, DESIGN §2).
const InvokePath = "/api/invoke"

// TokenHeader carries the capability token on InvokePath: a header, not a
// body field, so no form or simple cross-origin POST can carry it, and the
// JSON body is the browser server's exactly. What refuses a forged request
// is the comparison with the launch token, which no frame has: WebKitGTK
// was measured to deliver a sandboxed frame's cross-origin POST to the
// app's scheme, custom headers included, without a CORS preflight.
const TokenHeader = "X-Hearth-Token"

// WithInvokeObserver calls observe for every request to InvokePath, before
// it runs, with whether its token was accepted. The self-test counts the
// sandboxed frames' forged requests with it, as it counts forged IPC calls
// with WithCallObserver.
func WithInvokeObserver(observe func(accepted bool)) MiddlewareOption {
	return func(c *middlewareConfig) { c.onInvoke = observe }
}

// serveInvoke answers InvokePath: POST only, the token in TokenHeader, a
// JSON body; then exactly what the browser server does.
func serveInvoke(w http.ResponseWriter, r *http.Request, router Invoker, token []byte, observe func(bool)) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, apperr.Invalid("method %s not allowed", r.Method))
		return
	}
	accepted := tokenMatches(token, r.Header.Get(TokenHeader))
	if observe != nil {
		observe(accepted)
	}
	if !accepted {
		writeError(w, http.StatusUnauthorized, apperr.New(apperr.CodeAuthDenied, "missing or wrong capability token"))
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, apperr.Invalid("Content-Type must be application/json, not %q", ct))
		return
	}
	httpapi.ServeInvoke(w, r, router, httpapi.MaxInvokeBody)
}
