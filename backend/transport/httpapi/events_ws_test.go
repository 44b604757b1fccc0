package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"hearth/backend/events"
)

// dialEvents opens the event socket of the server at base, with the launch
// token unless header has an Authorization entry ("" sends none).
func dialEvents(t *testing.T, base string, header http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	header = header.Clone()
	if header == nil {
		header = http.Header{}
	}
	if _, set := header["Authorization"]; !set {
		header.Set("Authorization", "Bearer "+testToken)
	} else if header.Get("Authorization") == "" {
		header.Del("Authorization")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	conn, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/api/events", &websocket.DialOptions{HTTPHeader: header})
	if err == nil {
		t.Cleanup(func() { conn.CloseNow() })
	}
	return conn, res, err
}

type wireEvent struct {
	Type    string         `json:"type"`
	Payload map[string]any `json:"payload"`
}

func readEvent(t *testing.T, conn *websocket.Conn) wireEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	typ, data, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("read event: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("frame type %v, want text", typ)
	}
	var e wireEvent
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return e
}

func TestEventsInOrderAndUnsubscribeOnClose(t *testing.T) {
	t.Parallel()
	a, s, ts := serveApp(t, nil)
	conn, _, err := dialEvents(t, ts.URL, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c := NewClient(ts.URL, testToken)
	names := []string{"Ann", "Bob", "Cid", "Dee", "Eve"}
	for _, name := range names {
		args, _ := json.Marshal([]any{map[string]any{"name": name}})
		if _, err := c.Invoke(t.Context(), "characters.create", args); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range names {
		e := readEvent(t, conn)
		if e.Type != events.CharacterCreated || e.Payload["avatar"] != name+".png" {
			t.Fatalf("event = %+v, want %s for %s", e, events.CharacterCreated, name)
		}
	}
	if n := s.activeSockets(); n != 1 {
		t.Errorf("active sockets = %d, want 1", n)
	}

	if err := conn.Close(websocket.StatusNormalClosure, "bye"); err != nil {
		t.Errorf("client close: %v", err)
	}
	eventually(t, "socket handler to unsubscribe and exit", func() bool { return s.activeSockets() == 0 })
	// The bus keeps working for everyone else after the socket left.
	got := make(chan events.Event, 1)
	unsubscribe := a.Bus.Subscribe(func(e events.Event) { got <- e })
	defer unsubscribe()
	if _, err := c.Invoke(t.Context(), "characters.create", []byte(`[{"name":"Fay"}]`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("bus stalled after a socket closed")
	}
}

func TestEventsCrossOriginRejected(t *testing.T) {
	t.Parallel()
	_, s, ts := serveApp(t, nil)
	_, res, err := dialEvents(t, ts.URL, http.Header{"Origin": {"http://evil.example"}})
	if err == nil {
		t.Fatal("cross-origin socket accepted")
	}
	if res == nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("response = %v, want 403", res)
	}
	_, _, err = dialEvents(t, ts.URL, http.Header{"Origin": {ts.URL}})
	if err != nil {
		t.Errorf("same-origin socket refused: %v", err)
	}
	eventually(t, "one socket", func() bool { return s.activeSockets() == 1 })
}

func TestEventsServerCloseClosesSockets(t *testing.T) {
	t.Parallel()
	_, s, ts := serveApp(t, nil)
	conn, _, err := dialEvents(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, _, err := conn.Read(t.Context())
		errc <- err
	}()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n := s.activeSockets(); n != 0 {
		t.Errorf("Close returned with %d sockets running", n)
	}
	select {
	case err := <-errc:
		if code := websocket.CloseStatus(err); code != websocket.StatusGoingAway {
			t.Errorf("close status %v (%v), want going away", code, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("client never saw the close")
	}
	if _, res, err := dialEvents(t, ts.URL, nil); err == nil || res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("dial after Close: %v %v", res, err)
	}
}

// fakeRouter answers nothing; the overflow test drives the bus directly.
type fakeRouter struct{}

func (fakeRouter) Invoke(context.Context, string, []byte) ([]byte, error) { return []byte("null"), nil }

func TestEventsSlowClientClosedWithPolicyViolation(t *testing.T) {
	t.Parallel()
	bus := events.NewBus()
	t.Cleanup(bus.Close)
	s, ts := serve(t, Config{Router: fakeRouter{}, Bus: bus}, func(s *Server) { s.maxQueue = 4 })
	conn, _, err := dialEvents(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(1 << 20)

	// The client reads nothing until the socket buffers fill, the writer
	// blocks and the queue overflows.
	filler := strings.Repeat("x", 16<<10)
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; s.overflows.Load() == 0; i++ {
		if time.Now().After(deadline) {
			t.Fatal("queue never overflowed")
		}
		bus.Publish(events.Event{Type: events.LibraryProgress, Payload: &events.LibraryProgressPayload{Op: "import", Phase: "filler", Done: i, Current: filler}})
		if i%64 == 63 {
			time.Sleep(time.Millisecond)
		}
	}
	var last float64 = -1
	for {
		_, data, err := conn.Read(t.Context())
		if err != nil {
			if code := websocket.CloseStatus(err); code != websocket.StatusPolicyViolation {
				t.Fatalf("stream ended with %v (%v), want policy violation", code, err)
			}
			break
		}
		var e wireEvent
		if err := json.Unmarshal(data, &e); err != nil {
			t.Fatal(err)
		}
		i, _ := e.Payload["done"].(float64)
		if i <= last {
			t.Fatalf("event %v after %v: out of order", i, last)
		}
		last = i
	}
	eventually(t, "overflowed socket to unsubscribe", func() bool { return s.activeSockets() == 0 })
	if got := s.overflows.Load(); got != 1 {
		t.Errorf("overflows = %d, want 1", got)
	}
}

func TestEventsPingKeepsHealthySocket(t *testing.T) {
	t.Parallel()
	bus := events.NewBus()
	t.Cleanup(bus.Close)
	s, ts := serve(t, Config{Router: fakeRouter{}, Bus: bus}, func(s *Server) {
		s.pingInterval = 10 * time.Millisecond
		s.pingTimeout = time.Second
	})
	conn, _, err := dialEvents(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan wireEvent, 16)
	go func() {
		for {
			_, data, err := conn.Read(context.Background())
			if err != nil {
				close(got)
				return
			}
			var e wireEvent
			_ = json.Unmarshal(data, &e)
			got <- e
		}
	}()
	time.Sleep(100 * time.Millisecond) // several pings answered by the reader
	bus.Publish(events.Event{Type: events.ConnectionsChanged, Payload: &events.ConnectionsChangedPayload{ConnectionID: "after_pings"}})
	select {
	case e, ok := <-got:
		if !ok || e.Type != events.ConnectionsChanged || e.Payload["connectionId"] != "after_pings" {
			t.Fatalf("got %+v (open %v)", e, ok)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event after pings")
	}
	if n := s.activeSockets(); n != 1 {
		t.Errorf("active sockets = %d", n)
	}
}

func TestEventsWithoutBus(t *testing.T) {
	t.Parallel()
	_, ts := serve(t, Config{Router: fakeRouter{}})
	_, res, err := dialEvents(t, ts.URL, nil)
	if err == nil || res == nil || res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("dial without a bus: %v %v", res, err)
	}
}

func TestEventQueue(t *testing.T) {
	t.Parallel()
	q := newEventQueue(2)
	for i := range 2 {
		if q.push([]byte(fmt.Sprint(i))) {
			t.Fatalf("push %d overflowed", i)
		}
	}
	if !q.push([]byte("2")) {
		t.Fatal("third push did not report the overflow")
	}
	if q.push([]byte("3")) {
		t.Error("overflow reported twice")
	}
	if !q.overflowed.Load() || len(q.take()) != 0 {
		t.Error("overflowed queue kept its backlog")
	}
}
