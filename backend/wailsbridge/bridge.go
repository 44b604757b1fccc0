// Package wailsbridge is the desktop window's side of the host API: the one
// struct Wails binds, and the asset-server middleware that hands the main
// document its capability token and serves avatars.
//
// Any frame inside the WebKitGTK webview, sandboxed or not, can post to the
// Wails IPC and call a bound Go method (DESIGN §2). So the bridge exposes a
// single method, and that method refuses every call that does not carry the
// per-launch token only the main document received. The package does not
// import Wails itself — app.go does the wiring — so all of this is tested
// with plain `go test`.
package wailsbridge

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"hearth/backend/apperr"
)

// Invoker runs one host method; *host.Router satisfies it.
type Invoker interface {
	Invoke(ctx context.Context, method string, rawArgs []byte) ([]byte, error)
}

// tokenBytes is the token's entropy: 256 bits, hex-encoded on the wire.
const tokenBytes = 32

// NewToken returns a fresh random capability token for one launch.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate capability token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Bridge is the only struct bound to the webview. Its only exported method
// is Invoke: Wails binds every exported method, and each one would be an
// entry point needing its own token check.
type Bridge struct {
	ctx     context.Context
	router  Invoker
	token   []byte
	observe func(method string, accepted bool)
}

// BridgeOption configures a Bridge. Options are functions, not methods:
// Wails would bind every exported method of Bridge.
type BridgeOption func(*Bridge)

// WithCallObserver has the bridge report every call to observe, before it
// runs: the method name and whether the token was accepted. The desktop
// self-test counts forged calls from sandboxed frames with it.
func WithCallObserver(observe func(method string, accepted bool)) BridgeOption {
	return func(b *Bridge) { b.observe = observe }
}

// New returns a bridge that runs calls on router under ctx (the app's
// lifetime) once they present token. A bridge with an empty token refuses
// everything, so the zero Bridge (used only to generate Wails bindings) is
// inert.
func New(ctx context.Context, router Invoker, token string, opts ...BridgeOption) *Bridge {
	b := &Bridge{ctx: ctx, router: router, token: []byte(token)}
	for _, opt := range opts {
		opt(b)
	}
	return b
}

// Invoke checks the capability token, then runs method with argsJSON (a
// JSON array of positional arguments) and returns the JSON result. On
// failure the error's text is the JSON {code, message, details} shape, which
// the frontend decodes from the rejected promise.
//
// A panic never leaves Invoke: Wails would log the whole IPC message, which
// carries the token. It fails the call as "internal" instead.
func (b *Bridge) Invoke(token, method, argsJSON string) (result string, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = "", wireError(apperr.Shape(fmt.Errorf("panic in bridge call %q: %v\n%s", method, p, debug.Stack())))
		}
	}()
	accepted := tokenMatches(b.token, token)
	if b.observe != nil {
		b.observe(method, accepted)
	}
	if !accepted {
		return "", wireError(apperr.New(apperr.CodeAuthDenied, "missing or wrong capability token"))
	}
	out, err := b.router.Invoke(b.ctx, method, []byte(argsJSON))
	if err != nil {
		return "", wireError(apperr.Shape(err))
	}
	if len(out) == 0 {
		return "null", nil
	}
	return string(out), nil
}

// tokenMatches reports whether got is the launch's token, in constant time.
// An empty token matches nothing, so the zero Bridge refuses every call.
func tokenMatches(token []byte, got string) bool {
	return len(token) != 0 && subtle.ConstantTimeCompare([]byte(got), token) == 1
}

// Error is a host error on its way to the webview; Error() is its JSON.
type Error struct {
	Shape *apperr.Error
	text  string
}

func (e *Error) Error() string { return e.text }

// Unwrap exposes the shaped error to errors.As.
func (e *Error) Unwrap() error { return e.Shape }

func wireError(shape *apperr.Error) *Error {
	text, err := json.Marshal(shape)
	if err != nil {
		// Details that cannot be encoded must not hide the code.
		text, _ = json.Marshal(&apperr.Error{Code: shape.Code, Message: shape.Message})
	}
	return &Error{Shape: shape, text: string(text)}
}
