package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"hearth/backend/events"
)

// blockRouter answers "echo" at once with its arguments, and holds "hold"
// until release is closed or the call's context ends (counted in canceled).
type blockRouter struct {
	release  chan struct{}
	started  atomic.Int64
	canceled atomic.Int64
}

func (b *blockRouter) Invoke(ctx context.Context, method string, args []byte) ([]byte, error) {
	switch method {
	case "echo":
		return args, nil
	case "hold":
		b.started.Add(1)
		select {
		case <-b.release:
			return []byte(`"released"`), nil
		case <-ctx.Done():
			b.canceled.Add(1)
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("no method %s", method)
}

// callSocket opens an event socket on a server over router and returns it
// with a reader of its answers, by id.
func callSocket(t *testing.T, router Invoker, tune ...func(*Server)) (*Server, *websocket.Conn, func(id string) map[string]any) {
	t.Helper()
	bus := events.NewBus()
	t.Cleanup(bus.Close)
	s, ts := serve(t, Config{Router: router, Bus: bus}, tune...)
	conn, _, err := dialEvents(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	next := func(id string) map[string]any {
		t.Helper()
		for got[id] == nil {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			_, data, err := conn.Read(ctx)
			cancel()
			if err != nil {
				t.Fatalf("waiting for the answer to %s: %v", id, err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			got[fmt.Sprint(m["id"])] = m
		}
		return got[id]
	}
	return s, conn, next
}

func write(t *testing.T, conn *websocket.Conn, frame string) {
	t.Helper()
	if err := conn.Write(t.Context(), websocket.MessageText, []byte(frame)); err != nil {
		t.Fatal(err)
	}
}

// closedWith reads until the socket closes and returns its status.
func closedWith(t *testing.T, conn *websocket.Conn) websocket.StatusCode {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		if _, _, err := conn.Read(ctx); err != nil {
			return websocket.CloseStatus(err)
		}
	}
}

// TestSocketCallProtocol: ids come back as sent (numbers and strings),
// answers in the order calls end (a held call does not hold up the next),
// a call without a method is an error answer, and a frame that is not a
// call — binary, not JSON, an id of the wrong kind or too long — closes
// the socket with a status saying so.
func TestSocketCallProtocol(t *testing.T) {
	t.Parallel()
	r := &blockRouter{release: make(chan struct{})}
	_, conn, next := callSocket(t, r)
	write(t, conn, `{"id":1,"method":"hold","args":[]}`)
	write(t, conn, `{"id":"two","method":"echo","args":[{"a":1}]}`)
	if m := next("two"); fmt.Sprint(m["result"]) != "[map[a:1]]" || m["id"] != "two" {
		t.Fatalf("echo answered %v", m)
	}
	write(t, conn, `{"id":3,"args":[]}`)
	if e, _ := next("3")["error"].(map[string]any); e["code"] != "validation.invalid_argument" {
		t.Errorf("a call without a method: %v", e)
	}
	write(t, conn, `{"id":4,"method":"nope","args":[]}`)
	if e, _ := next("4")["error"].(map[string]any); e["code"] != "internal" {
		t.Errorf("a failing call: %v", e)
	}
	close(r.release)
	if m := next("1"); m["result"] != "released" {
		t.Errorf("the held call answered %v", m)
	}

	for _, tc := range []struct {
		name  string
		typ   websocket.MessageType
		frame string
		want  websocket.StatusCode
	}{
		{"binary", websocket.MessageBinary, `{"id":1,"method":"echo"}`, websocket.StatusUnsupportedData},
		{"not JSON", websocket.MessageText, `{"id":1,`, websocket.StatusInvalidFramePayloadData},
		{"no id", websocket.MessageText, `{"method":"echo","args":[]}`, websocket.StatusInvalidFramePayloadData},
		{"an object id", websocket.MessageText, `{"id":{"x":1},"method":"echo","args":[]}`, websocket.StatusInvalidFramePayloadData},
		{"a long id", websocket.MessageText, `{"id":"` + strings.Repeat("x", maxCallID) + `","method":"echo"}`, websocket.StatusInvalidFramePayloadData},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, conn, _ := callSocket(t, r)
			if err := conn.Write(t.Context(), tc.typ, []byte(tc.frame)); err != nil {
				t.Fatal(err)
			}
			if got := closedWith(t, conn); got != tc.want {
				t.Errorf("closed with %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSocketCallLimits: past maxSocketCalls running, a call is answered
// transport.busy at once; a frame larger than an invoke body closes the
// socket; closing the socket ends the calls still running (their context)
// and the handler waits for them.
func TestSocketCallLimits(t *testing.T) {
	t.Parallel()
	r := &blockRouter{release: make(chan struct{})}
	s, conn, next := callSocket(t, r, func(s *Server) { s.maxBody = 1 << 10 })
	for i := range maxSocketCalls {
		write(t, conn, fmt.Sprintf(`{"id":%d,"method":"hold","args":[]}`, i))
	}
	eventually(t, "every call to start", func() bool { return r.started.Load() == maxSocketCalls })
	write(t, conn, `{"id":"over","method":"echo","args":[]}`)
	if e, _ := next("over")["error"].(map[string]any); e["code"] != CodeBusy {
		t.Fatalf("the call past the limit: %v", next("over"))
	}
	_ = conn.CloseNow()
	eventually(t, "the running calls to be canceled", func() bool { return r.canceled.Load() == maxSocketCalls })
	eventually(t, "the socket handler to end", func() bool { return s.activeSockets() == 0 })

	_, big, _ := callSocket(t, r, func(s *Server) { s.maxBody = 1 << 10 })
	write(t, big, `{"id":1,"method":"echo","args":["`+strings.Repeat("x", 8<<10)+`"]}`)
	if got := closedWith(t, big); got != websocket.StatusMessageTooBig {
		t.Errorf("an oversized frame closed the socket with %v", got)
	}
}

// TestSocketAnswerAfterItsEvents: the events a call's write published
// reach the page before the call's answer, so a page that reads what its
// events keep right after the call sees the write.
func TestSocketAnswerAfterItsEvents(t *testing.T) {
	t.Parallel()
	_, _, ts := serveApp(t, nil)
	conn, _, err := dialEvents(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		name := fmt.Sprintf("Ordered %d", i)
		write(t, conn, fmt.Sprintf(`{"id":%d,"method":"characters.create","args":[{"name":%q}]}`, i, name))
		created := false
		for {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			_, data, err := conn.Read(ctx)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				ID      *int           `json:"id"`
				Type    string         `json:"type"`
				Payload map[string]any `json:"payload"`
			}
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			if m.ID == nil {
				created = created || (m.Type == events.CharacterCreated && m.Payload["avatar"] == name+".png")
				continue
			}
			if *m.ID != i || !created {
				t.Fatalf("call %d: answer %s came before its %s event", i, data, events.CharacterCreated)
			}
			break
		}
	}
}
