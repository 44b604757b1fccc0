package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"hearth/backend/apperr"
)

// hostPolicy is the Host header allow-list, the defence against DNS
// rebinding: a page on evil.example whose name later resolves to this
// server sends Host "evil.example[:PORT]", which is refused, so the page
// can neither read the API nor the login form, password or not. The list:
//
//   - On the port the connection arrived on: the listen address itself;
//     the loopback names (127.0.0.1, ::1, localhost) when bound to loopback
//     or to every interface; the address the connection arrived on; and,
//     when bound to every interface (0.0.0.0, ::, or an empty host), the
//     addresses of this machine's interfaces (read once, at first use; an
//     address that comes up later still passes as the address the
//     connection arrived on) and its host name, bare and with ".local"
//     (what a phone on the LAN types, resolved by mDNS; a rebinding page
//     cannot be served under this machine's own name).
//   - Every --allowed-host value (Config.AllowedHosts), for reverse proxies
//     and names like hearth.local. HOST:PORT allows exactly that; a HOST
//     without a port allows that name on any port (and without one). The
//     name is what tells a rebinding page from a real one (the page always
//     sends its own name); the port a browser shows is often not the
//     server's (a proxy on 443, a container's mapped port), so a name-only
//     entry does not make anyone list ports.
//
// A Host without a port means the scheme's default: 443 when the request
// came over TLS (viaTLS), else 80.
type hostPolicy struct {
	loopbackNames  bool
	everyInterface bool
	listenHost     string // normalized host of the listen address; "" for every interface
	allowed        []allowedHost

	// interfaceAddrs lists this machine's addresses and hostname names it;
	// tests replace them.
	interfaceAddrs func() ([]net.Addr, error)
	hostname       func() (string, error)
	ifaceOnce      sync.Once
	ifaceIPs       []netip.Addr
	machineNames   []string
}

// allowedHost is one --allowed-host entry; port "" allows any port.
type allowedHost struct {
	name string
	port string
}

// newHostPolicy builds the allow-list for a server listening on addr
// (already validated by isLoopbackAddr).
func newHostPolicy(addr string, loopback bool, extra []string) (*hostPolicy, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("httpapi: bad listen address %q: %w", addr, err)
	}
	p := &hostPolicy{interfaceAddrs: net.InterfaceAddrs, hostname: os.Hostname}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		p.everyInterface = true
		p.loopbackNames = true
	} else {
		p.loopbackNames = loopback
		p.listenHost = normalizeHostName(host)
	}
	for _, v := range extra {
		canonical, err := ParseAllowedHost(v)
		if err != nil {
			return nil, fmt.Errorf("httpapi: allowed host: %w", err)
		}
		name, port, ok := splitHostHeader(canonical)
		if !ok {
			return nil, fmt.Errorf("httpapi: allowed host %q", v)
		}
		p.allowed = append(p.allowed, allowedHost{name: name, port: port})
	}
	return p, nil
}

// checkHost applies the server's hostPolicy to r.
func (s *Server) checkHost(r *http.Request) *apperr.Error {
	name, port, ok := splitHostHeader(r.Host)
	if !ok {
		return apperr.New(apperr.CodeAuthDenied, "Host %q is not a valid host", r.Host)
	}
	if port == "" {
		port = "80"
		if s.viaTLS(r) {
			port = "443"
		}
	}
	for _, a := range s.hosts.allowed {
		if a.name == name && (a.port == "" || a.port == port) {
			return nil
		}
	}
	local, ok := localAddrPort(r)
	if !ok {
		return apperr.New(apperr.CodeAuthDenied, "cannot verify the Host header")
	}
	if port == strconv.Itoa(int(local.Port())) && s.hosts.ownName(name, local.Addr()) {
		return nil
	}
	return apperr.New(apperr.CodeAuthDenied,
		"Host %q is not allowed: this server answers only to its own addresses; to reach it under this name, start Hearth with --allowed-host %s",
		r.Host, name)
}

