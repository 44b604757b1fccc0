//go:build !headless

// The desktop window (DESIGN §2): Wails hosts the frontend in a WebKit
// webview, serves it through its asset server with the capability-token
// middleware, binds the one token-checked Bridge, and forwards every bus
// event to the window. This file and backend/wailsbridge are the only
// places that know about Wails.

package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"hearth/backend/app"
	"hearth/backend/events"
	"hearth/backend/wailsbridge"
)

// icon is the window icon; build/appicon.png is also what `wails build`
// packages.
//
//go:embed build/appicon.png
var icon []byte

// eventName is the Wails event the frontend's desktop transport listens to.
const eventName = "hearth:event"

func init() { desktop = runDesktop }

// runDesktop opens dataDir and shows the window until the user closes it.
func runDesktop(ctx context.Context, dataDir string, assets fs.FS) error {
	if wailsbridge.GeneratingBindings {
		// `wails build` runs this binary once to generate JS bindings; it
		// only needs the bound type, and must not open a data dir.
		return wails.Run(windowOptions(&wailsbridge.Bridge{}, nil, nil))
	}
	if !wailsbridge.WindowCompiledIn {
		return errors.New("this hearth was built without the Wails window tags; build it with 'make build' " +
			"(or go build -tags webkit2_41,desktop,production), or run 'hearth serve'")
	}
	if err := wailsbridge.CheckDisplay(os.Getenv); err != nil {
		return err
	}
	token, err := wailsbridge.NewToken()
	if err != nil {
		return err
	}
	a, err := app.Open(ctx, dataDir)
	if err != nil {
		return err
	}
	defer a.Close()

	w := &window{bus: a.Bus}
	opts := windowOptions(wailsbridge.New(ctx, a.Router, token), assets, wailsbridge.Middleware(token, a.Characters))
	opts.OnStartup = w.startup
	opts.OnShutdown = w.shutdown
	if err := wails.Run(opts); err != nil {
		return fmt.Errorf("desktop window: %w", err)
	}
	return nil
}

// windowOptions is the window's fixed configuration around its bridge.
func windowOptions(bridge *wailsbridge.Bridge, assets fs.FS, middleware assetserver.Middleware) *options.App {
	return &options.App{
		Title:            "Hearth",
		Width:            1200,
		Height:           800,
		MinWidth:         720,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 0x15, G: 0x16, B: 0x1a, A: 0xff},
		AssetServer:      &assetserver.Options{Assets: assets, Middleware: middleware},
		Bind:             []any{bridge},
		// The inspector is compiled in by `wails build -devtools` (see the
		// Makefile); WebKit's context menu, which the frontend keeps with
		// --default-contextmenu: show, carries its "Inspect Element".
		EnableDefaultContextMenu: true,
		Debug:                    options.Debug{OpenInspectorOnStartup: false},
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "hearth",
			WebviewGpuPolicy: linux.WebviewGpuPolicyOnDemand,
		},
	}
}

// window forwards bus events to the webview while it is up.
type window struct {
	bus *events.Bus

	mu          sync.Mutex
	unsubscribe func()
}

func (w *window) startup(ctx context.Context) {
	unsubscribe := w.bus.Subscribe(func(e events.Event) {
		wailsruntime.EventsEmit(ctx, eventName, e)
	})
	w.mu.Lock()
	w.unsubscribe = unsubscribe
	w.mu.Unlock()
}

func (w *window) shutdown(context.Context) {
	w.mu.Lock()
	unsubscribe := w.unsubscribe
	w.unsubscribe = nil
	w.mu.Unlock()
	if unsubscribe != nil {
		unsubscribe()
	}
}
