package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"hearth/backend/events"
)

// closedByServer reports whether the server closed conn (EOF or reset)
// before within passed; false means it was still open.
func closedByServer(conn net.Conn, within time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(within))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// getSession sends GET /api/session on an open connection and returns the
// status, proving the connection is alive and served.
func getSession(t *testing.T, conn net.Conn, br *bufio.Reader, host string, extra ...string) int {
	t.Helper()
	_ = conn.SetDeadline(time.Now().Add(cutOffWithin))
	head := "GET /api/session HTTP/1.1\r\nHost: " + host + "\r\n"
	for _, line := range extra {
		head += line + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		t.Fatalf("write: %v", err)
	}
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

func TestUnauthenticatedConnectionCap(t *testing.T) {
	t.Parallel()
	const limit = 4
	s, base := start(t, Config{Router: fakeRouter{}, Password: testPassword}, func(s *Server) {
		s.maxUnauthConns = limit
		s.readHeaderTimeout = time.Minute // the idle connections below must outlive the test
	})
	host := strings.TrimPrefix(base, "http://")

	idle := make([]net.Conn, limit)
	for i := range idle {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		idle[i] = conn
	}
	eventually(t, "the cap to fill", func() bool { return s.conns.unauthenticated() == limit })

	extra, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	if !closedByServer(extra, cutOffWithin) {
		t.Fatalf("a connection past the cap of %d was kept open", limit)
	}
	if s.conns.refusedTotal() < 1 {
		t.Errorf("refused = %d", s.conns.refusedTotal())
	}
	// The connections under the cap are still served.
	br := bufio.NewReader(idle[0])
	if status := getSession(t, idle[0], br, host); status != http.StatusOK {
		t.Fatalf("session on a connection under the cap: %d", status)
	}

	for _, c := range idle {
		c.Close()
	}
	eventually(t, "closed connections to leave the count", func() bool { return s.conns.unauthenticated() == 0 })

	// A connection that logs in stops counting, while it stays open.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if res, body := login(t, browser, base, testPassword); res.StatusCode != http.StatusOK {
		t.Fatalf("login: %d %s", res.StatusCode, body)
	}
	if n := s.conns.unauthenticated(); n != 0 {
		t.Errorf("unauthenticated = %d after login, want 0", n)
	}
	if n := s.conns.tracked(); n != 1 {
		t.Errorf("tracked = %d, want the browser's kept-alive connection", n)
	}
	// A new connection that shows a valid session cookie on its first
	// request stops counting too, even on a route without a session check.
	browser.CloseIdleConnections()
	if res, _ := do(t, browser, "GET", base+"/", "", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("GET /: %d", res.StatusCode)
	}
	if n := s.conns.unauthenticated(); n != 0 {
		t.Errorf("unauthenticated = %d after a request with the session cookie, want 0", n)
	}
	browser.CloseIdleConnections()
	eventually(t, "records to drain", func() bool { return s.conns.tracked() == 0 })
}

// Without a password, the launch token is what lifts a connection out of
// the unauthenticated count; a request without it leaves it counted.
func TestConnectionCapWithoutPassword(t *testing.T) {
	t.Parallel()
	s, base := start(t, Config{Router: fakeRouter{}}, func(s *Server) { s.maxUnauthConns = 1 })
	host := strings.TrimPrefix(base, "http://")
	first, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	eventually(t, "one unauthenticated connection", func() bool { return s.conns.unauthenticated() == 1 })
	br := bufio.NewReader(first)
	if status := getSession(t, first, br, host); status != http.StatusOK {
		t.Fatalf("session: %d", status)
	}
	if n := s.conns.unauthenticated(); n != 1 {
		t.Fatalf("unauthenticated = %d after a request without the token, want 1", n)
	}
	if status := getSession(t, first, br, host, tokenLine); status != http.StatusOK {
		t.Fatalf("session: %d", status)
	}
	if n := s.conns.unauthenticated(); n != 0 {
		t.Fatalf("unauthenticated = %d after a guarded request, want 0", n)
	}
	// The slot is free again for the next connection.
	second, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if status := getSession(t, second, bufio.NewReader(second), host, tokenLine); status != http.StatusOK {
		t.Fatalf("second connection: %d", status)
	}
}

// TestEventSocketOutlivesTimeouts: the event stream is hijacked and must
// stay open for hours, so none of the header, body and idle deadlines may
// reach it.
func TestEventSocketOutlivesTimeouts(t *testing.T) {
	t.Parallel()
	bus := events.NewBus()
	t.Cleanup(bus.Close)
	s, base := start(t, Config{Router: fakeRouter{}, Bus: bus, Password: testPassword}, func(s *Server) {
		s.readHeaderTimeout = 100 * time.Millisecond
		s.idleTimeout = 100 * time.Millisecond
		s.bodySlack = 100 * time.Millisecond
		s.minBodyRate = 1 << 20
		s.refuseGrace = 100 * time.Millisecond
		s.pingInterval = 20 * time.Millisecond
		s.pingTimeout = 5 * time.Second
	})
	c := NewClient(base, testToken)
	if err := c.Login(t.Context(), testPassword); err != nil {
		t.Fatal(err)
	}
	u := strings.TrimSuffix(base, "/")
	cookies := c.http.Jar.Cookies(mustURL(t, u))
	header := http.Header{}
	for _, ck := range cookies {
		header.Add("Cookie", ck.String())
	}
	conn, _, err := dialEvents(t, base, header)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	got := make(chan wireEvent, 16)
	go func() {
		defer close(got)
		for {
			_, data, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			var e wireEvent
			_ = json.Unmarshal(data, &e)
			got <- e
		}
	}()
	// Well past every shrunk deadline, with server pings flowing and an
	// invoke with a body on another connection.
	time.Sleep(time.Second)
	if _, err := c.Invoke(t.Context(), "characters.list", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := conn.Ping(ctx); err != nil {
		t.Fatalf("client ping after the deadlines: %v", err)
	}
	bus.Publish(events.Event{Type: events.ConnectionsChanged, Payload: &events.ConnectionsChangedPayload{ConnectionID: "still_here"}})
	select {
	case e, ok := <-got:
		if !ok || e.Type != events.ConnectionsChanged || e.Payload["connectionId"] != "still_here" {
			t.Fatalf("got %+v (open %v)", e, ok)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event after the deadlines")
	}
	if n := s.activeSockets(); n != 1 {
		t.Errorf("active sockets = %d", n)
	}
	// The hijacked connection left the connection records.
	c.http.CloseIdleConnections()
	eventually(t, "records to drain", func() bool { return s.conns.tracked() == 0 })
	if err := conn.Close(websocket.StatusNormalClosure, "done"); err != nil {
		t.Errorf("close: %v", err)
	}
}