// ownName reports whether name (normalized) is one of the server's own on
// the listening port; local is the address the connection arrived on.
func (p *hostPolicy) ownName(name string, local netip.Addr) bool {
	if name == p.listenHost || (p.loopbackNames && name == "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	if err != nil {
		p.interfaces()
		return slices.Contains(p.machineNames, name)
	}
	ip = ip.Unmap().WithZone("")
	switch {
	case p.loopbackNames && (ip == netip.IPv6Loopback() || ip == netip.AddrFrom4([4]byte{127, 0, 0, 1})):
		return true
	case ip == local.Unmap().WithZone(""):
		return true
	case p.listenHost != "":
		listen, err := netip.ParseAddr(p.listenHost)
		return err == nil && listen.Unmap() == ip
	}
	for _, own := range p.interfaces() {
		if own == ip {
			return true
		}
	}
	return false
}

// interfaces is this machine's addresses, read once (with its names).
func (p *hostPolicy) interfaces() []netip.Addr {
	if !p.everyInterface {
		return nil
	}
	p.ifaceOnce.Do(func() {
		if h, err := p.hostname(); err == nil && validHostName(normalizeHostName(h)) {
			h = normalizeHostName(h)
			p.machineNames = []string{h, strings.TrimSuffix(h, ".local") + ".local"}
		}
		addrs, err := p.interfaceAddrs()
		if err != nil {
			return
		}
		for _, a := range addrs {
			var ip net.IP
			switch v := a.(type) {
			case *net.IPNet:
				ip = v.IP
			case *net.IPAddr:
				ip = v.IP
			}
			if addr, ok := netip.AddrFromSlice(ip); ok {
				p.ifaceIPs = append(p.ifaceIPs, addr.Unmap())
			}
		}
	})
	return p.ifaceIPs
}

// localAddrPort is the address the request's connection was accepted on;
// false when the handler runs outside an http.Server (the Host check then
// fails closed unless an allowed name matched).
func localAddrPort(r *http.Request) (netip.AddrPort, bool) {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return netip.AddrPort{}, false
	}
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.AddrPort(), true
	}
	ap, err := netip.ParseAddrPort(a.String())
	return ap, err == nil
}

// splitHostHeader splits a Host header (or an allowed-host entry) into a
// normalized name and a port, "" when there is none.
func splitHostHeader(h string) (name, port string, ok bool) {
	if h == "" {
		return "", "", false
	}
	name, port, err := net.SplitHostPort(h)
	if err != nil {
		name, port = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), ""
	} else if port == "" {
		return "", "", false
	}
	name = normalizeHostName(name)
	return name, port, name != ""
}

// normalizeHostName lowercases a name and drops the trailing dot of a
// fully qualified one, so "Hearth.Local." and "hearth.local" compare equal.
func normalizeHostName(name string) string {
	name = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
	if _, err := netip.ParseAddr(name); err != nil {
		name = strings.TrimSuffix(name, ".")
	}
	return name
}

// ParseAllowedHost parses an --allowed-host value, HOST or HOST:PORT (IPv6
// in brackets when a port follows), and returns its canonical form:
// lowercase, without a trailing dot. It refuses what is not a host: a URL,
// a path, a wildcard, a bad port.
func ParseAllowedHost(v string) (string, error) {
	v = strings.TrimSpace(v)
	const like = "like hearth.local or hearth.example.com:8443"
	if v == "" {
		return "", fmt.Errorf("empty allowed host: give a host name or address, %s", like)
	}
	if strings.Contains(v, "://") || strings.Contains(v, "/") {
		return "", fmt.Errorf("%q: give a host name, not a URL (%s)", v, like)
	}
	name, port, err := net.SplitHostPort(v)
	if err != nil {
		name, port = v, ""
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			name = v[1 : len(v)-1]
		}
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || port != strconv.Itoa(n) {
		return "", fmt.Errorf("%q: the port must be a number from 1 to 65535", v)
	}
	name = normalizeHostName(name)
	if !validHostName(name) {
		return "", fmt.Errorf("%q is not a host name or IP address (%s)", v, like)
	}
	if port == "" {
		return name, nil
	}
	return net.JoinHostPort(name, port), nil
}

// validHostName accepts IP addresses and DNS-style names (letters, digits,
// hyphens, underscores, dot-separated non-empty labels).
func validHostName(name string) bool {
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	if name == "" || len(name) > 253 {
		return false
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
			if !ok {
				return false
			}
		}
	}
	return true
}
