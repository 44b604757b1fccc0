package httpapi

import (
	"io"
	"net/http"
	"time"

	"hearth/backend/apperr"
)

// Body deadline defaults: see bodyTimeout.
const (
	defaultBodySlack   = 20 * time.Second
	defaultMinBodyRate = 256 << 10 // bytes per second
	// defaultRefuseGrace is how long a refused request's connection may
	// still read what the client had already sent; see refuse.
	defaultRefuseGrace = time.Second
)

// bodyTimeout is how long a request body may take to arrive, counted from
// when its headers were read: a fixed slack for latency and a stalled
// radio, plus the time the body needs at the slowest rate still counted as
// honest. The size is the declared Content-Length capped at the route's
// limit; a chunked body (no length) gets the deadline of the largest body
// the route accepts. With the defaults (20 s, 256 KiB/s) a login gets about
// 20 s and a 64 MiB invoke, a phone's upload of a big chat over Wi-Fi,
// about 4.6 min; a client that declares a body and then trickles it, or
// never sends it, loses its connection at that point instead of holding it.
func (s *Server) bodyTimeout(contentLength, limit int64) time.Duration {
	size := contentLength
	if size < 0 || size > limit {
		size = limit
	}
	whole, rest := size/s.minBodyRate, size%s.minBodyRate
	return s.bodySlack + time.Duration(whole)*time.Second + time.Duration(rest)*time.Second/time.Duration(s.minBodyRate)
}

// setBodyDeadline sets the read deadline for r's body per bodyTimeout.
// Outside an http.Server that supports it (a recorder in a test) it does
// nothing.
func (s *Server) setBodyDeadline(w http.ResponseWriter, r *http.Request, limit int64) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.bodyTimeout(r.ContentLength, limit)))
}

// limitBody gives every request that carries a body a read deadline for it
// (bodyTimeout, sized for the largest invoke; routes with smaller limits
// tighten it) and lifts the deadline once the body has been read to its
// end. Lifting matters: after the body, net/http keeps a read pending to
// notice a vanished client, and a deadline firing there would cancel a
// long-running call. The deadline is per request through
// http.ResponseController, not http.Server.ReadTimeout, which would also cut
// the hijacked event sockets; requests without a body (the WebSocket
// upgrade among them) get none, so nothing reaches a hijacked connection.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		s.setBodyDeadline(w, r, s.maxBody)
		// A shallow copy: net/http inspects the original request's Body
		// after the handler to decide whether to drain it.
		r2 := new(http.Request)
		*r2 = *r
		r2.Body = &deadlineBody{ReadCloser: r.Body, rc: http.NewResponseController(w)}
		next.ServeHTTP(w, r2)
	})
}

// deadlineBody clears the connection's read deadline when the body ends.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

// Read implements io.Reader.
func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// refuse answers a request that is turned away before its body was read
// (401, 403, 429, 413) and closes the connection after the answer, so a
// client that declared a body it never sends holds nothing. With
// "Connection: close" net/http does not drain the body before answering;
// afterwards it reads at most what is left of a small body (under 256 KiB)
// so that closing does not reset the connection under a response the
// client has not read yet. That read is limited to refuseGrace: enough for
// bytes already in flight, too short to be held open by a trickle.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, e *apperr.Error) {
	closeAfterReply(w, r, s.refuseGrace)
	writeError(w, status, e)
}

// closeAfterReply marks the response as the connection's last and, when a
// body may still be arriving, limits how long it is read to grace.
func closeAfterReply(w http.ResponseWriter, r *http.Request, grace time.Duration) {
	w.Header().Set("Connection", "close")
	if r.ContentLength != 0 {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(grace))
	}
}
