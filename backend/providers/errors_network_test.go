package providers

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNetworkErrorsReadAsSentences: each way of not reaching a server
// reads as a sentence naming the server as its address was written,
// keeps its code, and keeps the Go error's text in details.
func TestNetworkErrorsReadAsSentences(t *testing.T) {
	t.Parallel()
	dial := func(addr string, err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: tcpAddr(t, addr), Err: err}
	}
	post := func(rawURL string, err error) error {
		return &url.Error{Op: "Post", URL: rawURL, Err: err}
	}
	cases := []struct {
		name    string
		err     error
		code    string
		message string
		address string
	}{
		{"refused", post("http://127.0.0.1:9999/v1/chat/completions", dial("127.0.0.1:9999", os.NewSyscallError("connect", syscall.ECONNREFUSED))),
			CodeUnreachable, "Nothing answered at 127.0.0.1:9999", "127.0.0.1:9999"},
		{"refused, named host", post("http://localhost:8080/v1/models", dial("127.0.0.1:8080", os.NewSyscallError("connect", syscall.ECONNREFUSED))),
			CodeUnreachable, "Nothing answered at localhost:8080", "localhost:8080"},
		{"refused, no URL", dial("[::1]:5001", os.NewSyscallError("connect", syscall.ECONNREFUSED)),
			CodeUnreachable, "Nothing answered at [::1]:5001", "[::1]:5001"},
		{"no such host", post("https://llm.example.invalid/v1/models", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "llm.example.invalid", IsNotFound: true}}),
			CodeUnreachable, "No server named llm.example.invalid was found", "llm.example.invalid"},
		{"name service silent", post("https://api.openai.com/v1/models", &net.DNSError{Err: "i/o timeout", Name: "api.openai.com", IsTimeout: true}),
			CodeTimeout, "Looking up api.openai.com took too long; is this computer online?", "api.openai.com"},
		{"name service failed", post("https://api.openai.com/v1/models", &net.DNSError{Err: "server misbehaving", Name: "api.openai.com"}),
			CodeUnreachable, "Could not look up api.openai.com; is this computer online?", "api.openai.com"},
		{"dial timeout", post("http://10.0.0.9:8080/v1/models", dial("10.0.0.9:8080", os.ErrDeadlineExceeded)),
			CodeTimeout, "10.0.0.9:8080 took too long to answer", "10.0.0.9:8080"},
		{"no route", post("http://10.0.0.9:8080/v1/models", dial("10.0.0.9:8080", os.NewSyscallError("connect", syscall.EHOSTUNREACH))),
			CodeUnreachable, "10.0.0.9:8080 cannot be reached from this computer's network", "10.0.0.9:8080"},
		{"other dial failure", post("http://10.0.0.9:8080/v1/models", dial("10.0.0.9:8080", errors.New("socket: too many open files"))),
			CodeUnreachable, "Could not connect to 10.0.0.9:8080", "10.0.0.9:8080"},
		{"closed early", post("http://127.0.0.1:5000/v1/chat/completions", io.EOF),
			CodeRequestFailed, "127.0.0.1:5000 closed the connection without answering", "127.0.0.1:5000"},
		{"reset", post("http://127.0.0.1:5000/v1/chat/completions", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}),
			CodeRequestFailed, "127.0.0.1:5000 closed the connection without answering", "127.0.0.1:5000"},
		{"http server at https", post("https://127.0.0.1:5000/v1/models", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}),
			CodeRequestFailed, "127.0.0.1:5000 did not answer in HTTPS; if it is a server on your network, its address may need http:// instead of https://", "127.0.0.1:5000"},
		{"unknown authority", post("https://llm.lan/v1/models", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}),
			CodeRequestFailed, "The certificate of llm.lan could not be verified, so Hearth did not send it anything", "llm.lan"},
		{"no address known", io.ErrUnexpectedEOF,
			CodeRequestFailed, "The model server closed the connection without answering", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := transportError(c.err)
			if e.Code != c.code || e.Message != c.message {
				t.Fatalf("got %s %q, want %s %q", e.Code, e.Message, c.code, c.message)
			}
			if got, _ := e.Details["address"].(string); got != c.address {
				t.Errorf("details.address = %q, want %q", got, c.address)
			}
			if got, _ := e.Details["networkError"].(string); got != shorten(c.err.Error()) {
				t.Errorf("details.networkError = %q, want the Go error's text", got)
			}
		})
	}
}

// TestOtherTransportErrorsKeepTheirWords: what is not a network failure
// keeps the message it had.
func TestOtherTransportErrorsKeepTheirWords(t *testing.T) {
	t.Parallel()
	e := transportError(&url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1", Err: errors.New("unsupported protocol scheme")})
	if e.Code != CodeRequestFailed || !strings.HasPrefix(e.Message, "the request to the provider failed: ") || e.Details["address"] != nil {
		t.Fatalf("got %#v", e)
	}
}

// TestTookTooLongNamesTheServer: the test's own time limit and a silent
// stream say which server was slow, and for how long.
func TestTookTooLongNamesTheServer(t *testing.T) {
	t.Parallel()
	e := TookTooLong(KindOpenAICompatible, "http://127.0.0.1:8080/v1", 30*time.Second)
	if e.Code != CodeTimeout || e.Message != "127.0.0.1:8080 took too long to answer (nothing for 30 s)" || e.Details["timeoutMs"] != int64(30000) {
		t.Fatalf("got %#v", e)
	}
	if e := TookTooLong(KindAnthropic, "", 90*time.Second); e.Message != "api.anthropic.com took too long to answer (nothing for 90 s)" {
		t.Fatalf("default address: %q", e.Message)
	}
	if e := stalled(Address(KindOpenAICompatible, ""), 1500*time.Millisecond); e.Message != "The model server took too long to answer (nothing for 1.5 s)" || e.Details["address"] != nil {
		t.Fatalf("no address: %#v", e)
	}
}

func tcpAddr(t *testing.T, s string) net.Addr {
	t.Helper()
	a, err := net.ResolveTCPAddr("tcp", s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
