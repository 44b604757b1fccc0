// Package httpapi is Hearth's browser-mode transport: the same host router
// the desktop bridge uses, served as POST /api/invoke, with push events over
// a WebSocket and the built frontend as static files.
//
// The routes are internal (HOST-ABI §0: only window.__HEARTH__ is public);
// the frontend's HTTP/WS transport and this package's Client are their only
// callers. Security follows DESIGN §2/§6: loopback by default, a password
// for any other address, a per-launch token for every caller without a
// session (loopback too: other accounts of the machine reach it), an
// HttpOnly session cookie, Host and Origin checks against DNS rebinding and
// CSRF, and a rate-limited login. Against
// resource exhaustion by clients that never log in: bodies have deadlines
// (body.go), and connections that have not shown a session are capped
// (conns.go).
package httpapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hearth/backend/events"
)

// Invoker runs one host method. *host.Router satisfies it, and so does
// Client, which lets a test suite run the same scenarios in process and
// through HTTP.
type Invoker interface {
	Invoke(ctx context.Context, method string, rawArgs []byte) ([]byte, error)
}

// AvatarSource finds the image file of a character; *characters.Service
// satisfies it. It is an interface so the transport does not depend on the
// domain package.
type AvatarSource interface {
	ImagePath(ctx context.Context, avatar string) (string, error)
}

// Config is what a Server needs. Only Router is required.
type Config struct {
	// Router runs /api/invoke calls.
	Router Invoker
	// Bus feeds /api/events; nil disables the event stream.
	Bus *events.Bus
	// Avatars serves /api/avatar/{avatar}; nil makes every avatar 404.
	Avatars AvatarSource
	// PersonaAvatars serves /api/persona-avatar/{id} (*personas.Service);
	// nil makes every persona avatar 404.
	PersonaAvatars AvatarSource
	// Media serves message attachments at /api/media/{name}
	// (*media.Store); nil makes every attachment 404.
	Media MediaSource
	// Extensions serves sandboxed extensions' files at /ext/<id>/…
	// (*extensions.Service); nil makes every one 404.
	Extensions ExtensionFiles
	// Assets is the built frontend; nil serves a placeholder page that says
	// Hearth is running.
	Assets fs.FS
	// Password, when not empty, lets a browser log in with it. It is kept
	// in memory only (as a digest).
	Password string
	// Token is the launch token (token.go), which every API call needs
	// when it has no session: "" draws a new one. It is kept in memory
	// only (as a digest, and as Server.Token for the process to hand on).
	Token string
	// Addr is the listen address; "" means 127.0.0.1:0. Anything but a
	// loopback address requires a Password.
	Addr string
	// TLSCertFile and TLSKeyFile (PEM), given together, make the server
	// speak HTTPS (TLS 1.2 or later) so the password and the session cookie
	// never cross the network in clear. Both empty means plain HTTP.
	TLSCertFile string
	TLSKeyFile  string
	// TrustedProxies are the peers whose X-Forwarded-Proto is believed: a
	// request from one of them saying "https" counts as having come over
	// TLS (Secure cookie, https Origin). From anyone else the header is
	// ignored, since any client can send it.
	TrustedProxies []netip.Prefix
	// AllowedHosts are extra Host header values to answer to, beyond the
	// listen address (see hosts.go): a reverse proxy's public name, or a
	// LAN name like hearth.local. Each is HOST or HOST:PORT, as
	// ParseAllowedHost accepts them.
	AllowedHosts []string
	// Logger receives transport diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// MaxInvokeBody is the largest /api/invoke request body either transport
// accepts.
const MaxInvokeBody = 64 << 20

// Defaults for the tunables below; tests in this package shrink them.
const (
	defaultAddr              = "127.0.0.1:0"
	defaultMaxBody           = MaxInvokeBody
	defaultMaxQueue          = 5000
	defaultPingInterval      = 30 * time.Second
	defaultPingTimeout       = 15 * time.Second
	defaultWriteTimeout      = 15 * time.Second
	defaultReadHeaderTimeout = 10 * time.Second
	defaultIdleTimeout       = 2 * time.Minute
	defaultMaxUnauthConns    = 64
)

// Server is the browser-mode HTTP/WebSocket server. Create it with New, then
// either Start it or mount Handler on a server of your own.
type Server struct {
	router  Invoker
	bus     *events.Bus
	avatars AvatarSource
	assets  fs.FS
	addr    string
	log     *slog.Logger
	auth    *authenticator
	token   string
	handler http.Handler

	// personaAvatars serves the personas' avatar images.
	personaAvatars AvatarSource
	// media serves message attachments.
	media MediaSource
	// extensions serves sandboxed extensions' files.
	extensions ExtensionFiles

	tlsConfig      *tls.Config // nil for plain HTTP
	trustedProxies []netip.Prefix
	hosts          *hostPolicy
	conns          connTracker

	maxBody      int64
	maxQueue     int
	pingInterval time.Duration
	pingTimeout  time.Duration
	writeTimeout time.Duration
	overflows    atomic.Int64

	readHeaderTimeout time.Duration // also bounds the TLS handshake
	idleTimeout       time.Duration
	bodySlack         time.Duration // see bodyTimeout
	minBodyRate       int64         // bytes per second; see bodyTimeout
	refuseGrace       time.Duration // see refuse
	maxUnauthConns    int           // see connState

	mu      sync.Mutex
	closed  bool
	done    chan struct{}
	sockets int
	wg      sync.WaitGroup
	httpSrv *http.Server
	url     string
	stopCtx func() bool

	closeOnce sync.Once
	closeErr  error
}

// New validates cfg and builds a Server. It refuses a non-loopback Addr
// without a Password: anyone on the network could otherwise read and write
// every chat.
func New(cfg Config) (*Server, error) {
	if cfg.Router == nil {
		return nil, errors.New("httpapi: Config.Router is required")
	}
	addr := cfg.Addr
	if addr == "" {
		addr = defaultAddr
	}
	loopback, err := isLoopbackAddr(addr)
	if err != nil {
		return nil, err
	}
	if !loopback && cfg.Password == "" {
		return nil, fmt.Errorf("httpapi: refusing to listen on %s without a password: only loopback addresses (127.0.0.1, ::1, localhost) may run without one", addr)
	}
	tlsConfig, err := loadTLS(cfg.TLSCertFile, cfg.TLSKeyFile)
	if err != nil {
		return nil, err
	}
	hosts, err := newHostPolicy(addr, loopback, cfg.AllowedHosts)
	if err != nil {
		return nil, err
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	token := cfg.Token
	if token == "" {
		if token, err = NewToken(); err != nil {
			return nil, err
		}
	}
	s := &Server{
		router:            cfg.Router,
		bus:               cfg.Bus,
		avatars:           cfg.Avatars,
		personaAvatars:    cfg.PersonaAvatars,
		media:             cfg.Media,
		extensions:        cfg.Extensions,
		assets:            cfg.Assets,
		addr:              addr,
		log:               logger,
		auth:              newAuthenticator(cfg.Password, token),
		token:             token,
		tlsConfig:         tlsConfig,
		trustedProxies:    append([]netip.Prefix(nil), cfg.TrustedProxies...),
		hosts:             hosts,
		conns:             connTracker{records: map[net.Conn]*connRecord{}},
		maxBody:           defaultMaxBody,
		maxQueue:          defaultMaxQueue,
		pingInterval:      defaultPingInterval,
		pingTimeout:       defaultPingTimeout,
		writeTimeout:      defaultWriteTimeout,
		readHeaderTimeout: defaultReadHeaderTimeout,
		idleTimeout:       defaultIdleTimeout,
		bodySlack:         defaultBodySlack,
		minBodyRate:       defaultMinBodyRate,
		refuseGrace:       defaultRefuseGrace,
		maxUnauthConns:    defaultMaxUnauthConns,
		done:              make(chan struct{}),
	}
	s.handler = s.routes()
	return s, nil
}

// Handler returns the server's full handler (guards and body deadlines
// included), for tests with httptest or for embedding in another server.
// The cap on connections without a session lives in the http.Server hooks
// Start installs, so an embedding server goes without it.
func (s *Server) Handler() http.Handler { return s.handler }

// Start listens on the configured address and serves in the background
// until Close is called or ctx is done. It returns the base URL to open in
// a browser.
func (s *Server) Start(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("httpapi: server is closed")
	}
	if s.httpSrv != nil {
		return "", errors.New("httpapi: server already started")
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.addr)
	if err != nil {
		return "", fmt.Errorf("httpapi: listen on %s: %w", s.addr, err)
	}
	scheme := "http"
	if s.tlsConfig != nil {
		ln = tls.NewListener(ln, s.tlsConfig)
		scheme = "https"
	}
	srv := s.newHTTPServer()
	s.httpSrv = srv
	s.url = baseURL(scheme, ln.Addr())
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("httpapi: serve", "err", err)
		}
	}()
	s.stopCtx = context.AfterFunc(ctx, func() { s.Close() })
	return s.url, nil
}

