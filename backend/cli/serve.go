package cli

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"hearth/backend/app"
	"hearth/backend/media"
	"hearth/backend/transport/httpapi"
)

// TokenFile is the file in the data folder holding the running server's
// launch token (0600, removed when it stops): scripts of the machine's
// owner read it to call the API; other accounts cannot.
const TokenFile = "serve-token"

// defaultServeAddr keeps `hearth serve` private to this machine unless the
// user asks for more (and then a password is required).
const defaultServeAddr = "127.0.0.1:8000"

// serveOptions are the flags of `hearth serve`, checked.
type serveOptions struct {
	addr           string
	passwordFile   string
	tlsCert        string
	tlsKey         string
	trustedProxies []netip.Prefix
	allowedHosts   []string
	libraryRoots   []string
}

// parseServeFlags parses and checks the flags of `hearth serve`. A value
// that cannot be right (a bad CIDR, a URL where a host belongs, only half of
// a TLS key pair) is a usage error that says what is wrong.
func (p *Program) parseServeFlags(g *globals, args []string) (serveOptions, error) {
	const usage = "serve [--addr HOST:PORT] [--password-file FILE] [--tls-cert FILE --tls-key FILE]\n" +
		"                    [--trusted-proxy IP|CIDR]... [--allowed-host HOST[:PORT]]... [--library-root DIR]..."
	var o serveOptions
	flags := p.commandFlags("serve", usage, g)
	flags.StringVar(&o.addr, "addr", defaultServeAddr, "listen address; port 0 picks a free port; any non-loopback address needs --password-file")
	flags.StringVar(&o.passwordFile, "password-file", "", "file holding the login password (its trailing newline is ignored)")
	flags.StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate (chain) `FILE`; needs --tls-key")
	flags.StringVar(&o.tlsKey, "tls-key", "", "PEM private key `FILE` of --tls-cert")
	flags.Var((*proxyList)(&o.trustedProxies), "trusted-proxy",
		"believe X-Forwarded-Proto from this `IP or CIDR` (a TLS-terminating reverse proxy); repeatable")
	flags.Var((*hostList)(&o.allowedHosts), "allowed-host",
		"also answer to requests addressed to `HOST[:PORT]` (a proxy's public name, hearth.local); without a port, on any port; repeatable")
	flags.Var((*rootList)(&o.libraryRoots), "library-root",
		"let API callers import SillyTavern libraries from and export them to folders under `DIR` (off without it); repeatable")
	if err := parse(flags, args); err != nil {
		return o, err
	}
	if err := g.desktopOnly(); err != nil {
		return o, err
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return o, usageError{msg: "--tls-cert and --tls-key go together: give the certificate and its private key, or neither"}
	}
	return o, nil
}

// proxyList collects repeated --trusted-proxy values.
type proxyList []netip.Prefix

// String implements flag.Value.
func (l *proxyList) String() string {
	var parts []string
	for _, p := range *l {
		parts = append(parts, p.String())
	}
	return strings.Join(parts, ",")
}

// Set implements flag.Value; the error says what is wrong with v.
func (l *proxyList) Set(v string) error {
	p, err := httpapi.ParseTrustedProxy(v)
	if err != nil {
		return err
	}
	*l = append(*l, p)
	return nil
}

// hostList collects repeated --allowed-host values.
type hostList []string

// String implements flag.Value.
func (l *hostList) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value; the error says what is wrong with v.
func (l *hostList) Set(v string) error {
	h, err := httpapi.ParseAllowedHost(v)
	if err != nil {
		return err
	}
	*l = append(*l, h)
	return nil
}

// rootList collects repeated --library-root values; app.Open checks each
// is a folder outside the data folder.
type rootList []string

// String implements flag.Value.
func (l *rootList) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value.
func (l *rootList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("a library root must name a folder")
	}
	*l = append(*l, v)
	return nil
}

var (
	_ flag.Value = (*proxyList)(nil)
	_ flag.Value = (*hostList)(nil)
	_ flag.Value = (*rootList)(nil)
)

func (p *Program) runServe(ctx context.Context, g *globals, args []string) error {
	o, err := p.parseServeFlags(g, args)
	if err != nil {
		return err
	}
	var password string
	if o.passwordFile != "" {
		pw, err := readPasswordFile(o.passwordFile)
		if err != nil {
			return err
		}
		password = pw
	}
	dir, err := p.dataDir(g)
	if err != nil {
		return err
	}
	closeLog, err := p.openLog(dir)
	if err != nil {
		return err
	}
	defer closeLog()

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	a, err := app.Open(ctx, dir, app.LibraryRoots(o.libraryRoots), app.SafeMode(g.safeMode))
	if err != nil {
		return err
	}
	defer a.Close()
	srv, err := httpapi.New(httpapi.Config{
		Router:         a.Router,
		Bus:            a.Bus,
		Avatars:        a.Characters,
		PersonaAvatars: a.Personas,
		Media:          a.Media,
		Extensions:     a.Extensions,
		Assets:         builtFrontend(p.Assets),
		Password:       password,
		Addr:           o.addr,
		TLSCertFile:    o.tlsCert,
		TLSKeyFile:     o.tlsKey,
		TrustedProxies: o.trustedProxies,
		AllowedHosts:   o.allowedHosts,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	url, err := srv.Start(ctx)
	if err != nil {
		return err
	}
	tokenFile := filepath.Join(dir, TokenFile)
	if err := media.WriteFileAtomic(tokenFile, []byte(srv.Token()+"\n"), 0o600); err != nil {
		return fmt.Errorf("write the launch token: %w", err)
	}
	defer os.Remove(tokenFile)
	fmt.Fprintf(p.Stderr, "hearth: scripts on this machine can call the API with the header \"Authorization: Bearer TOKEN\", TOKEN being the content of %s (new at each start)\n", tokenFile)
	// Without a password the printed address is the way in, so it carries
	// the token; with one, the login form is, and the token stays out of
	// terminals and logs.
	if password == "" {
		fmt.Fprintf(p.Stdout, "Hearth is serving at %s\n", srv.LaunchURL())
	} else {
		fmt.Fprintf(p.Stdout, "Hearth is serving at %s/\n", url)
	}
	<-ctx.Done()
	stop()
	fmt.Fprintln(p.Stderr, "hearth: shutting down")
	return srv.Close()
}

// builtFrontend returns assets when they hold a built frontend, else nil
// (the server then says the frontend was not built instead of 404ing).
func builtFrontend(assets fs.FS) fs.FS {
	if assets == nil {
		return nil
	}
	if _, err := fs.Stat(assets, "index.html"); err != nil {
		return nil
	}
	return assets
}
