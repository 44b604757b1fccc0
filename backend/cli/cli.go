// Package cli is the `hearth` command line: global flags, the command
// table and each command's flags. main.go only supplies what depends on the
// build (the embedded frontend, the desktop window when Wails is compiled
// in) and calls Program.Run.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"hearth/backend/app"
)

// DesktopOptions are what the desktop window takes from the command line.
type DesktopOptions struct {
	// DataDir is the data directory to open.
	DataDir string
	// Assets is the built frontend.
	Assets fs.FS
	// SelfTest, when set, runs the desktop smoke test (DESIGN §7.5) on a
	// seeded DataDir and writes its JSON report to this path; the window
	// closes by itself and the error says whether the test passed.
	SelfTest string
	// SafeMode starts with every extension off (--safe-mode).
	SafeMode bool
}

// DesktopFunc opens the desktop window and blocks until it closes.
type DesktopFunc func(ctx context.Context, opts DesktopOptions) error

// Program is one invocation's environment. The zero values of Stdout,
// Stderr and Getenv fall back to the process's own.
type Program struct {
	// Version is printed by `hearth version`.
	Version string
	// Assets is the built frontend (the contents of frontend/dist).
	Assets fs.FS
	// Desktop opens the window; nil in builds without Wails (-tags headless).
	Desktop DesktopFunc
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
}

// command is one entry of the command table; new commands (import, export,
// bench) are added here.
type command struct {
	name    string
	usage   string
	summary string
	run     func(p *Program, ctx context.Context, g *globals, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"desktop", "[desktop]", "open the desktop window (the default)", (*Program).runDesktop},
		{"serve", "serve [--addr HOST:PORT] [--password-file FILE]", "serve the UI to a browser", (*Program).runServe},
		{"import", "import st PATH", "import a SillyTavern library (data/<user> or an install)", (*Program).runImport},
		{"export", "export st PATH", "export the library as a SillyTavern user folder", (*Program).runExport},
		{"ext", "ext list|install|enable|disable|remove|update …", "manage extensions (install PATH|URL|FILE.zip, enable ID, …)", (*Program).runExt},
		{"version", "version", "print the version", (*Program).runVersion},
	}
}

// globals are the flags accepted before and after the command name.
type globals struct {
	dataDir  string
	selfTest string
	safeMode bool
}

func (g *globals) register(set *flag.FlagSet) {
	set.StringVar(&g.dataDir, "data-dir", g.dataDir, "data directory (default $HEARTH_DATA_DIR, else the OS user data dir + /hearth)")
	set.StringVar(&g.selfTest, "self-test", g.selfTest, "run the desktop smoke test and write its JSON report to `FILE` (desktop only)")
	set.BoolVar(&g.safeMode, "safe-mode", g.safeMode, "start with every extension off (desktop and serve)")
}

// desktopOnly refuses the desktop-only global flags for other commands.
func (g *globals) desktopOnly() error {
	if g.selfTest != "" {
		return usageError{msg: "--self-test runs the desktop window; it does not apply to this command"}
	}
	return nil
}

// runsExtensionsOnly refuses --safe-mode for a command that runs no
// extension: only the window and `hearth serve` load them.
func (g *globals) runsExtensionsOnly() error {
	if g.safeMode {
		return usageError{msg: "--safe-mode starts the window or 'hearth serve' with every extension off; it does not apply to this command"}
	}
	return nil
}

// usageError marks a mistake on the command line: Run prints usage hints
// and exits 2 rather than 1.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Run parses args (without the program name), runs the command and returns
// the process exit code: 0 on success, 1 when the command failed, 2 for a
// bad command line.
func (p *Program) Run(ctx context.Context, args []string) int {
	if p.Stdout == nil {
		p.Stdout = os.Stdout
	}
	if p.Stderr == nil {
		p.Stderr = os.Stderr
	}
	if p.Getenv == nil {
		p.Getenv = os.Getenv
	}
	g := &globals{}
	top := flag.NewFlagSet("hearth", flag.ContinueOnError)
	top.SetOutput(p.Stderr)
	top.Usage = func() { p.usage(p.Stderr) }
	g.register(top)
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	name := top.Arg(0)
	if name == "" {
		name = "desktop"
	}
	if name == "help" {
		p.usage(p.Stdout)
		return 0
	}
	rest := top.Args()
	if len(rest) > 0 {
		rest = rest[1:]
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(p, ctx, g, rest)
		var usage usageError
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &usage):
			fmt.Fprintf(p.Stderr, "hearth %s: %s\nRun 'hearth %s --help' for usage.\n", name, usage.msg, name)
			return 2
		default:
			fmt.Fprintf(p.Stderr, "hearth: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(p.Stderr, "hearth: unknown command %q\nRun 'hearth --help' for usage.\n", name)
	return 2
}

func (p *Program) usage(w io.Writer) {
	fmt.Fprint(w, "Hearth: AI character chat, as a desktop app or served to a browser.\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  hearth [--data-dir DIR] %-48s %s\n", c.usage, c.summary)
	}
	fmt.Fprint(w, `
Global flags (before or after the command):
  --data-dir DIR   where Hearth keeps its data; default $HEARTH_DATA_DIR,
                   else the OS user data dir + /hearth
  --self-test FILE open the window on a seeded data dir (a new temp dir, or
                   an empty --data-dir), run the desktop smoke test, write
                   its JSON report to FILE and a screenshot beside it, and
                   exit non-zero if any check failed
  --safe-mode      start the window or 'hearth serve' with every extension
                   off, to get past one that breaks the app; the extension
                   manager (api.extensions.setSafeMode) leaves it again

Run 'hearth COMMAND --help' for a command's flags.
`)
}