// newHTTPServer is the http.Server Start runs. It speaks HTTP/1.1 only:
// the event stream hijacks its connection, and the connection cap and the
// per-request body deadlines are per TCP connection, which HTTP/2 would
// multiplex. There is deliberately no ReadTimeout: it would also cut the
// hijacked event sockets, which stay open for hours; bodies get their own
// deadline per request instead (limitBody).
func (s *Server) newHTTPServer() *http.Server {
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	return &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.readHeaderTimeout,
		IdleTimeout:       s.idleTimeout,
		ConnContext:       s.connContext,
		ConnState:         s.connState,
		Protocols:         protocols,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// URL returns the base URL after Start, "" before.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Close stops listening, closes every event socket (each unsubscribes from
// the bus) and waits for their handlers to finish. Safe to call twice.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.done)
		srv, stopCtx := s.httpSrv, s.stopCtx
		s.mu.Unlock()
		if stopCtx != nil {
			stopCtx()
		}
		if srv != nil {
			s.closeErr = srv.Close()
		}
		s.wg.Wait()
	})
	return s.closeErr
}

// trackSocket registers a live event socket; false once the server is
// closing. The Add happens under mu so it never races Close's Wait.
func (s *Server) trackSocket() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.sockets++
	s.wg.Add(1)
	return true
}

func (s *Server) untrackSocket() {
	s.mu.Lock()
	s.sockets--
	s.mu.Unlock()
	s.wg.Done()
}

// activeSockets counts event sockets whose handler (and bus subscription)
// is still running.
func (s *Server) activeSockets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sockets
}

// isLoopbackAddr reports whether a listen address only accepts local
// connections. An empty host (":8080") means every interface, and a host
// name other than localhost may resolve anywhere, so both count as public.
func isLoopbackAddr(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("httpapi: bad listen address %q: %w", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// baseURL turns a listener address into a URL a local browser can open.
func baseURL(scheme string, a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return scheme + "://" + a.String()
	}
	ip := tcp.IP
	switch {
	case ip.Equal(net.IPv4zero) || ip == nil:
		ip = net.IPv4(127, 0, 0, 1)
	case ip.Equal(net.IPv6unspecified):
		ip = net.IPv6loopback
	}
	return scheme + "://" + net.JoinHostPort(ip.String(), fmt.Sprint(tcp.Port))
}
