package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"hearth/backend/app"
	"hearth/backend/library"
)

// libraryFormatST names SillyTavern's user folder, the one library format
// import and export know.
const libraryFormatST = "st"

// parseLibraryArgs parses `FORMAT PATH` and the flags, which may come
// before, between or after them (`hearth import st PATH --data-dir D`).
func parseLibraryArgs(set *flag.FlagSet, args []string) (format, path string, err error) {
	var pos []string
	for {
		if err := set.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return "", "", err
			}
			return "", "", usageError{msg: "bad flags"}
		}
		if set.NArg() == 0 {
			break
		}
		pos = append(pos, set.Arg(0))
		args = set.Args()[1:]
	}
	switch {
	case len(pos) == 0:
		return "", "", usageError{msg: "missing the format and the folder: " + set.Name() + " st PATH"}
	case pos[0] != libraryFormatST:
		return "", "", usageError{msg: fmt.Sprintf("unknown format %q: the one format is st (a SillyTavern user folder)", pos[0])}
	case len(pos) == 1:
		return "", "", usageError{msg: "missing the folder: " + set.Name() + " st PATH"}
	case len(pos) > 2:
		return "", "", usageError{msg: fmt.Sprintf("unexpected argument %q", pos[2])}
	}
	// The service takes absolute paths only; on the command line, a path
	// is the shell's, relative to where the command runs.
	abs, err := filepath.Abs(pos[1])
	if err != nil {
		return "", "", usageError{msg: fmt.Sprintf("bad path %q: %v", pos[1], err)}
	}
	return pos[0], abs, nil
}

// openLibrary hands the data dir's library service to fn (openApp).
func (p *Program) openLibrary(ctx context.Context, g *globals, fn func(ctx context.Context, svc *library.Service) error) error {
	return p.openApp(ctx, g, func(ctx context.Context, a *app.App) error { return fn(ctx, a.Library) })
}

// openApp opens the data dir like serve does, with its log, and hands the
// app to fn, closing it after; ctrl-C cancels. The one-shot commands
// (import/export st, ext) run through it.
func (p *Program) openApp(ctx context.Context, g *globals, fn func(ctx context.Context, a *app.App) error) error {
	if err := g.desktopOnly(); err != nil {
		return err
	}
	if err := g.runsExtensionsOnly(); err != nil {
		return err
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
	a, err := app.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer a.Close()
	return fn(ctx, a)
}

// progressPrinter writes one line per progress report to w.
func progressPrinter(w io.Writer, op string) func(library.Progress) {
	return func(pr library.Progress) {
		if pr.Current == "" {
			fmt.Fprintf(w, "%s: %s %d/%d done\n", op, pr.Phase, pr.Done, pr.Total)
			return
		}
		fmt.Fprintf(w, "%s: %s %d/%d %s\n", op, pr.Phase, pr.Done+1, pr.Total, pr.Current)
	}
}

func (p *Program) runImport(ctx context.Context, g *globals, args []string) error {
	const usage = "import st PATH"
	_, path, err := parseLibraryArgs(p.commandFlags("import", usage, g), args)
	if err != nil {
		return err
	}
	return p.openLibrary(ctx, g, func(ctx context.Context, svc *library.Service) error {
		sum, err := svc.Import(ctx, path, progressPrinter(p.Stderr, "import"))
		if err != nil {
			return err
		}
		printImport(p.Stdout, sum)
		if n := len(sum.Failed); n > 0 {
			return fmt.Errorf("%d of the library's items could not be imported (listed above)", n)
		}
		return nil
	})
}

func (p *Program) runExport(ctx context.Context, g *globals, args []string) error {
	const usage = "export st PATH"
	_, path, err := parseLibraryArgs(p.commandFlags("export", usage, g), args)
	if err != nil {
		return err
	}
	return p.openLibrary(ctx, g, func(ctx context.Context, svc *library.Service) error {
		sum, err := svc.Export(ctx, path, progressPrinter(p.Stderr, "export"))
		if err != nil {
			return err
		}
		c := sum.Exported
		fmt.Fprintf(p.Stdout, "Exported to %s:\n  %s\n", sum.Folder, countsLine(c, sum.Messages))
		printFailed(p.Stdout, sum.Failed)
		if n := len(sum.Failed); n > 0 {
			return fmt.Errorf("%d items could not be exported (listed above)", n)
		}
		return nil
	})
}

// countsLine is the one-line summary of an import's or export's counts.
func countsLine(c library.Counts, messages int) string {
	return fmt.Sprintf("%d characters, %d chats, %d groups, %d group chats (%d messages), %d lorebooks, %d personas, %d presets, %d group files kept as they were",
		c.Characters, c.Chats, c.Groups, c.GroupChats, messages, c.Lorebooks, c.Personas, c.Presets, c.GroupFiles)
}

// printImport writes an import's summary: what came in, what was left
// alone and why, what failed and why.
func printImport(w io.Writer, sum library.Summary) {
	fmt.Fprintf(w, "Imported from %s:\n  %s\n", sum.Folder, countsLine(sum.Imported, sum.Messages))
	if n := sum.Imported.Extensions; n > 0 {
		fmt.Fprintf(w, "  %d %s, turned off: turn one on with hearth ext enable ID (hearth ext list names them)\n", n, plural(n, "extension", "extensions"))
	}
	if len(sum.Skipped) > 0 {
		fmt.Fprintf(w, "Skipped %d:\n", len(sum.Skipped))
		for _, s := range sum.Skipped {
			fmt.Fprintf(w, "  %s %s: %s\n", s.Kind, s.Path, s.Reason)
		}
	}
	printFailed(w, sum.Failed)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func printFailed(w io.Writer, failed []library.Failed) {
	if len(failed) == 0 {
		return
	}
	fmt.Fprintf(w, "Failed %d:\n", len(failed))
	for _, f := range failed {
		fmt.Fprintf(w, "  %s %s: %s\n", f.Kind, f.Path, f.Error)
	}
}
