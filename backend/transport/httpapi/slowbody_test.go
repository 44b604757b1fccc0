package httpapi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/backend/apperr"
)

// cutOffWithin is the generous bound a refused or too-slow connection must
// be closed within; the shrunk deadlines below close them in about a second.
const cutOffWithin = 15 * time.Second

// shrinkBodyDeadlines makes the body rule (slack + size/rate) short enough
// for a test to watch it fire: 50 MB at 1 GiB/s is about 50 ms.
func shrinkBodyDeadlines(s *Server) {
	s.bodySlack = time.Second
	s.minBodyRate = 1 << 30
	s.refuseGrace = 200 * time.Millisecond
	s.idleTimeout = time.Second
}

// rawRequest is what a hand-written HTTP/1.1 client saw on one connection.
type rawRequest struct {
	res     *http.Response // nil when the server closed before answering
	body    []byte         // res's body
	closed  bool           // the server closed the connection
	elapsed time.Duration  // from dial to close
	err     error          // a failure of the test client itself
}

// sendPartial dials host, sends head (request line and headers, without
// the blank line) and then only the first bytes of a body, calls sent (when
// not nil), and waits until the server answers and closes the connection,
// or cutOffWithin passes.
func sendPartial(host, head, partial string, sent func()) rawRequest {
	start := time.Now()
	conn, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		if sent != nil {
			sent()
		}
		return rawRequest{err: err}
	}
	defer conn.Close()
	_ = conn.SetDeadline(start.Add(cutOffWithin))
	// A write may fail when the server has already closed the connection;
	// the read below tells.
	_, _ = io.WriteString(conn, head+"\r\n\r\n"+partial)
	if sent != nil {
		sent()
	}
	br := bufio.NewReader(conn)
	var out rawRequest
	if res, err := http.ReadResponse(br, nil); err == nil {
		out.body, _ = io.ReadAll(res.Body)
		res.Body.Close()
		out.res = res
	}
	_, err = io.Copy(io.Discard, br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return out // still open at the deadline
	}
	out.closed = true
	out.elapsed = time.Since(start)
	return out
}

func postHead(host, path string, contentLength int, extra ...string) string {
	lines := append([]string{
		"POST " + path + " HTTP/1.1",
		"Host: " + host,
		"Content-Type: application/json",
		fmt.Sprintf("Content-Length: %d", contentLength),
	}, extra...)
	return strings.Join(lines, "\r\n")
}

// TestSlowBodyFloodIsCutOff opens many more connections than the
// unauthenticated cap, each declaring a big body and sending one byte of
// it. Every one must be closed within the (shrunk) deadlines, a real client
// must still get through, and the server's heap must stay small.
//
// Not parallel: it measures the heap, which other tests would disturb.
func TestSlowBodyFloodIsCutOff(t *testing.T) {
	const (
		attackers = 200
		heapBound = 16 << 20
	)
	for _, mode := range []struct {
		name, password string
		limit          int
	}{
		{"password without cookie", testPassword, 16},
		// Without a password the attackers hold the launch token (a
		// script of this machine gone wrong), so they reach the body.
		{"no password", "", 16},
		// The cap out of the way: every connection reaches the body read,
		// and the body deadline alone must cut them all off.
		{"no password, cap above the flood", "", 1000},
	} {
		t.Run(mode.name, func(t *testing.T) {
			a := openApp(t)
			s, base := start(t, Config{Router: a.Router, Bus: a.Bus, Password: mode.password}, shrinkBodyDeadlines,
				func(s *Server) { s.maxUnauthConns = mode.limit })
			host := strings.TrimPrefix(base, "http://")
			// Warm up the server and the client side before measuring.
			legitInvoke(t, base, mode.password, false)

			runtime.GC()
			var before, during runtime.MemStats
			runtime.ReadMemStats(&before)

			results := make(chan rawRequest, attackers)
			var sent sync.WaitGroup
			for i := range attackers {
				sent.Add(1)
				go func() {
					// Above and below Go's 256 KiB post-handler drain.
					cl := 50_000_000
					if i%2 == 1 {
						cl = 100_000
					}
					var extra []string
					if mode.password == "" {
						extra = append(extra, tokenLine)
					}
					results <- sendPartial(host, postHead(host, "/api/invoke", cl, extra...), "{", sent.Done)
				}()
			}
			sent.Wait()
			runtime.GC()
			runtime.ReadMemStats(&during)
			// A real client gets through meanwhile (retrying while the cap
			// turns its connections away in password mode).
			legitInvoke(t, base, mode.password, true)

			var slowest time.Duration
			statuses := map[int]int{}
			for range attackers {
				r := <-results
				if r.err != nil {
					t.Fatalf("attacker: %v", r.err)
				}
				if !r.closed {
					t.Fatalf("a connection was still open after %v (response %v)", cutOffWithin, r.res)
				}
				slowest = max(slowest, r.elapsed)
				if r.res != nil {
					statuses[r.res.StatusCode]++
					if !r.res.Close {
						t.Errorf("%d response without Connection: close", r.res.StatusCode)
					}
				}
			}
			growth := int64(during.HeapInuse) - int64(before.HeapInuse)
			t.Logf("%d connections all cut off, slowest after %v; responses %v; refused at accept %d; HeapInuse %d → %d KiB (%+d KiB)",
				attackers, slowest.Round(time.Millisecond), statuses, s.conns.refusedTotal(),
				before.HeapInuse>>10, during.HeapInuse>>10, growth>>10)
			if growth > heapBound {
				t.Errorf("heap grew by %d KiB during the flood, bound %d KiB", growth>>10, heapBound>>10)
			}
			for status := range statuses {
				want := http.StatusUnauthorized
				if mode.password == "" {
					want = http.StatusRequestTimeout
				}
				if status != want {
					t.Errorf("attackers got status %d, want %d", status, want)
				}
			}
			// Right after: nothing is left counted, and a client gets in
			// at the first try.
			eventually(t, "connection records to drain", func() bool { return s.conns.tracked() == 0 })
			legitInvoke(t, base, mode.password, false)
		})
	}
}

