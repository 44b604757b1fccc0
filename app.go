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
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"hearth/backend/app"
	"hearth/backend/cli"
	"hearth/backend/events"
	"hearth/backend/selftest"
	"hearth/backend/wailsbridge"
)

// icon is the window icon; build/appicon.png is also what `wails build`
// packages.
//
//go:embed build/appicon.png
var icon []byte

// eventName is the Wails event the frontend's desktop transport listens to.
const eventName = "hearth:event"

// appOrigin is where Wails serves the app's pages in a built window; the
// navigation guard keeps the window on it.
const appOrigin = wailsbridge.AppOrigin

func init() { desktop = runDesktop }

// runDesktop opens the data dir and shows the window until the user closes
// it, or, with o.SelfTest, until the self-test has reported.
func runDesktop(ctx context.Context, o cli.DesktopOptions) error {
	if wailsbridge.GeneratingBindings {
		// `wails build` runs this binary once to generate JS bindings; it
		// only needs the bound type, and must not open a data dir.
		return wails.Run(windowOptions(&wailsbridge.Bridge{}, linux.WebviewGpuPolicyOnDemand, nil, nil))
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
	a, err := app.Open(ctx, o.DataDir, app.SafeMode(o.SafeMode))
	if err != nil {
		return err
	}
	defer a.Close()

	w := &window{bus: a.Bus}
	wailsbridge.RegisterDesktop(a.Router, wailsbridge.Exporters{Chats: a.Chats, Characters: a.Characters, WorldInfo: a.WorldInfo, Presets: a.Presets},
		w.saveDialog, w.folderDialog)
	var bridgeOpts []wailsbridge.BridgeOption
	var assetOpts []wailsbridge.MiddlewareOption
	if o.SelfTest != "" {
		// WebKit keeps localStorage (the UI's remembered character and
		// chat, its theme) under $XDG_DATA_HOME/<program>: a self-test must
		// neither read the user's nor leave its own behind. GLib reads it
		// once, when WebKit starts inside wails.Run. (Caches stay shared:
		// they hold no state the UI acts on.)
		if err := os.Setenv("XDG_DATA_HOME", filepath.Join(o.DataDir, "webview")); err != nil {
			return err
		}
		extBench, extCount, err := selftest.ExtensionBenchFromEnv(os.Getenv)
		if err != nil {
			return err
		}
		pageBench, pageCount, err := selftest.PageBenchFromEnv(os.Getenv)
		if err != nil {
			return err
		}
		if extBench && pageBench {
			return fmt.Errorf("%s and %s are separate bench runs: set one", selftest.ExtensionsEnv, selftest.PageExtensionsEnv)
		}
		w.selfTest = selftest.New(selftest.Options{
			Report:          o.SelfTest,
			Screenshot:      strings.TrimSuffix(o.SelfTest, filepath.Ext(o.SelfTest)) + ".png",
			Memory:          os.Getenv(selftest.MemoryEnv) == "1",
			ExtensionBench:  extBench,
			BenchExtensions: extCount,
			PageBench:       pageBench,
			PageExtensions:  pageCount,
		})
		defer w.selfTest.Close()
		if err := w.selfTest.Seed(ctx, a.Router); err != nil {
			return err
		}
		if extBench || pageBench {
			// The bench modes time the window's start: the search index of
			// the chats just seeded is built first, so that its background
			// rounds do not share the two cores with the start they time.
			if err := a.Indexer.Wait(ctx); err != nil {
				return err
			}
		}
		w.selfTest.Register(a.Router)
		w.invoker = a.Router
		bridgeOpts = append(bridgeOpts, wailsbridge.WithCallObserver(w.selfTest.ObserveCall))
		assetOpts = append(assetOpts,
			wailsbridge.WithScripts(
				wailsbridge.ExtraScript{Path: selftest.StreamScriptPath, Body: selftest.StreamScript(), Boot: true},
				wailsbridge.ExtraScript{Path: selftest.MemoryScriptPath, Body: selftest.MemoryScript(), Boot: true},
				wailsbridge.ExtraScript{Path: selftest.ExtensionScriptPath, Body: selftest.ExtensionScript(), Boot: true},
				wailsbridge.ExtraScript{Path: selftest.PageTierScriptPath, Body: selftest.PageTierScript(), Boot: true},
				wailsbridge.ExtraScript{Path: selftest.ScriptPath, Body: selftest.PageScript(), Boot: true},
				wailsbridge.ExtraScript{Path: selftest.FrameScriptPath, Body: selftest.FrameScript()},
			),
			wailsbridge.WithBootObserver(w.selfTest.ObserveBootDocument),
			wailsbridge.WithInvokeObserver(w.selfTest.ObserveStream),
		)
	}
	gpu, err := wailsbridge.GPUPolicy(os.Getenv, filepath.Glob)
	if err != nil {
		slog.Warn("desktop window", "err", err)
	}
	middleware := wailsbridge.Middleware(token, a.Router, a.Characters, append(assetOpts, wailsbridge.WithPersonaAvatars(a.Personas), wailsbridge.WithMedia(a.Media),
		wailsbridge.WithExtensions(a.Extensions))...)
	if w.selfTest != nil {
		// The self-test logs the compat files the window fetches (WebKitGTK
		// keeps no Resource Timing entries for wails:// files).
		inner := middleware
		middleware = func(next http.Handler) http.Handler { return w.selfTest.ObserveAssets(inner(next)) }
	}
	opts := windowOptions(wailsbridge.New(ctx, a.Router, token, bridgeOpts...), gpu, o.Assets, middleware)
	opts.OnStartup = w.startup
	opts.OnShutdown = w.shutdown
	if err := wails.Run(opts); err != nil {
		return fmt.Errorf("desktop window: %w", err)
	}
	if w.selfTest != nil {
		return selftest.Err(w.result())
	}
	return nil
}

// windowOptions is the window's fixed configuration around its bridge.
func windowOptions(bridge *wailsbridge.Bridge, gpu linux.WebviewGpuPolicy, assets fs.FS, middleware assetserver.Middleware) *options.App {
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
			WebviewGpuPolicy: gpu,
		},
	}
}

