package stcompat

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
)

// ScanVersion is the version of Scan's rules. A Usage stored by an
// older version is scanned again when its full report is asked for.
const ScanVersion = 1

// Bounds of a scan: a package can hold 100 MiB of anything; the scan
// reads at most this much of it, and says what it left out.
const (
	MaxScanFiles     = 1000     // .js, .mjs and .html files read
	MaxScanFileBytes = 3 << 20  // one file
	MaxScanBytes     = 24 << 20 // all of them
)

// ThirdPartyPath is where SillyTavern (and Hearth) serve third-party
// extensions: a package's file p is at ThirdPartyPath + id + "/" + p.
const ThirdPartyPath = "/scripts/extensions/third-party/"

// vendorDirs are folders whose files are not the extension's own code.
var vendorDirs = map[string]bool{"node_modules": true, "bower_components": true}

// ScanOptions say what package is scanned.
type ScanOptions struct {
	// ID is the extension's id: its files are served under
	// ThirdPartyPath + ID, which is what relative imports resolve against.
	ID string
	// Entry is the manifest's js, the module the window imports.
	Entry string
}

// Usage is what a page extension's code uses of SillyTavern, found by
// Scan: facts only, judged against what Hearth provides by Judge (so a
// stored Usage is judged again as Hearth's compat tables grow).
type Usage struct {
	Version int `json:"version"`
	// Modules are the SillyTavern modules imported (absolute paths
	// outside the package), by resolved path.
	Modules []ModuleUse `json:"modules"`
	// Others are imports of anything else outside the package: URLs,
	// bare names, another extension's files, or a file of the package's
	// own that it does not hold.
	Others   []OtherUse `json:"others"`
	Context  []string   `json:"context"`
	Events   []string   `json:"events"`
	Listens  []string   `json:"listens"`
	DOMIDs   []string   `json:"domIds"`
	APIPaths []string   `json:"apiPaths"`
	// EntryRead: the entry module was read (false when it was too large
	// or missing, so what loads with it is not known).
	EntryRead bool          `json:"entryRead"`
	Files     int           `json:"files"`
	Bytes     int64         `json:"bytes"`
	Skipped   []SkippedFile `json:"skipped"`
}

// ModuleUse is one SillyTavern module the package imports. Linked: a
// module the entry loads statically imports it, so the entry fails to
// load if it is missing.
type ModuleUse struct {
	Path    string    `json:"path"`
	Linked  bool      `json:"linked"`
	Dynamic bool      `json:"dynamic"`
	Names   []NameUse `json:"names"`
}

// NameUse is one export a package takes from a module. Linked: named by
// a static import of a linked module, so a missing export stops the
// entry from loading (a namespace's ns.name read finds undefined instead).
type NameUse struct {
	Name   string `json:"name"`
	Linked bool   `json:"linked"`
}

// Kinds of OtherUse.
const (
	OtherURL       = "url"       // https://… or any scheme: the window's policy (script-src 'self') refuses it
	OtherBare      = "bare"      // lodash, @scope/pkg, node:fs: a browser resolves no bare name without an import map
	OtherExtension = "extension" // another extension's files, there only while it is installed and on
	OtherMissing   = "missing"   // a file of this package's that it does not hold
)

// OtherUse is an import of something outside SillyTavern's modules.
type OtherUse struct {
	Specifier string `json:"specifier"`
	Kind      string `json:"kind"`
	Linked    bool   `json:"linked"`
}

// SkippedFile is a file (or a folder, its path ending in "/") the scan
// did not read, and why. Tooling: it is not the extension's code (a
// vendored folder, a build tool's configuration), so leaving it out
// leaves nothing unknown.
type SkippedFile struct {
	Path    string `json:"path"`
	Reason  string `json:"reason"`
	Tooling bool   `json:"tooling,omitempty"`
}

