package stcompat

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzScan: any bytes, as the entry and as a nested file beside an HTML
// file, scan without a panic into a Usage whose lists are sorted and
// distinct, whose modules are absolute paths, and which judges.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		works,
		"import { a as b, 'c' as d } from '../../../../script.js'; export * as x from '/lib.js';",
		"const { a, ...b } = await import(`../../../popup.js`); x = `${`${y}`}`; /re[/]'\"/g.test(z)",
		"`${", "'\\", "/*", "/[", "import{", "} = getContext()", "a ? .5 : b?.c", "#!/bin/sh\nimport 'x'",
		"$(`#a${b}c`); document.getElementById('q'); fetch(`${o}/api/${p}`)",
		"\x00\xff\xfe`\\u{110000}\\x", strings.Repeat("`${", 40),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, js string) {
		u, err := Scan(pkg(map[string]string{"index.js": js, "src/a.mjs": js, "a.html": js}), ScanOptions{ID: "f", Entry: "index.js"})
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range [][]string{u.Context, u.Events, u.Listens, u.DOMIDs, u.APIPaths} {
			if !slices.IsSorted(list) || len(slices.Compact(slices.Clone(list))) != len(list) {
				t.Fatalf("not sorted or repeated: %q", list)
			}
		}
		for _, m := range u.Modules {
			if !strings.HasPrefix(m.Path, "/") || strings.HasPrefix(m.Path, ThirdPartyPath+"f/") {
				t.Fatalf("module path %q", m.Path)
			}
		}
		if r := Judge(u, ManifestFacts{}, Env{}); r.Verdict == "" {
			t.Fatal("no verdict")
		}
	})
}

// TestScanPathological: inputs built to be slow (unmatched braces
// before getContext(), endless import clauses, deep templates, one long
// string, many small imports) scan 3 MiB in bounded time.
func TestScanPathological(t *testing.T) {
	t.Parallel()
	size := MaxScanFileBytes - 64
	for name, unit := range map[string]string{
		"braces":     "}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}=getContext();",
		"imports":    "import{a,",
		"templates":  "`${`${`${",
		"string":     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"names":      "import {a} from '/script.js';\n",
		"regexes":    "(/[/]/)/",
		"selectors":  "$('#a #b #c #d #e #f #g #h #i #j #k #l #m #n #o #p');",
		"namespaces": "import * as n from '/script.js'; n.a; n.b; n.c;",
	} {
		src := strings.Repeat(unit, size/len(unit))
		start := time.Now()
		if _, err := Scan(pkg(map[string]string{"index.js": src}), ScanOptions{ID: "p", Entry: "index.js"}); err != nil {
			t.Fatal(err)
		}
		// Linear work takes a second or two on a busy machine; anything
		// worse than linear would take hours.
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: %v for %d bytes", name, d, len(src))
		}
	}
}