// legitInvoke logs in (when there is a password) and lists characters
// through a fresh Client. With retry, transport failures (a connection
// the cap turned away) are retried until cutOffWithin passes.
func legitInvoke(t *testing.T, base, password string, retry bool) {
	t.Helper()
	deadline := time.Now().Add(cutOffWithin)
	for {
		token := testToken
		if password != "" {
			token = ""
		}
		c := NewClient(base, token)
		err := func() error {
			if password != "" {
				if err := c.Login(t.Context(), password); err != nil {
					return err
				}
			}
			_, err := c.Invoke(t.Context(), "characters.list", nil)
			return err
		}()
		c.http.CloseIdleConnections()
		if err == nil {
			return
		}
		if !retry || apperr.CodeOf(err) != apperr.CodeInternal || time.Now().After(deadline) {
			t.Fatalf("legitimate client: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRefusalClosesWithoutReadingBody sends requests that are refused
// before their body is read, with the body never finished: each must be
// answered at once with Connection: close and the connection closed, not
// held while the server waits for (or drains) the body.
func TestRefusalClosesWithoutReadingBody(t *testing.T) {
	t.Parallel()
	pw := func(c *Config) { c.Password = testPassword }
	_, _, pwBase := startApp(t, pw, shrinkBodyDeadlines, freezeLogins)
	_, _, openBase := startApp(t, nil, shrinkBodyDeadlines, func(s *Server) { s.maxBody = 1 << 10 })
	pwHost, openHost := strings.TrimPrefix(pwBase, "http://"), strings.TrimPrefix(openBase, "http://")

	// Spend the login budget of 127.0.0.1 on the password server.
	for range loginBurst {
		res, body := login(t, nil, pwBase, "guess")
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("login: %d %s", res.StatusCode, body)
		}
	}
	tests := []struct {
		name   string
		host   string
		head   string
		status int
	}{
		{"invoke without session", pwHost, postHead(pwHost, "/api/invoke", 1000), http.StatusUnauthorized},
		{"invoke with a forged session", pwHost, postHead(pwHost, "/api/invoke", 1000, "Cookie: "+sessionCookie+"=forged"), http.StatusUnauthorized},
		{"login past the rate limit", pwHost, postHead(pwHost, "/api/login", 1000), http.StatusTooManyRequests},
		{"invoke without the launch token", openHost, postHead(openHost, "/api/invoke", 1000), http.StatusUnauthorized},
		{"invoke with a wrong launch token", openHost, postHead(openHost, "/api/invoke", 1000, "Authorization: Bearer "+testToken+"x"), http.StatusUnauthorized},
		{"foreign origin", openHost, postHead(openHost, "/api/invoke", 1000, "Origin: http://evil.example", tokenLine), http.StatusForbidden},
		{"foreign host", openHost, postHead("evil.example", "/api/invoke", 1000, tokenLine), http.StatusForbidden},
		{"declared body over the cap", openHost, postHead(openHost, "/api/invoke", 2000, tokenLine), http.StatusRequestEntityTooLarge},
		{"post to a page", openHost, postHead(openHost, "/index.html", 1000), http.StatusMethodNotAllowed},
		{"post to no endpoint", openHost, postHead(openHost, "/api/nothing", 1000, tokenLine), http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := sendPartial(tt.host, tt.head, `{"method":`, nil)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.res == nil {
				t.Fatalf("no response (closed %v after %v)", r.closed, r.elapsed)
			}
			if r.res.StatusCode != tt.status || !r.res.Close {
				t.Errorf("status %d, Connection: close %v; want %d and close", r.res.StatusCode, r.res.Close, tt.status)
			}
			if !r.closed {
				t.Errorf("connection still open after %v", cutOffWithin)
			}
		})
	}
}

// A login body larger than a login can be is refused before it is read.
func TestLoginRefusesOversizedBody(t *testing.T) {
	t.Parallel()
	_, _, base := startApp(t, func(c *Config) { c.Password = testPassword }, shrinkBodyDeadlines)
	host := strings.TrimPrefix(base, "http://")
	r := sendPartial(host, postHead(host, "/api/login", 100_000), `{"password":"`, nil)
	if r.res == nil || r.res.StatusCode != http.StatusRequestEntityTooLarge || !r.res.Close || !r.closed {
		t.Fatalf("response %v, closed %v", r.res, r.closed)
	}
}

// TestSlowSteadyBodyAccepted sends a body slower than the fixed slack alone
// would allow but faster than the minimum rate: it must arrive.
func TestSlowSteadyBodyAccepted(t *testing.T) {
	t.Parallel()
	_, _, base := startApp(t, nil, func(s *Server) {
		s.bodySlack = 200 * time.Millisecond
		s.minBodyRate = 10 << 10 // 30 KiB → 200 ms + 3 s
	})
	host := strings.TrimPrefix(base, "http://")
	body := invokeBody(t, "characters.create", map[string]any{"name": "Tortoise", "description": strings.Repeat("x", 30<<10)})
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(cutOffWithin))
	if _, err := io.WriteString(conn, postHead(host, "/api/invoke", len(body), tokenLine)+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// Ten pieces 100 ms apart: about a second, five times the slack.
	const pieces = 10
	step := (len(body) + pieces - 1) / pieces
	for rest := body; rest != ""; {
		n := min(step, len(rest))
		if _, err := io.WriteString(conn, rest[:n]); err != nil {
			t.Fatalf("write: %v", err)
		}
		rest = rest[n:]
		time.Sleep(100 * time.Millisecond)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(data), `"Tortoise.png"`) {
		t.Fatalf("status %d: %s", res.StatusCode, data)
	}
}

// TestStalledBodyTimesOut: a body that stops arriving gets 408 once its
// deadline passes, and the connection is closed.
func TestStalledBodyTimesOut(t *testing.T) {
	t.Parallel()
	_, _, base := startApp(t, nil, shrinkBodyDeadlines)
	host := strings.TrimPrefix(base, "http://")
	r := sendPartial(host, postHead(host, "/api/invoke", 1000, tokenLine), `{"method":`, nil)
	if r.res == nil {
		t.Fatalf("no response (closed %v)", r.closed)
	}
	e := wantError(t, r.res, r.body, http.StatusRequestTimeout, CodeBodyTimeout)
	if !strings.Contains(e.Message, "slowly") || !r.res.Close || !r.closed {
		t.Errorf("message %q, close %v, closed %v", e.Message, r.res.Close, r.closed)
	}
}

func TestBodyDeadlineRule(t *testing.T) {
	t.Parallel()
	s := &Server{bodySlack: 20 * time.Second, minBodyRate: 256 << 10, maxBody: MaxInvokeBody}
	tests := []struct {
		contentLength, limit int64
		want                 time.Duration
	}{
		{0, MaxInvokeBody, 20 * time.Second},
		{256 << 10, MaxInvokeBody, 21 * time.Second},
		{64 << 20, MaxInvokeBody, 20*time.Second + 256*time.Second},
		{-1, MaxInvokeBody, 20*time.Second + 256*time.Second}, // chunked: the largest allowed
		{1 << 40, MaxInvokeBody, 20*time.Second + 256*time.Second},
		{-1, maxLoginBody, 20*time.Second + time.Second/64},
	}
	for _, tt := range tests {
		if got := s.bodyTimeout(tt.contentLength, tt.limit); got != tt.want {
			t.Errorf("bodyTimeout(%d, %d) = %v, want %v", tt.contentLength, tt.limit, got, tt.want)
		}
	}
}
