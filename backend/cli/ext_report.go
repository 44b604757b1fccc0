package cli

import (
	"fmt"
	"strings"

	"hearth/backend/extensions/stcompat"
)

// compatWords is a page extension's verdict for `hearth ext list`:
// "works", "partial (3)", "wont_load (1)"; "-" when there is none
// (sandboxed, or not scanned yet: `hearth ext report ID` scans it).
func compatWords(s *stcompat.Summary) string {
	switch {
	case s == nil:
		return "-"
	case s.Unsupported == 0:
		return s.Verdict
	}
	return fmt.Sprintf("%s (%d)", s.Verdict, s.Unsupported)
}

// printReport prints a compatibility report: the verdict, then each
// thing used that Hearth does not provide, by kind, then the notes.
func printReport(p *Program, r *stcompat.Report) {
	out := p.Stdout
	fmt.Fprintf(out, "Verdict: %s (%d not provided; SillyTavern %s compat)\n", r.Verdict, r.Unsupported, r.STVersion)
	line := func(kind, what, why string) { fmt.Fprintf(out, "  %-9s %s: %s\n", kind, what, why) }
	for _, m := range r.Modules {
		if !m.Served {
			why := "not provided by Hearth"
			if m.Linked {
				why += "; the extension cannot load"
			}
			line("module", m.Path, why)
			continue
		}
		for _, n := range m.Names {
			switch {
			case !n.Exported && n.Linked:
				line("name", m.Path+" "+n.Name, "SillyTavern does not export it; the extension cannot load")
			case !n.Exported:
				line("name", m.Path+" "+n.Name, "SillyTavern does not export it")
			case !n.Backed:
				line("name", m.Path+" "+n.Name, "not backed by Hearth (throws ext.unsupported)")
			}
		}
	}
	for _, o := range r.Others {
		line("import", o.Specifier, o.Kind)
	}
	for _, c := range r.Context {
		if !c.Backed {
			line("context", "getContext()."+c.Name, "not backed")
		}
	}
	for _, e := range r.Events {
		if !e.Supported {
			line("event", e.Name, "Hearth does not fire it")
		}
	}
	for _, d := range r.DOMIDs {
		if !d.Supported {
			line("element", "#"+d.ID, "not in Hearth's window")
		}
	}
	for _, a := range r.APIPaths {
		line("server", a.Path, "SillyTavern's server API is not in Hearth")
	}
	if v := r.Manifest.MinimumClientVersion; v != nil && !v.Satisfied {
		line("manifest", "minimum_client_version "+v.Version, "above "+r.STVersion)
	}
	for _, d := range r.Manifest.Dependencies {
		if !d.Installed {
			line("manifest", "dependency "+d.ID, "not installed")
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(out, "Notes:\n  "+strings.Join(r.Notes, "\n  "))
	}
}
