package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// goEvent is one line of `go test -json` (cmd/test2json).
type goEvent struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string
}

type testKey struct{ pkg, name string }

// goReport follows a `go test -json` stream: it prints a line per package
// as each finishes, prints the output of each failing test when it fails,
// and counts results.
type goReport struct {
	w       io.Writer
	output  map[testKey]*strings.Builder // per test; name "" is the package's own output
	builds  map[string]*strings.Builder  // build output per import path
	status  map[testKey]string           // "pass", "fail", "skip"
	pkgFail map[string]bool              // packages that failed as a whole
}

func newGoReport(w io.Writer) *goReport {
	return &goReport{
		w:       w,
		output:  map[testKey]*strings.Builder{},
		builds:  map[string]*strings.Builder{},
		status:  map[testKey]string{},
		pkgFail: map[string]bool{},
	}
}

func (r *goReport) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e goEvent
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event (go vet or build chatter): show it as is.
			fmt.Fprintf(r.w, "%s\n", line)
			continue
		}
		r.handle(e)
	}
	return sc.Err()
}

func (r *goReport) handle(e goEvent) {
	switch e.Action {
	case "build-output":
		appendTo(r.builds, e.ImportPath, e.Output)
		return
	case "build-fail":
		fmt.Fprintf(r.w, "FAIL %s [build failed]\n%s", e.ImportPath, r.builds[e.ImportPath])
		return
	}
	k := testKey{e.Package, e.Test}
	switch e.Action {
	case "output":
		b, ok := r.output[k]
		if !ok {
			b = &strings.Builder{}
			r.output[k] = b
		}
		b.WriteString(e.Output)
	case "pass", "skip":
		if e.Test != "" {
			r.status[k] = e.Action
			delete(r.output, k)
			return
		}
		if e.Action == "pass" {
			fmt.Fprintf(r.w, "ok   %s (%.1fs)\n", e.Package, e.Elapsed)
		}
		r.forget(e.Package)
	case "fail":
		if e.Test != "" {
			r.status[k] = "fail"
			fmt.Fprintf(r.w, "--- FAIL: %s %s\n%s", e.Package, e.Test, indent(r.output[k]))
			delete(r.output, k)
			return
		}
		fmt.Fprintf(r.w, "FAIL %s (%.1fs)\n", e.Package, e.Elapsed)
		if !r.anyFailed(e.Package) {
			// A panic, a timeout or a failed TestMain: no test says why, the
			// package output does.
			r.pkgFail[e.Package] = true
			fmt.Fprint(r.w, indent(r.output[testKey{e.Package, ""}]))
		}
		r.forget(e.Package)
	}
}

// forget drops a finished package's buffered output.
func (r *goReport) forget(pkg string) {
	for k := range r.output {
		if k.pkg == pkg {
			delete(r.output, k)
		}
	}
}

func (r *goReport) anyFailed(pkg string) bool {
	for k, s := range r.status {
		if k.pkg == pkg && s == "fail" {
			return true
		}
	}
	return false
}

// counts scores leaf tests (a parent's verdict is its subtests'), plus a
// parent that failed on its own while all its subtests passed, plus one
// failure per package that failed without a failing test.
func (r *goReport) counts() counts {
	keys := make([]testKey, 0, len(r.status))
	for k := range r.status {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pkg != keys[j].pkg {
			return keys[i].pkg < keys[j].pkg
		}
		return keys[i].name < keys[j].name
	})
	var c counts
	for i, k := range keys {
		s := r.status[k]
		hasChildren, childFailed := false, false
		for _, o := range keys[i+1:] {
			if o.pkg != k.pkg || !strings.HasPrefix(o.name, k.name+"/") {
				continue
			}
			hasChildren = true
			if r.status[o] == "fail" {
				childFailed = true
			}
		}
		switch {
		case s == "fail" && !childFailed:
			c.failed++
		case s == "pass" && !hasChildren:
			c.passed++
		}
	}
	c.failed += len(r.pkgFail)
	return c
}

func appendTo(m map[string]*strings.Builder, key, s string) {
	b, ok := m[key]
	if !ok {
		b = &strings.Builder{}
		m[key] = b
	}
	b.WriteString(s)
}

func indent(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line != "" {
			out.WriteString("    " + line)
		}
	}
	return out.String()
}
