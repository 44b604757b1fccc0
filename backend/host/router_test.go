package host

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
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

// OnLargeCall hears of calls whose arguments or result reach the size,
// failed ones included, and of no other.
func TestRouterLargeCalls(t *testing.T) {
	t.Parallel()
	heard := 0
	r := NewRouter(OnLargeCall(64, func() { heard++ }))
	r.Register("test.echo", func(_ context.Context, a Args) (any, error) { return a.String(0, "s") })
	r.Register("test.big", func(context.Context, Args) (any, error) { return strings.Repeat("x", 100), nil })
	r.Register("test.fail", func(context.Context, Args) (any, error) { return nil, apperr.Invalid("no") })
	for _, c := range []struct {
		method, args string
		want         int
	}{
		{"test.echo", `["small"]`, 0},
		{"test.big", `[]`, 1},
		{"test.echo", `["` + strings.Repeat("y", 80) + `"]`, 2},
		{"test.fail", `["` + strings.Repeat("z", 80) + `"]`, 3},
		{"test.fail", `[]`, 3},
	} {
		_, _ = r.Invoke(context.Background(), c.method, []byte(c.args))
		if heard != c.want {
			t.Fatalf("after %s(%.20s): heard %d large calls, want %d", c.method, c.args, heard, c.want)
		}
	}
}

// A Streamed result comes whole from Invoke (its Whole) and in pieces from
// InvokeStream (its Write); a panic while it is written fails the call as
// "internal" like a handler's.
func TestRouterStreamed(t *testing.T) {
	t.Parallel()
	r := NewRouter()
	r.Register("test.read", func(context.Context, Args) (any, error) {
		return Streamed{
			Write: func(w io.Writer) error {
				_, err := io.WriteString(w, `["a",`)
				if err == nil {
					_, err = io.WriteString(w, `"b"]`)
				}
				return err
			},
			Whole: func() (json.RawMessage, error) { return json.RawMessage(`["a","b"]`), nil },
		}, nil
	})
	r.Register("test.boom", func(context.Context, Args) (any, error) {
		return Streamed{Write: func(io.Writer) error { panic("mid-stream") }, Whole: func() (json.RawMessage, error) { panic("whole") }}, nil
	})
	out, err := r.Invoke(context.Background(), "test.read", nil)
	if err != nil || string(out) != `["a","b"]` {
		t.Fatalf("Invoke = %s, %v", out, err)
	}
	out, stream, err := r.InvokeStream(context.Background(), "test.read", nil)
	var buf bytes.Buffer
	if err != nil || out != nil || stream == nil || stream(&buf) != nil || buf.String() != `["a","b"]` {
		t.Fatalf("InvokeStream = %s, %v; wrote %q", out, err, buf.String())
	}
	if _, err := r.Invoke(context.Background(), "test.boom", nil); apperr.CodeOf(err) != apperr.CodeInternal {
		t.Fatalf("a panicking Whole = %v", err)
	}
	_, stream, _ = r.InvokeStream(context.Background(), "test.boom", nil)
	if err := stream(&buf); apperr.CodeOf(err) != apperr.CodeInternal {
		t.Fatalf("a panicking Write = %v", err)
	}
}
