package stcompat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Verdicts of a Report (EXTENSIONS.md §5: works / partial / won't load).
const (
	// VerdictWorks: everything the package was seen to use is in Hearth.
	VerdictWorks = "works"
	// VerdictPartial: it loads, and some of what it uses is not in Hearth
	// (an unbacked name throws ext.unsupported when called, a missing
	// element or event is never there), or part of it was not read.
	VerdictPartial = "partial"
	// VerdictWontLoad: it cannot start: a module its entry loads imports
	// a name a compat module does not export, a SillyTavern module Hearth
	// does not serve, a URL, a bare name or a file the package lacks (the
	// ES module graph fails to link), it asks for a newer SillyTavern than
	// Hearth follows, or an extension it depends on is not installed.
	VerdictWontLoad = "wont_load"
)

// tables are SillyTavern's export table and the backed sets, read once.
var tables = sync.OnceValue(func() struct {
	st      Exports
	backed  map[string]map[string]bool
	context map[string]bool
	domIDs  map[string]bool
} {
	t := struct {
		st      Exports
		backed  map[string]map[string]bool
		context map[string]bool
		domIDs  map[string]bool
	}{st: SillyTavern(), backed: map[string]map[string]bool{}, context: set(ContextMembers), domIDs: set(DOMIDs)}
	for p, names := range Backed {
		t.backed[p] = set(names)
	}
	return t
})

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

// Level is the SillyTavern version Hearth's compat modules follow, which
// Hearth declares as capabilities().stCompat and compares a manifest's
// minimum_client_version with.
func Level() string { return tables().st.STVersion }

// ManifestFacts are what a manifest says that bears on loading.
type ManifestFacts struct {
	GenerateInterceptor  string
	MinimumClientVersion string
	Dependencies         []string
}

// Env is what Judge needs of the running Hearth.
type Env struct {
	// EventTypes maps the SillyTavern-style event names Hearth fires to
	// their wire values (events.TypeNames).
	EventTypes map[string]string
	// Installed says whether an extension id is installed (nil: none is).
	Installed func(id string) bool
}

// Report is a page extension's compatibility report (EXTENSIONS.md §5),
// api.extensions.compatReport's answer.
type Report struct {
	Verdict string `json:"verdict" ts:"'works' | 'partial' | 'wont_load'"`
	// STVersion is the SillyTavern version the compat modules follow.
	STVersion string `json:"stVersion"`
	// Unsupported counts what is used and not provided: each module not
	// served, name not backed, member, event, element id, server path,
	// other import, and manifest requirement not met.
	Unsupported int             `json:"unsupported"`
	Modules     []ModuleReport  `json:"modules"`
	Context     []ContextReport `json:"context"`
	Events      []EventReport   `json:"events"`
	DOMIDs      []DOMIDReport   `json:"domIds"`
	APIPaths    []APIPathReport `json:"apiPaths"`
	Others      []OtherUse      `json:"others"`
	Manifest    ManifestReport  `json:"manifest"`
	Notes       []string        `json:"notes"`
	Scanned     ScanStats       `json:"scanned"`
}

// ModuleReport is one SillyTavern module the package imports: served
// when Hearth has a compat module at its path.
type ModuleReport struct {
	Path    string       `json:"path"`
	Served  bool         `json:"served"`
	Linked  bool         `json:"linked"`
	Dynamic bool         `json:"dynamic"`
	Names   []NameReport `json:"names"`
}

// NameReport is one imported name: exported by SillyTavern's module at
// that path (so the compat module exports it too), backed when Hearth
// implements it (else calling it throws ext.unsupported).
type NameReport struct {
	Name     string `json:"name"`
	Exported bool   `json:"exported"`
	Backed   bool   `json:"backed"`
	Linked   bool   `json:"linked"`
}

// ContextReport is one getContext() member used.
type ContextReport struct {
	Name   string `json:"name"`
	Backed bool   `json:"backed"`
}

// EventReport is one event listened to or named: supported when Hearth
// fires it.
type EventReport struct {
	Name      string `json:"name"`
	Supported bool   `json:"supported"`
}

// DOMIDReport is one SillyTavern element the package reaches by id.
type DOMIDReport struct {
	ID        string `json:"id"`
	Supported bool   `json:"supported"`
}

// APIPathReport is one SillyTavern server path the package calls; Hearth
// has no SillyTavern server API, so none is supported.
type APIPathReport struct {
	Path string `json:"path"`
}

// ManifestReport is what the manifest asks of Hearth.
type ManifestReport struct {
	GenerateInterceptor  *InterceptorReport `json:"generateInterceptor,omitempty"`
	MinimumClientVersion *VersionReport     `json:"minimumClientVersion,omitempty"`
	Dependencies         []DependencyReport `json:"dependencies"`
}

// InterceptorReport: the manifest names a generate_interceptor, which
// Hearth calls before generations a window starts.
type InterceptorReport struct {
	Name   string `json:"name"`
	Backed bool   `json:"backed"`
}

// VersionReport: the manifest's minimum_client_version, satisfied when
// Hearth's level (stVersion) is at least it.
type VersionReport struct {
	Version   string `json:"version"`
	Satisfied bool   `json:"satisfied"`
}

// DependencyReport is one extension the manifest depends on.
type DependencyReport struct {
	ID        string `json:"id"`
	Installed bool   `json:"installed"`
}

// ScanStats say how much of the package the scan read.
type ScanStats struct {
	Files   int           `json:"files"`
	Bytes   int64         `json:"bytes"`
	Skipped []SkippedFile `json:"skipped"`
}

// Summary is the report in short, as api.extensions.list() shows it.
type Summary struct {
	Verdict     string `json:"verdict" ts:"'works' | 'partial' | 'wont_load'"`
	Unsupported int    `json:"unsupported"`
}

// Summary returns the verdict and the count of unsupported items.
func (r *Report) Summary() *Summary { return &Summary{Verdict: r.Verdict, Unsupported: r.Unsupported} }

// Judge weighs u and the manifest's facts against what Hearth provides.
func Judge(u *Usage, m ManifestFacts, env Env) *Report {
	t := tables()
	r := &Report{STVersion: t.st.STVersion, Modules: []ModuleReport{}, Context: []ContextReport{}, Events: []EventReport{},
		DOMIDs: []DOMIDReport{}, APIPaths: []APIPathReport{}, Others: append([]OtherUse{}, u.Others...), Notes: []string{},
		Manifest: ManifestReport{Dependencies: []DependencyReport{}},
		Scanned:  ScanStats{Files: u.Files, Bytes: u.Bytes, Skipped: append([]SkippedFile{}, u.Skipped...)}}
	blocked, unsupported := false, 0
	for _, mu := range u.Modules {
		exports, served := t.st.Modules[mu.Path]
		mr := ModuleReport{Path: mu.Path, Served: served, Linked: mu.Linked, Dynamic: mu.Dynamic, Names: []NameReport{}}
		if !served {
			unsupported++
			blocked = blocked || mu.Linked
		}
		for _, n := range mu.Names {
			_, exported := exports[n.Name]
			nr := NameReport{Name: n.Name, Exported: exported, Backed: t.backed[mu.Path][n.Name], Linked: n.Linked}
			if served && !nr.Backed {
				unsupported++
				blocked = blocked || n.Linked && !exported
			}
			mr.Names = append(mr.Names, nr)
		}
		r.Modules = append(r.Modules, mr)
	}
	for _, o := range u.Others {
		unsupported++
		blocked = blocked || o.Linked && o.Kind != OtherExtension
	}
	for _, c := range u.Context {
		cr := ContextReport{Name: c, Backed: t.context[c]}
		if !cr.Backed {
			unsupported++
		}
		r.Context = append(r.Context, cr)
	}
	r.Events = judgeEvents(u, env.EventTypes)
	for _, e := range r.Events {
		if !e.Supported {
			unsupported++
		}
	}
	for _, id := range u.DOMIDs {
		dr := DOMIDReport{ID: id, Supported: t.domIDs[id]}
		if !dr.Supported {
			unsupported++
		}
		r.DOMIDs = append(r.DOMIDs, dr)
	}
	for _, p := range u.APIPaths {
		unsupported++
		r.APIPaths = append(r.APIPaths, APIPathReport{Path: p})
	}
	if m.GenerateInterceptor != "" {
		r.Manifest.GenerateInterceptor = &InterceptorReport{Name: m.GenerateInterceptor, Backed: true}
	}
	if v := strings.TrimSpace(m.MinimumClientVersion); v != "" {
		vr := &VersionReport{Version: v, Satisfied: CompareVersions(t.st.STVersion, v) >= 0}
		if !vr.Satisfied {
			unsupported++
			blocked = true
		}
		r.Manifest.MinimumClientVersion = vr
	}
	for _, d := range m.Dependencies {
		dr := DependencyReport{ID: d, Installed: env.Installed != nil && env.Installed(d)}
		if !dr.Installed {
			unsupported++
			blocked = true
		}
		r.Manifest.Dependencies = append(r.Manifest.Dependencies, dr)
	}
	// Skipped tooling is not the extension's code; a skipped file of its
	// own leaves the verdict open.
	partlyRead := !u.EntryRead || slices.ContainsFunc(u.Skipped, func(s SkippedFile) bool { return !s.Tooling })
	if !u.EntryRead {
		r.Notes = append(r.Notes, "The entry module was not read (it is missing or too large), so what loads with it is not known.")
	}
	for _, s := range u.Skipped {
		if !s.Tooling {
			r.Notes = append(r.Notes, fmt.Sprintf("%s was not read: %s.", s.Path, s.Reason))
		}
	}
	if u.Version != ScanVersion {
		r.Notes = append(r.Notes, "This report comes from an older scan; ask for it again to scan anew.")
	}
	r.Unsupported = unsupported
	switch {
	case blocked:
		r.Verdict = VerdictWontLoad
	case unsupported > 0 || partlyRead:
		r.Verdict = VerdictPartial
	default:
		r.Verdict = VerdictWorks
	}
	return r
}

// judgeEvents names each event used: event_types names as they are,
// strings given to eventSource.on by their event_types name when Hearth
// knows the wire value, else as written.
func judgeEvents(u *Usage, types map[string]string) []EventReport {
	byValue := make(map[string]string, len(types))
	for name, v := range types {
		byValue[v] = name
	}
	seen := map[string]bool{}
	var out []EventReport
	add := func(name string, ok bool) {
		if !seen[name] {
			seen[name] = true
			out = append(out, EventReport{Name: name, Supported: ok})
		}
	}
	for _, e := range u.Events {
		_, ok := types[e]
		add(e, ok)
	}
	for _, s := range u.Listens {
		if name, ok := byValue[s]; ok {
			add(name, true)
		} else {
			add(s, false)
		}
	}
	slices.SortFunc(out, func(a, b EventReport) int { return strings.Compare(a.Name, b.Name) })
	if out == nil {
		out = []EventReport{}
	}
	return out
}

// CompareVersions compares dotted versions as SillyTavern does (numeric
// parts; a missing part is 0; text after a part's digits is ignored):
// negative when a < b, 0 when equal, positive when a > b.
func CompareVersions(a, b string) int {
	pa, pb := versionParts(a), versionParts(b)
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func versionParts(v string) []int {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	var out []int
	for _, part := range strings.Split(v, ".") {
		end := 0
		for end < len(part) && end < 9 && part[end] >= '0' && part[end] <= '9' {
			end++
		}
		n, _ := strconv.Atoi(part[:end])
		out = append(out, n)
	}
	return out
}
