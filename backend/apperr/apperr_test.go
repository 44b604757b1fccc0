package apperr

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// captureLog points the default logger at a buffer for the test's length.
// Not parallel: slog's default is process-wide.
func captureLog(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return &buf
}

func TestShapeHidesForeignErrorsBehindARef(t *testing.T) {
	log := captureLog(t)
	secret := fmt.Errorf("open %s: permission denied", "/home/ann/.local/share/hearth/media/0f3a.gif")
	e := Shape(fmt.Errorf("serve avatar: %w", secret))
	if e.Code != CodeInternal {
		t.Fatalf("code = %q", e.Code)
	}
	ref, _ := e.Details["ref"].(string)
	if len(ref) != 12 {
		t.Fatalf("details.ref = %v", e.Details["ref"])
	}
	if strings.Contains(e.Message, "/home/ann") || strings.Contains(e.Message, "permission") || !strings.Contains(e.Message, ref) {
		t.Fatalf("message %q must name the ref and nothing of the error", e.Message)
	}
	line := log.String()
	if !strings.Contains(line, "ref="+ref) || !strings.Contains(line, "/home/ann/.local/share/hearth/media/0f3a.gif") {
		t.Fatalf("the log must hold the detail under the ref; got %q", line)
	}
	if again := Shape(e); again != e {
		t.Fatalf("shaping a shaped error must keep it")
	}
	if other := Shape(errors.New("x")); other.Details["ref"] == ref {
		t.Fatalf("refs must differ per error")
	}
}

func TestShapeKeepsHostErrors(t *testing.T) {
	log := captureLog(t)
	e := New(CodeChatNotFound, "chat %q not found", "abc")
	if got := Shape(fmt.Errorf("wrapped: %w", e)); got != e {
		t.Fatalf("Shape = %#v, want the wrapped host error", got)
	}
	if log.Len() != 0 {
		t.Fatalf("a host error is not logged as internal: %q", log.String())
	}
}

func TestLocalKeepsText(t *testing.T) {
	if e := Local(errors.New("dial tcp 127.0.0.1:1: connection refused")); e.Code != CodeInternal || !strings.Contains(e.Message, "connection refused") {
		t.Fatalf("Local = %#v", e)
	}
}
