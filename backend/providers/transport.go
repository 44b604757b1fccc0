package providers

import (
	"fmt"
	"io"
	"net"
	"net/http"
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
