// Package host is Hearth's API surface: a router from "namespace.method"
// names to handlers over the domain services, with one argument-validation
// path and one error shape for every caller (desktop bridge, HTTP, tests).
package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"sort"

	"hearth/backend/apperr"
)

// Handler serves one method. args are the caller's positional arguments.
type Handler func(ctx context.Context, args Args) (any, error)

// Router maps method names to handlers.
type Router struct {
	methods map[string]Handler
	// largeCall, when set, hears of every call whose arguments or result
	// reach largeSize bytes (see OnLargeCall).
	largeCall func()
	largeSize int
}

// Option adjusts a router as NewRouter makes it.
type Option func(*Router)

// OnLargeCall has fn told of every call whose arguments or result reach
// size bytes, after it ran: the app releases memory once they stop.
func OnLargeCall(size int, fn func()) Option {
	return func(r *Router) { r.largeSize, r.largeCall = size, fn }
}

// NewRouter returns an empty router; Register adds methods.
func NewRouter(opts ...Option) *Router {
	r := &Router{methods: map[string]Handler{}}
	for _, opt := range opts {
		opt(r)
	}
	return r
}

// Register adds a method. Registering a name twice is a programming error.
func (r *Router) Register(name string, h Handler) {
	if _, dup := r.methods[name]; dup {
		panic(fmt.Sprintf("host: method %q registered twice", name))
	}
	r.methods[name] = h
}

// Methods lists the registered method names, sorted.
func (r *Router) Methods() []string {
	out := make([]string, 0, len(r.methods))
	for name := range r.methods {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Invoke runs method with rawArgs (a JSON array of positional arguments, or
// empty for none) and returns the JSON-encoded result. Errors are always
// *apperr.Error so every transport shapes them the same way. A handler that
// panics fails its call as "internal" (the stack goes to the log under the
// error's ref, the arguments do not) and takes nothing else down.
func (r *Router) Invoke(ctx context.Context, method string, rawArgs []byte) ([]byte, error) {
	out, streamed, err := r.invoke(ctx, method, rawArgs)
	if err != nil || streamed == nil {
		return out, err
	}
	return r.whole(method, len(rawArgs), streamed.Whole)
}

// InvokeStream is Invoke for a transport that can send a result while it
// is made: a handler's Streamed result comes back as its Write, unrun (out
// is then nil), for the transport to write its JSON out in pieces, so a
// bulk read is never held whole in memory. Its errors are *apperr.Error
// too.
func (r *Router) InvokeStream(ctx context.Context, method string, rawArgs []byte) ([]byte, func(io.Writer) error, error) {
	out, streamed, err := r.invoke(ctx, method, rawArgs)
	if err != nil || streamed == nil {
		return out, nil, err
	}
	return nil, r.guard(method, len(rawArgs), streamed.Write), nil
}

func (r *Router) invoke(ctx context.Context, method string, rawArgs []byte) (out []byte, streamed *Streamed, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, streamed, err = nil, nil, panicked(method, p)
		}
	}()
	h, ok := r.methods[method]
	if !ok {
		return nil, nil, apperr.New(apperr.CodeUnknownMethod, "unknown method %q", method)
	}
	args, err := parseArgs(rawArgs)
	if err != nil {
		return nil, nil, err
	}
	result, err := h(ctx, args)
	if err != nil {
		r.noteSize(len(rawArgs), 0)
		return nil, nil, apperr.Shape(err)
	}
	switch v := result.(type) {
	case Streamed:
		return nil, &v, nil
	case json.RawMessage:
		// Pre-encoded by a handler that built it from trusted data (bulk
		// reads); encoding/json would only re-scan megabytes of it.
		r.noteSize(len(rawArgs), len(v))
		return v, nil, nil
	}
	encoded, err := json.Marshal(result)
	if err != nil {
		return nil, nil, apperr.Shape(fmt.Errorf("encode result of %s: %w", method, err))
	}
	r.noteSize(len(rawArgs), len(encoded))
	return encoded, nil, nil
}

// whole builds a streamed result in memory, guarded as the handler was: a
// panic fails the call as "internal", errors are shaped, and its size
// counts toward OnLargeCall.
func (r *Router) whole(method string, argsSize int, build func() (json.RawMessage, error)) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, panicked(method, p)
		}
		r.noteSize(argsSize, len(out))
	}()
	out, err = build()
	if err != nil {
		return nil, apperr.Shape(err)
	}
	return out, nil
}

// guard wraps a streamed result's writer as whole does its builder.
func (r *Router) guard(method string, argsSize int, s func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) (err error) {
		cw := &countingWriter{w: w}
		defer func() {
			if p := recover(); p != nil {
				err = panicked(method, p)
			}
			r.noteSize(argsSize, cw.n)
		}()
		if err := s(cw); err != nil {
			return apperr.Shape(err)
		}
		return nil
	}
}

// noteSize tells OnLargeCall's hook of a call whose arguments or result
// reached its size.
func (r *Router) noteSize(args, result int) {
	if r.largeCall != nil && (args >= r.largeSize || result >= r.largeSize) {
		r.largeCall()
	}
}

func panicked(method string, p any) error {
	return apperr.Shape(fmt.Errorf("panic in %s: %v\n%s", method, p, debug.Stack()))
}

// Streamed is a handler's result that a transport may write out as it is
// made: the JSON of a bulk read (a whole chat, tens of megabytes). Write
// sends it to w in pieces: errors before its first write fail the call as
// any handler's would, and a transport that already sent part of the
// result ends the response there (the caller's JSON parse fails). Whole
// builds the same JSON in memory, sized up front, for the transports that
// need it whole (Wails IPC, the event socket, Invoke).
type Streamed struct {
	Write func(w io.Writer) error
	Whole func() (json.RawMessage, error)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
