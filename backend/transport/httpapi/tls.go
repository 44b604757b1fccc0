package httpapi

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// loadTLS reads the certificate and key for HTTPS; nil without them. The
// files are read once, at start: a renewed certificate takes a restart.
func loadTLS(certFile, keyFile string) (*tls.Config, error) {
	if (certFile == "") != (keyFile == "") {
		return nil, errors.New("httpapi: TLS needs both a certificate file and a key file, not just one")
	}
	if certFile == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("httpapi: load TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		// HTTP/1.1 only; see newHTTPServer.
		NextProtos: []string{"http/1.1"},
	}, nil
}

// viaTLS reports whether the browser reached this server over TLS: either
// directly, or through a trusted proxy that says so in X-Forwarded-Proto.
// It decides the session cookie's Secure flag and which Origin scheme is
// this server's own. The header's last value counts, the one the nearest
// proxy set; from any peer that is not a trusted proxy it is ignored, since
// a client could send it to pass an https Origin off as its own.
func (s *Server) viaTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if len(s.trustedProxies) == 0 || !s.fromTrustedProxy(r) {
		return false
	}
	values := r.Header.Values("X-Forwarded-Proto")
	if len(values) == 0 {
		return false
	}
	last := values[len(values)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

// fromTrustedProxy reports whether r's TCP peer is a trusted proxy.
func (s *Server) fromTrustedProxy(r *http.Request) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	peer := ap.Addr().Unmap().WithZone("")
	for _, p := range s.trustedProxies {
		if p.Contains(peer) {
			return true
		}
	}
	return false
}

// ParseTrustedProxy parses a --trusted-proxy value: one IP address or a
// CIDR prefix. Host names are refused (a name's addresses can change under
// a running server), as are prefixes with bits set past their length,
// which usually mean a typo. IPv4-mapped IPv6 forms become IPv4, matching
// how peers are compared.
func ParseTrustedProxy(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	const like = "like 10.0.0.1 or 10.0.0.0/8"
	if s == "" {
		return netip.Prefix{}, fmt.Errorf("empty trusted proxy: give an IP address or CIDR prefix, %s", like)
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("%q is not an IP address or CIDR prefix (%s)", s, like)
		}
		if p.Masked() != p {
			return netip.Prefix{}, fmt.Errorf("%q has address bits set past /%d: did you mean %s?", s, p.Bits(), p.Masked())
		}
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		return p, nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not an IP address or CIDR prefix (%s); host names are not accepted", s, like)
	}
	if a.Zone() != "" {
		return netip.Prefix{}, fmt.Errorf("%q has a zone (%%%s): give the address without it", s, a.Zone())
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}
