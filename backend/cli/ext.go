package cli

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"hearth/backend/app"
	"hearth/backend/extensions"
)

const extUsage = "ext list | ext install PATH|URL|FILE.zip [--enable] | ext enable|disable|update|report ID | ext remove [--clean] ID"

// parseInterspersed parses flags that may come before, between or after
// the positional arguments, and returns those.
func parseInterspersed(set *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := set.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, usageError{msg: "bad flags"}
		}
		if set.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, set.Arg(0))
		args = set.Args()[1:]
	}
}

// runExt is `hearth ext …`: the extension registry from a terminal, on
// the service api.extensions uses.
func (p *Program) runExt(ctx context.Context, g *globals, args []string) error {
	set := p.commandFlags("ext", extUsage, g)
	enable := set.Bool("enable", false, "install: turn the extension on at once")
	clean := set.Bool("clean", false, "remove: drop the extension's storage too")
	pos, err := parseInterspersed(set, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{msg: "missing the subcommand: hearth " + extUsage}
	}
	sub, rest := pos[0], pos[1:]
	want := 1
	switch sub {
	case "list":
		want = 0
	case "install", "enable", "disable", "update", "remove", "report":
	default:
		return usageError{msg: fmt.Sprintf("unknown subcommand %q: hearth %s", sub, extUsage)}
	}
	if len(rest) != want {
		return usageError{msg: fmt.Sprintf("ext %s takes %d argument(s): hearth %s", sub, want, extUsage)}
	}
	if *enable && sub != "install" || *clean && sub != "remove" {
		return usageError{msg: "--enable goes with install, --clean with remove"}
	}
	var src extensions.Source
	if sub == "install" {
		if src, err = extSource(rest[0]); err != nil {
			return err
		}
	}
	return p.openExtensions(ctx, g, func(ctx context.Context, svc *extensions.Service) error {
		var e *extensions.Entry
		var err error
		switch sub {
		case "list":
			list, err := svc.List(ctx)
			if err != nil {
				return err
			}
			printExtensions(p, list)
			return nil
		case "install":
			e, err = svc.Install(ctx, src, extensions.InstallOptions{Enable: *enable})
		case "enable":
			e, err = svc.Enable(ctx, rest[0])
		case "disable":
			e, err = svc.Disable(ctx, rest[0])
		case "update":
			e, err = svc.Update(ctx, rest[0])
		case "report":
			r, err := svc.CompatReport(ctx, rest[0])
			if err != nil {
				return err
			}
			printReport(p, r)
			return nil
		case "remove":
			if err := svc.Remove(ctx, rest[0], extensions.RemoveOptions{Clean: *clean}); err != nil {
				return err
			}
			fmt.Fprintf(p.Stdout, "Removed %s\n", rest[0])
			return nil
		}
		if err != nil {
			return err
		}
		printExtensions(p, []extensions.Entry{*e})
		return nil
	})
}

// extSource reads the command line's package: an https URL, a .zip file
// (read here, as a browser would upload it) or a folder.
func extSource(arg string) (extensions.Source, error) {
	if strings.Contains(arg, "://") {
		return extensions.Source{URL: arg}, nil
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return extensions.Source{}, usageError{msg: fmt.Sprintf("bad path %q: %v", arg, err)}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return extensions.Source{}, fmt.Errorf("cannot read %s: %w", arg, err)
	}
	if fi.IsDir() {
		return extensions.Source{Path: abs}, nil
	}
	if !strings.HasSuffix(strings.ToLower(abs), ".zip") {
		return extensions.Source{}, usageError{msg: fmt.Sprintf("%s is neither a folder nor a .zip file", arg)}
	}
	if fi.Size() > extensions.MaxUploadBytes {
		return extensions.Source{}, fmt.Errorf("%s is larger than %d MiB", arg, extensions.MaxUploadBytes>>20)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return extensions.Source{}, fmt.Errorf("cannot read %s: %w", arg, err)
	}
	return extensions.Source{FileName: filepath.Base(abs), Base64: base64.StdEncoding.EncodeToString(data)}, nil
}

func printExtensions(p *Program, list []extensions.Entry) {
	if len(list) == 0 {
		fmt.Fprintln(p.Stdout, "No extensions installed.")
		return
	}
	w := tabwriter.NewWriter(p.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATUS\tMODE\tVERSION\tNAME\tGRANTED\tCOMPAT")
	for _, e := range list {
		status := e.Status
		if e.Error != "" {
			status += " (" + e.Error + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, status, e.Mode, e.Version, e.DisplayName, strings.Join(e.Granted, ","), compatWords(e.Compat))
	}
	w.Flush()
}

// openExtensions hands the data dir's extension service to fn (openApp).
func (p *Program) openExtensions(ctx context.Context, g *globals, fn func(ctx context.Context, svc *extensions.Service) error) error {
	return p.openApp(ctx, g, func(ctx context.Context, a *app.App) error { return fn(ctx, a.Extensions) })
}
