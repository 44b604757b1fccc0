package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"hearth/backend/apperr"
	"hearth/backend/events"
)

// handleEvents upgrades to a WebSocket and pushes every bus event as a text
// frame {"type", "payload"}, in bus order. The client may send calls on it
// (events_calls.go), whose answers come back among the events. Each socket
// has its own bus subscription, removed before the handler returns, after
// its calls have ended. A client that falls more than maxQueue messages
// behind is closed with StatusPolicyViolation: it should reconnect and
// reload its state rather than hold an unbounded backlog.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	if s.bus == nil {
		writeError(w, http.StatusServiceUnavailable, apperr.New(apperr.CodeInternal, "this server has no event stream"))
		return
	}
	if !s.trackSocket() {
		writeError(w, http.StatusServiceUnavailable, apperr.New(apperr.CodeInternal, "server is shutting down"))
		return
	}
	defer s.untrackSocket()
	// Subscribe before the handshake completes: once a client sees the
	// socket open, no later event can be missed, so it may fetch its
	// initial state right away.
	q := newEventQueue(s.maxQueue)
	unsubscribe, inLine := s.bus.SubscribeInLine(func(e events.Event) {
		if q.push(s.encodeEvent(e)) {
			s.overflows.Add(1)
		}
	})
	// Origin was checked by the guard; Accept repeats its own same-host
	// check, which the guard's rule implies.
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		unsubscribe()
		s.log.Debug("httpapi: websocket accept", "err", err)
		return
	}
	// A call frame may be as large as an invoke body, plus its envelope.
	conn.SetReadLimit(s.maxBody + 4<<10)
	ctx, cancel := context.WithCancel(context.Background())
	calls := newSocketCalls(s, q, inLine)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer cancel()
		calls.read(ctx, conn)
	}()
	pingCtx, stopPing := context.WithCancel(ctx)
	pingDone := s.keepAlive(pingCtx, conn)
	ended, stopWatch := s.auth.sessionEnded(r)
	defer stopWatch()

	code, reason := s.pump(ctx, conn, q, ended)

	stopPing()
	<-pingDone
	if code == 0 {
		_ = conn.CloseNow()
	} else {
		_ = conn.Close(code, reason)
	}
	cancel()
	<-readDone
	calls.wait()
	unsubscribe()
}

// encodeEvent renders e for the wire, nil when it cannot be encoded (the
// event is then skipped and logged rather than killing the stream).
func (s *Server) encodeEvent(e events.Event) []byte {
	msg, err := json.Marshal(e)
	if err != nil {
		s.log.Warn("httpapi: event not encodable", "type", e.Type, "err", err)
		return nil
	}
	return msg
}

// pump writes queued events (and call answers) until the peer goes away, the server closes,
// the session that opened the socket ends (logout, expiry: its events are
// no longer the peer's to see) or the client falls too far behind. It
// returns the close status to send, 0 for none (the connection is already
// gone).
func (s *Server) pump(ctx context.Context, conn *websocket.Conn, q *eventQueue, ended <-chan struct{}) (websocket.StatusCode, string) {
	for {
		select {
		case <-ctx.Done():
			return 0, ""
		case <-s.done:
			return websocket.StatusGoingAway, "server shutting down"
		case <-ended:
			return websocket.StatusPolicyViolation, "session ended; log in again"
		case <-q.wake:
		}
		batch := q.take()
		for _, msg := range batch {
			if q.overflowed.Load() {
				break
			}
			wctx, cancel := context.WithTimeout(ctx, s.frameTimeout(len(msg)))
			err := conn.Write(wctx, websocket.MessageText, msg)
			cancel()
			if err != nil {
				return 0, ""
			}
		}
		if q.overflowed.Load() {
			return websocket.StatusPolicyViolation, "event stream fell behind; reconnect and resync"
		}
	}
}

// frameTimeout is how long writing one frame of n bytes may take: the
// write timeout, plus time for its size at the slowest rate a body may
// arrive (bodyTimeout), so a page of a chat reaches a phone on poor Wi-Fi.
func (s *Server) frameTimeout(n int) time.Duration {
	return s.writeTimeout + time.Duration(int64(n)*int64(time.Second)/s.minBodyRate)
}

// keepAlive pings the peer periodically and drops the connection when a
// pong does not come back in time, so a vanished phone does not hold a
// subscription forever. The calls' reader processes the pongs.
func (s *Server) keepAlive(ctx context.Context, conn *websocket.Conn) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.pingInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			pctx, cancel := context.WithTimeout(ctx, s.pingTimeout)
			err := conn.Ping(pctx)
			cancel()
			if err != nil {
				if ctx.Err() == nil {
					s.log.Debug("httpapi: websocket ping failed", "err", err)
					_ = conn.CloseNow()
				}
				return
			}
		}
	}()
	return done
}

// eventQueue decouples the bus from one socket: push never blocks, and a
// queue past max marks the socket as overflowed instead of growing without
// bound.
type eventQueue struct {
	max        int
	wake       chan struct{}
	overflowed atomic.Bool

	mu    sync.Mutex
	items [][]byte
}

func newEventQueue(max int) *eventQueue {
	return &eventQueue{max: max, wake: make(chan struct{}, 1)}
}

// push appends msg (nil is skipped) and reports whether this push is the
// one that overflowed the queue.
func (q *eventQueue) push(msg []byte) bool {
	if msg == nil || q.overflowed.Load() {
		return false
	}
	q.mu.Lock()
	overflow := len(q.items) >= q.max
	if overflow {
		q.items = nil
		q.overflowed.Store(true)
	} else {
		q.items = append(q.items, msg)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return overflow
}

func (q *eventQueue) take() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.items
	q.items = nil
	return batch
}
