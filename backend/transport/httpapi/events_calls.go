package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/coder/websocket"

	"hearth/backend/apperr"
)

// Calls over the event socket. A browser opens at most six HTTP/1.1
// connections to a host, across all its tabs; a call that waits on another
// (an updateChatState round waiting for the namespace's lease, held by a
// round whose write is queued behind it) would wait on a connection slot,
// and enough of them stall every tab until a lease expires. So the page
// sends its calls as text frames on the socket it already holds for events:
// each runs at once in its own goroutine, and its answer comes back on the
// same socket, tagged with the call's id, in whatever order calls end. No
// call can then wait for another's slot. POST /api/invoke stays for
// clients without a socket and for bodies larger than a frame is meant to
// carry.
//
// A frame is {"id", "method", "args"}: id a number or a string of at most
// maxCallID bytes, echoed as is. The answer is {"id", "result"} or
// {"id", "error"}, the error in the API's shape, and comes after the events
// the call's writes published. The socket was let in by
// the session check of its upgrade and ends with that session (pump), so a
// call needs no check of its own.

// maxSocketCalls bounds the calls one socket may have running; one more is
// answered with CodeBusy at once. A page's bursts (forty writers of one
// namespace) stay far below it; it only stops a client from starting
// goroutines and holding arguments without end.
const maxSocketCalls = 256

// maxCallID bounds the id of a call, which the answer echoes.
const maxCallID = 64

// CodeBusy answers a call over the event socket beyond maxSocketCalls.
const CodeBusy = "transport.busy"

// callFrame is one call sent on the event socket.
type callFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Args   json.RawMessage `json:"args"`
}

// callID checks a call's id: a JSON number or string, at most maxCallID
// bytes as sent.
func callID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || len(raw) > maxCallID {
		return false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case float64, string:
		return true
	}
	return false
}

// socketCalls runs the calls of one event socket.
type socketCalls struct {
	s       *Server
	q       *eventQueue
	inLine  func(func()) // the socket's bus subscription's then (events.Bus.SubscribeInLine)
	wg      sync.WaitGroup
	running chan struct{} // one token per call running
}

func newSocketCalls(s *Server, q *eventQueue, inLine func(func())) *socketCalls {
	return &socketCalls{s: s, q: q, inLine: inLine, running: make(chan struct{}, maxSocketCalls)}
}

// read takes call frames from conn until it fails (the peer went away, the
// socket closed, a frame broke the protocol) and runs each; ctx ends the
// calls still running. The reader also processes the peer's pongs, which
// keepAlive waits for. It returns once reading stopped; wait waits for the
// calls.
func (c *socketCalls) read(ctx context.Context, conn *websocket.Conn) {
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			_ = conn.Close(websocket.StatusUnsupportedData, "calls are JSON text frames")
			return
		}
		var f callFrame
		if err := json.Unmarshal(data, &f); err != nil || !callID(f.ID) {
			_ = conn.Close(websocket.StatusInvalidFramePayloadData, `a call is {"id": number or string, "method": string, "args": array}`)
			return
		}
		if f.Method == "" {
			c.answer(f.ID, nil, apperr.Invalid("method is required"))
			continue
		}
		select {
		case c.running <- struct{}{}:
		default:
			c.answer(f.ID, nil, apperr.New(CodeBusy, "%d calls are already running on this connection; wait for some to end", maxSocketCalls).
				WithDetails(map[string]any{"limit": maxSocketCalls}))
			continue
		}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer func() { <-c.running }()
			out, err := c.s.router.Invoke(ctx, f.Method, f.Args)
			c.answer(f.ID, out, err)
		}()
	}
}

// wait waits for the calls still running.
func (c *socketCalls) wait() { c.wg.Wait() }

// answer queues a call's answer in line with the socket's events: after
// every event published before the call returned, so the events of its
// writes (published on commit) reach the page before the answer, as a page
// that reads its cache right after a write expects.
func (c *socketCalls) answer(id json.RawMessage, out []byte, err error) {
	var msg []byte
	if err != nil {
		e, _ := json.Marshal(apperr.Shape(err))
		msg = bytes.Join([][]byte{[]byte(`{"id":`), bytes.TrimSpace(id), []byte(`,"error":`), e, []byte("}")}, nil)
	} else {
		if len(bytes.TrimSpace(out)) == 0 {
			out = []byte("null")
		}
		msg = bytes.Join([][]byte{[]byte(`{"id":`), bytes.TrimSpace(id), []byte(`,"result":`), out, []byte("}")}, nil)
	}
	c.inLine(func() {
		if c.q.push(msg) {
			c.s.overflows.Add(1)
		}
	})
}
