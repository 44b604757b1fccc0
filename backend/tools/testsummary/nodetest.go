package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// tapSummary matches the totals `node --test` writes at the end of its TAP
// report ("# pass 12"); its spec reporter prints the same numbers for people.
var tapSummary = regexp.MustCompile(`^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$`)

// readNodeTAP scores the TAP report of `node --test` (written with
// --test-reporter=tap --test-reporter-destination=FILE): passed tests
// count as passed, failed and cancelled ones as failed. Skipped and todo
// tests count as neither. A report without totals (the runner crashed)
// is an error.
func readNodeTAP(w io.Writer, path string) (counts, error) {
	f, err := os.Open(path)
	if err != nil {
		return counts{}, err
	}
	defer f.Close()
	totals := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if m := tapSummary.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			totals[m[1]] = n
			continue
		}
		// Failing leaves and suites, with their nesting, so the summary
		// names them even when the spec output scrolled away.
		if trimmed := strings.TrimLeft(line, " "); strings.HasPrefix(trimmed, "not ok ") {
			indent := strings.Repeat(" ", (len(line)-len(trimmed))/4*2)
			fmt.Fprintf(w, "--- FAIL: %s%s\n", indent, strings.TrimPrefix(trimmed, "not ok "))
		}
	}
	if err := sc.Err(); err != nil {
		return counts{}, err
	}
	if _, ok := totals["tests"]; !ok {
		return counts{}, fmt.Errorf("no test totals in %s (did the runner crash?)", path)
	}
	return counts{passed: totals["pass"], failed: totals["fail"] + totals["cancelled"]}, nil
}
