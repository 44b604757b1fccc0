package httpapi

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// connWarnEvery rate-limits the warning about refused connections, so a
// flood cannot flood the log too.
const connWarnEvery = time.Minute

// connTracker counts the connections that have not shown they belong to a
// user yet. Every accepted connection is such a stranger until one of its
// requests carries a valid session (or, without a password, passes the
// Host and Origin guard). Strangers are capped: memory, goroutines and file
// descriptors then stay bounded whatever a client that never logs in does,
// while a signed-in browser's connections are never turned away.
type connTracker struct {
	mu       sync.Mutex
	records  map[net.Conn]*connRecord
	unauth   int
	refused  int64
	lastWarn time.Time
}

// connRecord is one connection's standing. It travels in the request
// context (connContext) so the guard can promote it; the tracker's mutex
// guards its fields.
type connRecord struct {
	authenticated bool
	refused       bool // closed by the cap; never counted
	gone          bool // hijacked or closed; no longer counted
}

type connRecordKey struct{}

// connContext is http.Server.ConnContext: it registers the connection and
// puts its record in the context every request on it inherits. It runs on
// the accept loop, just before ConnState(StateNew).
func (s *Server) connContext(ctx context.Context, c net.Conn) context.Context {
	rec := &connRecord{}
	s.conns.mu.Lock()
	s.conns.records[c] = rec
	s.conns.mu.Unlock()
	return context.WithValue(ctx, connRecordKey{}, rec)
}

// connState is http.Server.ConnState. A new connection past the cap of
// strangers is closed at once, before a byte of it is read (for TLS,
// before the handshake). Hijacked connections (the event stream, which
// passed the session check to get there) and closed ones leave the books.
func (s *Server) connState(c net.Conn, state http.ConnState) {
	t := &s.conns
	switch state {
	case http.StateNew:
		t.mu.Lock()
		rec := t.records[c]
		if rec == nil {
			rec = &connRecord{}
			t.records[c] = rec
		}
		if t.unauth >= s.maxUnauthConns {
			rec.refused = true
			t.refused++
			warn := time.Since(t.lastWarn) >= connWarnEvery
			if warn {
				t.lastWarn = time.Now()
			}
			refused := t.refused
			t.mu.Unlock()
			_ = c.Close()
			if warn {
				s.log.Warn("httpapi: too many connections without a session; closing new ones",
					"limit", s.maxUnauthConns, "refusedSoFar", refused)
			}
			return
		}
		t.unauth++
		t.mu.Unlock()
	case http.StateHijacked, http.StateClosed:
		t.mu.Lock()
		if rec := t.records[c]; rec != nil {
			delete(t.records, c)
			rec.gone = true
			if !rec.authenticated && !rec.refused {
				t.unauth--
			}
		}
		t.mu.Unlock()
	}
}

// admit marks the connection r arrived on as belonging to a user, which
// takes it out of the count of strangers. Requests served outside this
// server's http.Server (no record in the context) are left alone.
func (s *Server) admit(r *http.Request) {
	rec, ok := r.Context().Value(connRecordKey{}).(*connRecord)
	if !ok {
		return
	}
	t := &s.conns
	t.mu.Lock()
	defer t.mu.Unlock()
	if rec.authenticated || rec.refused || rec.gone {
		return
	}
	rec.authenticated = true
	t.unauth--
}

// unauthenticated is the number of strangers connected now.
func (t *connTracker) unauthenticated() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.unauth
}

// tracked is the number of connections the server holds records for.
func (t *connTracker) tracked() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.records)
}

// refusedTotal is how many connections the cap has closed.
func (t *connTracker) refusedTotal() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refused
}
