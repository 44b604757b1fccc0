// Command benchreport turns `go test -bench` output (on stdin) into the
// table `make bench` prints and build/bench/results.json: for every
// benchmark and unit, the median across the -count runs, next to its goal.
//
//	go test -run '^$' -bench . -count 5 ./backend/... | go run ./backend/tools/benchreport
//
// The raw input is echoed to stderr as it arrives. The exit status is 1 if
// the input reports a failure (a FAIL line or a panic) or a goal is missed
// with -strict.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// sample is one metric of one benchmark run.
type sample struct {
	name  string
	unit  string
	value float64
}

// result is one row of the report.
type result struct {
	Name  string   `json:"name"`
	Value float64  `json:"value"`
	Unit  string   `json:"unit"`
	Goal  *float64 `json:"goal"`

	status string // "ok", "over", "under" or "" without a goal
}

func main() {
	out := flag.String("o", "build/bench/results.json", "where to write the JSON results")
	strict := flag.Bool("strict", false, "exit 1 when a goal is missed")
	flag.Parse()
	samples, failed, err := parse(io.TeeReader(os.Stdin, os.Stderr))
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(2)
	}
	results := summarize(append(samples, derivedSamples(samples)...), goals)
	printTable(os.Stdout, results)
	if err := writeJSON(*out, results); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stdout, "wrote %s\n", *out)
	missed := 0
	for _, r := range results {
		if r.status == "over" || r.status == "under" {
			missed++
		}
	}
	switch {
	case failed:
		fmt.Fprintln(os.Stderr, "benchreport: the benchmark run reported a failure (see above)")
		os.Exit(1)
	case missed > 0 && *strict:
		fmt.Fprintf(os.Stderr, "benchreport: %d goal(s) missed\n", missed)
		os.Exit(1)
	}
}

// parse reads benchmark output and returns every metric of every run, and
// whether the output reported a failure.
func parse(in io.Reader) (samples []sample, failed bool, err error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "panic:") {
			failed = true
		}
		samples = append(samples, parseLine(line)...)
	}
	return samples, failed, sc.Err()
}

// parseLine parses one result line:
//
//	BenchmarkName/sub-8   1000   1234 ns/op   5.5 ms/op   64 B/op
//
// and returns nothing for any other line.
func parseLine(line string) []sample {
	fields := strings.Fields(line)
	if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
		return nil
	}
	if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
		return nil
	}
	name := trimProcs(fields[0])
	var out []sample
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return out
		}
		out = append(out, sample{name: name, unit: fields[i+1], value: v})
	}
	return out
}

// trimProcs drops the -GOMAXPROCS suffix the testing package appends.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}

// median of a non-empty slice; it sorts vs.
func median(vs []float64) float64 {
	sort.Float64s(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// lookupGoal finds the goal for name: an exact key first, then the first
// wildcard key (in sorted order) that matches.
func lookupGoal(table map[string]Goal, name string) (Goal, bool) {
	if g, ok := table[name]; ok {
		return g, true
	}
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ok, _ := path.Match(k, name); ok {
			return table[k], true
		}
	}
	return Goal{}, false
}

// summarize takes the median per benchmark and unit, in first-seen order,
// and checks each against its goal.
func summarize(samples []sample, table map[string]Goal) []result {
	type key struct{ name, unit string }
	var order []key
	values := map[key][]float64{}
	for _, s := range samples {
		k := key{s.name, s.unit}
		if _, seen := values[k]; !seen {
			order = append(order, k)
		}
		values[k] = append(values[k], s.value)
	}
	results := make([]result, 0, len(order))
	for _, k := range order {
		r := result{Name: k.name, Unit: k.unit, Value: median(values[k])}
		g, ok := lookupGoal(table, k.name)
		_, goalUnitReported := values[key{k.name, g.Unit}]
		if ok && (k.unit == g.Unit || !goalUnitReported) {
			if v, ok := convert(r.Value, k.unit, g.Unit); ok {
				r.Value, r.Unit = v, g.Unit
				r.check(g)
			}
		}
		results = append(results, r)
	}
	return results
}

// check compares r with its goal.
func (r *result) check(g Goal) {
	goal := g.Value
	r.Goal = &goal
	switch {
	case g.AtLeast && r.Value < g.Value:
		r.status = "under"
	case !g.AtLeast && r.Value > g.Value:
		r.status = "over"
	default:
		r.status = "ok"
	}
}

// printTable prints the results aligned: names and units to the left,
// numbers to the right.
func printTable(w io.Writer, results []result) {
	rows := [][]string{{"benchmark", "value", "unit", "goal", "status"}}
	for _, r := range results {
		goal, status := "-", "-"
		if r.Goal != nil {
			goal, status = format(*r.Goal), r.status
		}
		rows = append(rows, []string{r.Name, format(r.Value), r.Unit, goal, status})
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	rightAligned := []bool{false, true, false, true, false}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell))
			if i > 0 {
				b.WriteString("  ")
			}
			if rightAligned[i] {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// format prints v with about four significant digits.
func format(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(v))))
	if digits < 0 {
		digits = 0
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}