// Scan reads a page extension's package (fsys, its root) without
// running any of it: every .js and .mjs file outside vendored folders
// (node_modules, bower_components, dot-folders) but build tools'
// configuration, for what extract finds, and its .html files for the
// element ids they create. A bare name imported by a file the entry
// never loads is a build script's, and left out. Imports
// are resolved as the browser resolves them from the file's address
// (ThirdPartyPath + id + "/" + path); one inside the package is followed
// as the package's own, and the modules reached from Entry by static
// imports are the ones that must link for the extension to load. It
// reads at most MaxScanFiles files, MaxScanFileBytes each and
// MaxScanBytes in all, and lists what it skipped.
func Scan(fsys fs.FS, opts ScanOptions) (*Usage, error) {
	if opts.ID == "" || strings.ContainsAny(opts.ID, "/\\") {
		return nil, errors.New("scan package: the extension's id is needed, as one path segment")
	}
	u := &Usage{Version: ScanVersion, Modules: []ModuleUse{}, Others: []OtherUse{}, Context: []string{}, Events: []string{},
		Listens: []string{}, DOMIDs: []string{}, APIPaths: []string{}, Skipped: []SkippedFile{}}
	entry := path.Clean(strings.TrimPrefix(opts.Entry, "./"))
	var candidates []string
	all := map[string]bool{} // every file of the package, read or not
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (vendorDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				u.Skipped = append(u.Skipped, SkippedFile{Path: p + "/", Reason: "vendored or hidden folder", Tooling: true})
				return fs.SkipDir
			}
			return nil
		}
		all[p] = true
		switch {
		case !d.Type().IsRegular() || !scanned(p):
		case p != entry && toolConfig(p):
			u.Skipped = append(u.Skipped, SkippedFile{Path: p, Reason: "a build tool's configuration", Tooling: true})
		default:
			candidates = append(candidates, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan package: %w", err)
	}
	// The entry first, so the bounds never leave it out for smaller files.
	sort.SliceStable(candidates, func(i, j int) bool { return candidates[i] == entry && candidates[j] != entry })

	facts := map[string]fileFacts{}
	var reached, own []string
	for _, p := range candidates {
		data, why := readBounded(fsys, p, u)
		if why != "" {
			u.Skipped = append(u.Skipped, SkippedFile{Path: p, Reason: why})
			continue
		}
		u.Files++
		u.Bytes += int64(len(data))
		if p == entry {
			u.EntryRead = true
		}
		if isHTML(p) {
			own = append(own, ownIDs(string(data))...)
			continue
		}
		toks, whole := lex(string(data))
		if !whole {
			u.Skipped = append(u.Skipped, SkippedFile{Path: p, Reason: fmt.Sprintf("read only in part: templates nest more than %d deep", maxTemplateDepth)})
		}
		f := extract(toks)
		facts[p] = f
		reached = append(reached, f.reached...)
		own = append(own, f.own...)
		u.Context = append(u.Context, f.context...)
		u.Events = append(u.Events, f.events...)
		u.APIPaths = append(u.APIPaths, f.apiPaths...)
	}
	base := ThirdPartyPath + opts.ID + "/"
	linked := ownGraph(facts, entry, base, false)
	loaded := ownGraph(facts, entry, base, true)
	emits := map[string]bool{}
	for _, f := range facts {
		for _, e := range f.emits {
			emits[e] = true
		}
	}
	// present: a file the import names is in the package (one in a
	// skipped folder too, which the walk did not list).
	statted := map[string]bool{}
	present := func(p string) bool {
		if all[p] {
			return true
		}
		if ok, done := statted[p]; done {
			return ok
		}
		fi, err := fs.Stat(fsys, p)
		statted[p] = err == nil && !fi.IsDir()
		return statted[p]
	}
	mods := map[string]*moduleAcc{}
	others := map[string]*OtherUse{}
	for _, p := range slices.Sorted(maps.Keys(facts)) {
		f := facts[p]
		for _, l := range f.listens {
			if !emits[l] {
				u.Listens = append(u.Listens, l)
			}
		}
		for _, im := range f.imports {
			static := !im.dynamic && linked[p]
			r := resolve(p, im.spec, base)
			switch {
			case r.own != "":
				if !present(r.own) {
					addOther(others, im.spec, OtherMissing, static)
				}
			case r.kind == OtherBare && !loaded[p]:
				// A file the entry never imports that names a package is
				// Node's (a build script), not the browser's.
			case r.kind != "":
				addOther(others, im.spec, r.kind, static)
			default:
				m := mods[r.path]
				if m == nil {
					m = &moduleAcc{ModuleUse{Path: r.path, Names: []NameUse{}}, map[string]int{}}
					mods[r.path] = m
				}
				m.Linked = m.Linked || static
				m.Dynamic = m.Dynamic || im.dynamic
				for _, n := range im.names {
					m.addName(n, static)
				}
				for _, n := range im.members {
					m.addName(n, false)
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(mods)) {
		m := mods[k]
		sort.Slice(m.Names, func(i, j int) bool { return m.Names[i].Name < m.Names[j].Name })
		u.Modules = append(u.Modules, m.ModuleUse)
	}
	for _, k := range slices.Sorted(maps.Keys(others)) {
		u.Others = append(u.Others, *others[k])
	}
	ownSet := map[string]bool{}
	for _, id := range own {
		ownSet[id] = true
	}
	for _, id := range reached {
		if !ownSet[id] {
			u.DOMIDs = append(u.DOMIDs, id)
		}
	}
	for _, list := range []*[]string{&u.Context, &u.Events, &u.Listens, &u.DOMIDs, &u.APIPaths} {
		slices.Sort(*list)
		*list = slices.Compact(*list)
	}
	return u, nil
}

// scanned says whether the scan reads p: JavaScript modules for what
// they use, HTML for the ids it creates.
func scanned(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".js" || ext == ".mjs" || isHTML(p)
}

// toolConfig says whether p is a build tool's configuration
// (vite.config.js, eslint.config.mjs, .eslintrc.js, gulpfile.js), which
// Node runs, never the browser.
func toolConfig(p string) bool {
	base := strings.ToLower(path.Base(p))
	return strings.Contains(base, ".config.") || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "gulpfile.") || strings.HasPrefix(base, "gruntfile.")
}

func isHTML(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".html" || ext == ".htm"
}

// readBounded reads p if the bounds allow; else why not.
func readBounded(fsys fs.FS, p string, u *Usage) ([]byte, string) {
	if u.Files >= MaxScanFiles {
		return nil, fmt.Sprintf("past the %d files a scan reads", MaxScanFiles)
	}
	f, err := fsys.Open(p)
	if err != nil {
		return nil, "cannot be read"
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxScanFileBytes+1))
	switch {
	case err != nil:
		return nil, "cannot be read"
	case len(data) > MaxScanFileBytes:
		return nil, fmt.Sprintf("larger than the %d MiB a scan reads of one file", MaxScanFileBytes>>20)
	case u.Bytes+int64(len(data)) > MaxScanBytes:
		return nil, fmt.Sprintf("past the %d MiB a scan reads in all", MaxScanBytes>>20)
	}
	return data, ""
}

// resolved is where an import leads: a file of the package (own), an
// Others kind, or else a SillyTavern path.
type resolved struct {
	own  string
	kind string
	path string
}

// resolve resolves spec, imported by the package's file p served under
// base, as a browser resolves a module specifier against the importing
// module's URL: relative and absolute paths against it (".." stops at
// the root), a query or fragment dropped; anything else is a URL (a
// scheme) or a bare name.
func resolve(p, spec, base string) resolved {
	s := strings.TrimSpace(spec)
	if !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") {
		if i := strings.Index(s, ":"); i > 0 && !strings.ContainsAny(s[:i], "/@") && s[:i] != "node" {
			return resolved{kind: OtherURL}
		}
		return resolved{kind: OtherBare}
	}
	if strings.HasPrefix(s, "//") { // scheme-relative: another host
		return resolved{kind: OtherURL}
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	abs := s
	if !strings.HasPrefix(s, "/") {
		abs = path.Join(path.Dir(base+p), s)
	}
	abs = path.Clean(abs)
	switch {
	case strings.HasPrefix(abs, base):
		return resolved{own: strings.TrimPrefix(abs, base)}
	case strings.HasPrefix(abs, ThirdPartyPath):
		return resolved{kind: OtherExtension}
	}
	return resolved{path: abs}
}

// ownGraph are the package's files the entry loads, itself included: by
// static imports (a module of theirs that fails to link fails the entry),
// and with dynamic, by literal import('…') too.
func ownGraph(facts map[string]fileFacts, entry, base string, dynamic bool) map[string]bool {
	seen := map[string]bool{}
	queue := []string{entry}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		f, ok := facts[p]
		if seen[p] || !ok {
			continue
		}
		seen[p] = true
		for _, im := range f.imports {
			if r := resolve(p, im.spec, base); (dynamic || !im.dynamic) && r.own != "" {
				queue = append(queue, r.own)
			}
		}
	}
	return seen
}

func addOther(m map[string]*OtherUse, spec, kind string, linked bool) {
	if o := m[spec]; o != nil {
		o.Linked = o.Linked || linked
		return
	}
	m[spec] = &OtherUse{Specifier: spec, Kind: kind, Linked: linked}
}

// moduleAcc gathers one module's ModuleUse, its names indexed.
type moduleAcc struct {
	ModuleUse
	index map[string]int
}

func (m *moduleAcc) addName(name string, linked bool) {
	if i, ok := m.index[name]; ok {
		m.Names[i].Linked = m.Names[i].Linked || linked
		return
	}
	m.index[name] = len(m.Names)
	m.Names = append(m.Names, NameUse{Name: name, Linked: linked})
}
