package host

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// A panicking handler fails its own call as "internal" with a ref; the
// stack reaches the log, the caller's arguments do not, and the router
// keeps serving.
func TestRouterRecoversFromAPanickingHandler(t *testing.T) {
	var log bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	r := NewRouter()
	r.Register("test.boom", func(_ context.Context, args Args) (any, error) {
		return args[5], nil // one argument: index out of range
	})
	r.Register("test.ok", func(context.Context, Args) (any, error) { return "fine", nil })

	_, err := r.Invoke(context.Background(), "test.boom", []byte(`["sk-secret-argument"]`))
	e := apperr.As(err)
	if e == nil || e.Code != apperr.CodeInternal || e.Details["ref"] == nil {
		t.Fatalf("Invoke = %v, want internal with a ref", err)
	}
	if strings.Contains(e.Message, "out of range") {
		t.Fatalf("the panic's text reached the caller: %q", e.Message)
	}
	logged := log.String()
	if !strings.Contains(logged, "panic in test.boom") || !strings.Contains(logged, "out of range") {
		t.Fatalf("the log lacks the panic: %q", logged)
	}
	if strings.Contains(logged, "sk-secret-argument") {
		t.Fatalf("the log holds the call's arguments: %q", logged)
	}
	if out, err := r.Invoke(context.Background(), "test.ok", nil); err != nil || string(out) != `"fine"` {
		t.Fatalf("after a panic: %s, %v", out, err)
	}
}