func writeJSON(file string, results []result) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// derived are figures made of two others' medians (a, b, both in unit)
// in the same run, by combine (false: none this run):
//   - a ratio, in "x": an import's speed as a share of the storage
//     ceiling (BenchmarkImportRows), which moves with the machine and the
//     schema alike; a group chat's open time as a share of a character
//     chat's (issue 38);
//   - a difference, in the figures' unit: what a condition adds against
//     runs without it (the desktop window's start with ten sandboxed
//     extensions against its start with none, and with one page extension
//     enabled against none, from desktopbench).
//
// b's figure is in bUnit when set (two figures of one benchmark: the
// group chat's open time over the character chat's, issue 38).
var derived = []struct {
	name, a, b, unit, outUnit string
	combine                   func(a, b float64) (float64, bool)
	bUnit                     string
}{
	{"BenchmarkImportJsonl/ofImportRows", "BenchmarkImportJsonl", "BenchmarkImportRows", "msgs/s", "x", ratio, ""},
	{"BenchmarkChatOpen10k/firstPage/groupOfOneToOne", "BenchmarkChatOpen10k/firstPage", "BenchmarkChatOpen10k/firstPage", "group-ms", "x", ratio, "oneToOne-ms"},
	{"BenchmarkChatOpen10k/whole/groupOfOneToOne", "BenchmarkChatOpen10k/whole", "BenchmarkChatOpen10k/whole", "group-ms", "x", ratio, "oneToOne-ms"},
	{"BenchmarkDesktopExtensions/startDelta10", "BenchmarkDesktopExtensions/startWith10", "BenchmarkDesktopExtensions/startWith0", "ms", "ms", difference, ""},
	{"BenchmarkDesktopPageExtensions/pageStartDelta1", "BenchmarkDesktopPageExtensions/startWith1", "BenchmarkDesktopPageExtensions/startWith0", "ms", "ms", difference, ""},
	{"BenchmarkDesktopPageExtensions/pageStartFromBootDelta1", "BenchmarkDesktopPageExtensions/startFromBootWith1", "BenchmarkDesktopPageExtensions/startFromBootWith0", "ms", "ms", difference, ""},
}

func ratio(a, b float64) (float64, bool)      { return a / b, b > 0 }
func difference(a, b float64) (float64, bool) { return a - b, true }

// derivedSamples computes the derived figures whose two figures were both
// reported.
func derivedSamples(samples []sample) []sample {
	var out []sample
	for _, d := range derived {
		bUnit := d.bUnit
		if bUnit == "" {
			bUnit = d.unit
		}
		var a, b []float64
		for _, s := range samples {
			if s.name == d.a && s.unit == d.unit {
				a = append(a, s.value)
			}
			if s.name == d.b && s.unit == bUnit {
				b = append(b, s.value)
			}
		}
		if len(a) == 0 || len(b) == 0 {
			continue
		}
		if v, ok := d.combine(median(a), median(b)); ok {
			out = append(out, sample{name: d.name, unit: d.outUnit, value: v})
		}
	}
	return out
}
