// Command hearth is Hearth's single binary: the desktop window by default,
// `hearth serve` for a browser, and the other commands listed by
// `hearth --help`. The command line lives in backend/cli; this file only
// supplies what is fixed at build time.
package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"

	"hearth/backend/cli"
)

// dist is the built frontend. frontend/dist holds a committed .gitkeep so
// this compiles before the first `npm run build`; without index.html the
// server shows a placeholder and the window Wails' default page.
//
//go:embed all:frontend/dist
var dist embed.FS

// version is set at link time: -ldflags "-X main.version=...".
var version = "dev"

// desktop opens the Wails window; app.go sets it, and builds with
// -tags headless (which leave app.go and Wails out) keep it nil.
var desktop cli.DesktopFunc

func main() {
	assets, err := fs.Sub(dist, "frontend/dist")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hearth:", err)
		os.Exit(1)
	}
	p := &cli.Program{Version: version, Assets: assets, Desktop: desktop}
	os.Exit(p.Run(context.Background(), os.Args[1:]))
}
