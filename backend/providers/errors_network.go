package providers

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hearth/backend/apperr"
)

// A failure below HTTP reads as a sentence that names the server the way
// the connection's address does ("Nothing answered at 127.0.0.1:9999"),
// because a person reads it beside a connection's Test button or under a
// failed reply, and every ABI caller gets the same words. The Go error's
// own text ("dial tcp 127.0.0.1:9999: connect: connection refused") stays
// in details.networkError, for a bug report; details.address is the
// server as named in the sentence. The codes are the ones a failure of
// the kind always had.

// networkError maps a failure to reach or hear from a server (dialing,
// DNS, TLS, a connection closed early, a timeout) to its HostError; nil
// when err is none of those.
func networkError(err error) *apperr.Error {
	addr := serverOf(err)
	var e *apperr.Error
	var dns *net.DNSError
	var op *net.OpError
	var ne net.Error
	switch {
	case errors.As(err, &dns):
		e = dnsError(dns)
	case errors.As(err, &ne) && ne.Timeout():
		e = tookTooLong(addr, "")
	case errors.Is(err, syscall.ECONNREFUSED):
		e = apperr.New(CodeUnreachable, "Nothing answered at %s", addr)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		e = apperr.New(CodeUnreachable, "%s cannot be reached from this computer's network", lead(addr))
	case errors.As(err, &op) && op.Op == "dial":
		e = apperr.New(CodeUnreachable, "Could not connect to %s", addr)
	case tlsMismatch(err):
		e = apperr.New(CodeRequestFailed, "%s did not answer in HTTPS; if it is a server on your network, its address may need http:// instead of https://", lead(addr))
	case badCertificate(err):
		e = apperr.New(CodeRequestFailed, "The certificate of %s could not be verified, so Hearth did not send it anything", addr)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		e = apperr.New(CodeRequestFailed, "%s closed the connection without answering", lead(addr))
	default:
		return nil
	}
	details := map[string]any{"networkError": shorten(err.Error())}
	if addr != unnamedServer {
		details["address"] = addr
	}
	return e.WithDetails(details)
}

// dnsError says why a server's name led nowhere: no such name, or no
// answer from the name service (this computer may be offline).
func dnsError(dns *net.DNSError) *apperr.Error {
	name := dns.Name
	if name == "" {
		name = unnamedServer
	}
	switch {
	case dns.IsNotFound:
		return apperr.New(CodeUnreachable, "No server named %s was found", name)
	case dns.IsTimeout:
		return apperr.New(CodeTimeout, "Looking up %s took too long; is this computer online?", name)
	default:
		return apperr.New(CodeUnreachable, "Could not look up %s; is this computer online?", name)
	}
}

// tookTooLong is the timeout of a server that did not answer in time;
// limit, when given, says how long Hearth waited ("90 s").
func tookTooLong(addr, limit string) *apperr.Error {
	if limit != "" {
		return apperr.New(CodeTimeout, "%s took too long to answer (nothing for %s)", lead(addr), limit)
	}
	return apperr.New(CodeTimeout, "%s took too long to answer", lead(addr))
}

// TookTooLong is model.timeout for the server of a connection of kind at
// baseURL that sent nothing for limit: the sentence a model call's own
// timeout gives, for a caller that bounds the call itself (connections'
// test).
func TookTooLong(kind, baseURL string, limit time.Duration) *apperr.Error {
	addr := Address(kind, baseURL)
	e := tookTooLong(addr, seconds(limit))
	details := map[string]any{"timeoutMs": limit.Milliseconds()}
	if addr != unnamedServer {
		details["address"] = addr
	}
	return e.WithDetails(details)
}

// unnamedServer stands in for a server whose address is not known.
const unnamedServer = "the model server"

// lead is addr at the start of a sentence.
func lead(addr string) string {
	if addr == unnamedServer {
		return "The model server"
	}
	return addr
}

// Address is the server of a connection of kind at baseURL as a person
// wrote it: host and port as in the address ("127.0.0.1:9999",
// "api.openai.com"), the kind's default address when baseURL is empty;
// unnamedServer when there is no host to name.
func Address(kind, baseURL string) string {
	raw := strings.TrimSpace(baseURL)
	if raw == "" {
		raw = DefaultBaseURL(kind)
	}
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return unnamedServer
}

// serverOf names the server err is about: the request URL's host and
// port as written (what the connection's address says), else the address
// that was dialed, else the name that was looked up.
func serverOf(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			return u.Host
		}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		return op.Addr.String()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.Name != "" {
		return dns.Name
	}
	return unnamedServer
}

// tlsMismatch reports an HTTPS request answered by a server that does not
// speak TLS (a local server at an https:// address).
func tlsMismatch(err error) bool {
	var rh tls.RecordHeaderError
	return errors.As(err, &rh)
}

// badCertificate reports a certificate that did not verify (unknown
// authority, wrong host name, expired).
func badCertificate(err error) bool {
	var verify *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &authority) || errors.As(err, &hostname) || errors.As(err, &invalid)
}

// seconds is a duration as a person reads it in a sentence: "90 s",
// "1.5 s", "250 ms".
func seconds(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}
