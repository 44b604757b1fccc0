// Package host is Hearth's API surface: a router from "namespace.method"
// names to handlers over the domain services, with one argument-validation
// path and one error shape for every caller (desktop bridge, HTTP, tests).
package host

import (
	"context"
	"encoding/json"
	"fmt"
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

// OnLargeCall has fn told of every call whose arguments or result reach
// size bytes, after it ran: the app releases memory once they stop. Set it
// before the router serves calls.
func (r *Router) OnLargeCall(size int, fn func()) {
	r.largeSize, r.largeCall = size, fn
}

// NewRouter returns an empty router; Register adds methods.
func NewRouter() *Router { return &Router{methods: map[string]Handler{}} }

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
func (r *Router) Invoke(ctx context.Context, method string, rawArgs []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, apperr.Shape(fmt.Errorf("panic in %s: %v\n%s", method, p, debug.Stack()))
		}
	}()
	h, ok := r.methods[method]
	if !ok {
		return nil, apperr.New(apperr.CodeUnknownMethod, "unknown method %q", method)
	}
	args, err := parseArgs(rawArgs)
	if err != nil {
		return nil, err
	}
	result, err := h(ctx, args)
	if r.largeCall != nil {
		defer func() {
			if len(rawArgs) >= r.largeSize || len(out) >= r.largeSize {
				r.largeCall()
			}
		}()
	}
	if err != nil {
		return nil, apperr.Shape(err)
	}
	if raw, ok := result.(json.RawMessage); ok {
		// Pre-encoded by a handler that built it from trusted data (bulk
		// reads); encoding/json would only re-scan megabytes of it.
		return raw, nil
	}
	encoded, err := json.Marshal(result)
	if err != nil {
		return nil, apperr.Shape(fmt.Errorf("encode result of %s: %w", method, err))
	}
	return encoded, nil
}