// commandFlags returns a flag set for one command that also accepts the
// global flags, so `hearth serve --data-dir D` works like
// `hearth --data-dir D serve`.
func (p *Program) commandFlags(name, usage string, g *globals) *flag.FlagSet {
	set := flag.NewFlagSet("hearth "+name, flag.ContinueOnError)
	set.SetOutput(p.Stderr)
	set.Usage = func() {
		fmt.Fprintf(p.Stderr, "Usage: hearth [--data-dir DIR] %s\n\nFlags:\n", usage)
		set.PrintDefaults()
	}
	g.register(set)
	return set
}

// parse parses a command's flags and refuses stray arguments.
func parse(set *flag.FlagSet, args []string) error {
	if err := set.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		// The flag package has already printed the problem and usage.
		return usageError{msg: "bad flags"}
	}
	if set.NArg() > 0 {
		return usageError{msg: fmt.Sprintf("unexpected argument %q", set.Arg(0))}
	}
	return nil
}

// dataDir resolves --data-dir, then $HEARTH_DATA_DIR, then the default.
func (p *Program) dataDir(g *globals) (string, error) {
	if g.dataDir != "" {
		return g.dataDir, nil
	}
	if d := p.Getenv("HEARTH_DATA_DIR"); d != "" {
		return d, nil
	}
	return app.DefaultDataDir()
}

func (p *Program) runDesktop(ctx context.Context, g *globals, args []string) error {
	if err := parse(p.commandFlags("desktop", "[desktop]", g), args); err != nil {
		return err
	}
	if p.Desktop == nil {
		return errors.New("this hearth was built without the desktop window (-tags headless); " +
			"run 'hearth serve' and open the printed address in a browser")
	}
	if g.selfTest != "" {
		return p.runSelfTest(ctx, g)
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
	return p.Desktop(ctx, DesktopOptions{DataDir: dir, Assets: p.Assets, SafeMode: g.safeMode})
}

// runSelfTest runs the desktop smoke test. It never seeds the user's data:
// it takes an explicit --data-dir only when that is empty or new (and
// ignores $HEARTH_DATA_DIR), else works in a temp dir it removes after.
func (p *Program) runSelfTest(ctx context.Context, g *globals) error {
	dir := g.dataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "hearth-selftest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return usageError{msg: fmt.Sprintf("--self-test seeds its own data: --data-dir %s must be empty or not exist yet", dir)}
	}
	closeLog, err := p.openLog(dir)
	if err != nil {
		return err
	}
	defer closeLog()
	return p.Desktop(ctx, DesktopOptions{DataDir: dir, Assets: p.Assets, SelfTest: g.selfTest, SafeMode: g.safeMode})
}

func (p *Program) runVersion(_ context.Context, g *globals, args []string) error {
	if err := parse(p.commandFlags("version", "version", g), args); err != nil {
		return err
	}
	if err := g.desktopOnly(); err != nil {
		return err
	}
	if err := g.runsExtensionsOnly(); err != nil {
		return err
	}
	v := p.Version
	if v == "" {
		v = "dev"
	}
	fmt.Fprintf(p.Stdout, "hearth %s (%s, %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// readPasswordFile reads a password from path, without its trailing
// newline. An empty password is an error: it would silently turn the
// password off.
func readPasswordFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read password file: %w", err)
	}
	pw := strings.TrimRight(string(b), "\r\n")
	if pw == "" {
		return "", fmt.Errorf("password file %s is empty", path)
	}
	return pw, nil
}
