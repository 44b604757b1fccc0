package providers

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// maxResponseBytes bounds any one response body from a provider: a stream
// of the longest reply allowed (maxReplyBytes of text, several times that
// in JSON framing), or an error page. The SDKs read error bodies whole.
const maxResponseBytes = 64 << 20

// newTransport is an HTTP transport with the connection's timeouts on
// dialing, TLS and the wait for response headers.
func newTransport(cfg Config) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = cfg.ConnectTimeout
	t.ResponseHeaderTimeout = cfg.HeaderTimeout
	return t
}

// cappedTransport fails a response body's read past maxResponseBytes.
type cappedTransport struct{ base http.RoundTripper }

func (t cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	if err != nil || res.Body == nil {
		return res, err
	}
	res.Body = &cappedBody{ReadCloser: res.Body, left: maxResponseBytes}
	return res, nil
}

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the provider's response is larger than %d MiB", maxResponseBytes>>20)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// statusNoteKey marks a context carrying a note of the HTTP status of an
// error answer (withStatusNote).
type statusNoteKey struct{}

// withStatusNote gives ctx a note notingTransport fills in with the
// status of an error answer to a request made under it.
func withStatusNote(ctx context.Context) context.Context {
	return context.WithValue(ctx, statusNoteKey{}, new(atomic.Int64))
}

// notedStatus is the status noted under ctx, 0 when none.
func notedStatus(ctx context.Context) int {
	if n, ok := ctx.Value(statusNoteKey{}).(*atomic.Int64); ok {
		return int(n.Load())
	}
	return 0
}

// notingTransport notes an error answer's status in its request's context
// (withStatusNote), for an SDK that keeps only what the body says.
type notingTransport struct{ base http.RoundTripper }

func (t notingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	if err == nil && res.StatusCode >= 400 {
		if n, ok := req.Context().Value(statusNoteKey{}).(*atomic.Int64); ok {
			n.Store(int64(res.StatusCode))
		}
	}
	return res, err
}
