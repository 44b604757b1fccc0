package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"hearth/backend/app"
	"hearth/backend/transport/httpapi"
)

// defaultServeAddr keeps `hearth serve` private to this machine unless the
// user asks for more (and then a password is required).
const defaultServeAddr = "127.0.0.1:8000"

func (p *Program) runServe(ctx context.Context, g *globals, args []string) error {
	const usage = "serve [--addr HOST:PORT] [--password-file FILE]"
	flags := p.commandFlags("serve", usage, g)
	addr := flags.String("addr", defaultServeAddr, "listen address; port 0 picks a free port; any non-loopback address needs --password-file")
	passwordFile := flags.String("password-file", "", "file holding the login password (its trailing newline is ignored)")
	if err := parse(flags, args); err != nil {
		return err
	}
	if err := g.desktopOnly(); err != nil {
		return err
	}
	var password string
	if *passwordFile != "" {
		pw, err := readPasswordFile(*passwordFile)
		if err != nil {
			return err
		}
		password = pw
	}
	dir, err := p.dataDir(g)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	a, err := app.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer a.Close()
	srv, err := httpapi.New(httpapi.Config{
		Router:   a.Router,
		Bus:      a.Bus,
		Avatars:  a.Characters,
		Assets:   builtFrontend(p.Assets),
		Password: password,
		Addr:     *addr,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	url, err := srv.Start(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(p.Stdout, "Hearth is serving at %s/\n", url)
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