// window forwards bus events to the webview while it is up, and in
// self-test mode closes it once the test has reported.
type window struct {
	bus *events.Bus

	// selfTest and invoker are set in self-test mode only.
	selfTest *selftest.Session
	invoker  selftest.Invoker

	mu          sync.Mutex
	ctx         context.Context // the window's, once it started
	unsubscribe func()
	report      *selftest.Report
}

func (w *window) startup(ctx context.Context) {
	w.guardNavigation(ctx)
	unsubscribe := w.bus.Subscribe(func(e events.Event) {
		wailsruntime.EventsEmit(ctx, eventName, e)
	})
	w.mu.Lock()
	w.ctx = ctx
	w.unsubscribe = unsubscribe
	w.mu.Unlock()
	if w.selfTest != nil {
		go w.finishSelfTest(ctx, time.Now())
	}
}

// saveDialog is the system's Save dialog for the desktop's save methods
// (wailsbridge.RegisterSaveFiles).
func (w *window) saveDialog(_ context.Context, req wailsbridge.SaveRequest) (string, error) {
	w.mu.Lock()
	ctx := w.ctx
	w.mu.Unlock()
	if ctx == nil {
		return "", errors.New("the window is not up yet")
	}
	return wailsruntime.SaveFileDialog(ctx, wailsruntime.SaveDialogOptions{
		Title:           req.Title,
		DefaultFilename: req.FileName,
		Filters:         []wailsruntime.FileFilter{{DisplayName: req.FilterName, Pattern: req.FilterGlobs}},
	})
}

// folderDialog is the system's folder chooser for library.pickFolder.
func (w *window) folderDialog(_ context.Context, title string) (string, error) {
	w.mu.Lock()
	ctx := w.ctx
	w.mu.Unlock()
	if ctx == nil {
		return "", errors.New("the window is not up yet")
	}
	return wailsruntime.OpenDirectoryDialog(ctx, wailsruntime.OpenDialogOptions{Title: title, CanCreateDirectories: true})
}

// guardNavigation keeps the window on the app: links in messages go to the
// system browser, nothing replaces Hearth with a remote page.
func (w *window) guardNavigation(ctx context.Context) {
	guard := &wailsbridge.NavigationGuard{
		AppOrigin:    appOrigin,
		OpenExternal: func(url string) { wailsruntime.BrowserOpenURL(ctx, url) },
		Installed: func(ok bool) {
			if !ok {
				slog.Error("desktop: the navigation guard found no webview; links could navigate the window away")
			}
		},
	}
	if w.selfTest != nil {
		guard = w.selfTest.NavigationGuard(appOrigin)
	}
	if err := wailsbridge.InstallNavigationGuard(guard); err != nil {
		slog.Warn("desktop: no navigation guard", "err", err)
	}
}

// finishSelfTest waits for the self-test's report, then closes the window.
// Should the window not close, the process exits anyway: a self-test must
// always end.
func (w *window) finishSelfTest(ctx context.Context, started time.Time) {
	rep := w.selfTest.Wait(ctx, w.invoker, started)
	w.mu.Lock()
	w.report = &rep
	w.mu.Unlock()
	time.AfterFunc(15*time.Second, func() {
		fmt.Fprintln(os.Stderr, "hearth: the window did not close after the self-test; exiting")
		if rep.OK {
			os.Exit(0)
		}
		os.Exit(1)
	})
	wailsruntime.Quit(ctx)
}

// result is the self-test's report, or a failed one if it never finished.
func (w *window) result() selftest.Report {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.report == nil {
		return selftest.Report{Checks: []selftest.Check{{Name: "self-test: the window stayed open until the report", Detail: "the window closed first"}}}
	}
	return *w.report
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
