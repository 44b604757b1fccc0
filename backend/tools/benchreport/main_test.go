package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleOutput = `goos: linux
goarch: amd64
pkg: hearth/backend/host
cpu: AMD EPYC
BenchmarkRouter/inproc/updateMessages-2   	    1000	   3000000 ns/op	    1024 B/op	      12 allocs/op
BenchmarkRouter/inproc/updateMessages-2   	    1000	   1000000 ns/op	    1024 B/op	      12 allocs/op
BenchmarkRouter/inproc/updateMessages-2   	    1000	   9000000 ns/op	    1024 B/op	      12 allocs/op
BenchmarkRouter/inproc/updateMessages-2   	    1000	   2000000 ns/op	    2048 B/op	      12 allocs/op
BenchmarkRouter/inproc/updateMessages-2   	    1000	   7000000 ns/op	    2048 B/op	      12 allocs/op
BenchmarkImport/jsonl-2                    	       3	 400000000 ns/op	        25.00 MB/s
BenchmarkImport/jsonl-2                    	       3	 410000000 ns/op	        15.00 MB/s
BenchmarkRSS/open-2                        	       1	         1.000 ns/op	       123.5 MB
BenchmarkRSS/open-2                        	       1	         1.000 ns/op	       124.5 MB
PASS
ok  	hearth/backend/host	12.3s
`

func TestParseLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want []sample
	}{
		{"BenchmarkX/a/b-16 \t 10 \t 5.5 ns/op \t 3 MB", []sample{{"BenchmarkX/a/b", "ns/op", 5.5}, {"BenchmarkX/a/b", "MB", 3}}},
		{"BenchmarkNoProcs 10 5 ns/op", []sample{{"BenchmarkNoProcs", "ns/op", 5}}},
		{"BenchmarkName-with-dash-x-4 1 2 ns/op", []sample{{"BenchmarkName-with-dash-x", "ns/op", 2}}},
		{"BenchmarkName-with-dash-x 1 2 ns/op", []sample{{"BenchmarkName-with-dash-x", "ns/op", 2}}},
		{"BenchmarkX-2 --- FAIL", nil},
		{"BenchmarkX-2", nil},
		{"ok  	hearth/backend/host	12.3s", nil},
		{"goos: linux", nil},
	}
	for _, tc := range tests {
		got := parseLine(tc.line)
		if len(got) != len(tc.want) {
			t.Errorf("parseLine(%q) = %v, want %v", tc.line, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("parseLine(%q)[%d] = %v, want %v", tc.line, i, got[i], tc.want[i])
			}
		}
	}
}

func TestMedian(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []float64
		want float64
	}{
		{[]float64{5}, 5},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{9, 1, 1, 9, 5}, 5},
	}
	for _, tc := range tests {
		if got := median(append([]float64(nil), tc.in...)); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestSummarizeAppliesGoalsAndConvertsUnits(t *testing.T) {
	t.Parallel()
	samples, failed, err := parse(strings.NewReader(sampleOutput))
	if err != nil || failed {
		t.Fatalf("parse: %v, failed=%v", err, failed)
	}
	table := map[string]Goal{
		"BenchmarkRouter/*/updateMessages": {Value: 5, Unit: "ms/op"},
		"BenchmarkImport/jsonl":            {Value: 20, Unit: "MB/s", AtLeast: true},
		"BenchmarkRSS/open":                {Value: 100, Unit: "MB"},
	}
	got := map[string]result{}
	for _, r := range summarize(samples, table) {
		got[r.Name+" "+r.Unit] = r
	}
	check := func(key string, value float64, goal float64, status string) {
		t.Helper()
		r, ok := got[key]
		if !ok {
			t.Fatalf("no row %q in %v", key, got)
		}
		if r.Value != value || r.status != status || (goal == 0) != (r.Goal == nil) || (r.Goal != nil && *r.Goal != goal) {
			t.Errorf("%s = %v %s goal %v; want %v %s goal %v", key, r.Value, r.status, r.Goal, value, status, goal)
		}
	}
	// Median of 3,1,9,2,7 ms is 3 ms: ns/op shown in the goal's ms/op.
	check("BenchmarkRouter/inproc/updateMessages ms/op", 3, 5, "ok")
	check("BenchmarkRouter/inproc/updateMessages B/op", 1024, 0, "")
	check("BenchmarkImport/jsonl MB/s", 20, 20, "ok")
	check("BenchmarkImport/jsonl ns/op", 405000000, 0, "")
	check("BenchmarkRSS/open MB", 124, 100, "over")
}

func TestReportedGoalUnitWinsOverConversion(t *testing.T) {
	t.Parallel()
	samples := []sample{
		{"BenchmarkRouter/http/addMessages", "ns/op", 1_200_000},
		{"BenchmarkRouter/http/addMessages", "ms/op", 1.1},
	}
	res := summarize(samples, map[string]Goal{"BenchmarkRouter/*/addMessages": {Value: 2, Unit: "ms/op"}})
	if len(res) != 2 || res[0].Unit != "ns/op" || res[0].Goal != nil || res[1].Unit != "ms/op" || res[1].Value != 1.1 || res[1].status != "ok" {
		t.Fatalf("results = %+v", res)
	}
}

func TestAtLeastGoalUnder(t *testing.T) {
	t.Parallel()
	res := summarize([]sample{{"BenchmarkImport/jsonl", "MB/s", 5}}, map[string]Goal{"BenchmarkImport/jsonl": {Value: 20, Unit: "MB/s", AtLeast: true}})
	if res[0].status != "under" {
		t.Fatalf("status %q, want under", res[0].status)
	}
}

func TestParseReportsFailures(t *testing.T) {
	t.Parallel()
	for _, out := range []string{"--- FAIL: BenchmarkX\n", "FAIL\thearth/x\t1s\n", "panic: boom\n"} {
		if _, failed, _ := parse(strings.NewReader(out)); !failed {
			t.Errorf("%q not reported as a failure", out)
		}
	}
}

func TestWriteJSONAndTable(t *testing.T) {
	t.Parallel()
	goal := 5.0
	results := []result{
		{Name: "BenchmarkA", Value: 3, Unit: "ms/op", Goal: &goal, status: "ok"},
		{Name: "BenchmarkB/long/name", Value: 1234.5678, Unit: "B/op"},
	}
	file := filepath.Join(t.TempDir(), "bench", "results.json")
	if err := writeJSON(file, results); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0]["goal"] != 5.0 || rows[1]["goal"] != nil || rows[1]["unit"] != "B/op" || len(rows[0]) != 4 {
		t.Fatalf("rows = %v", rows)
	}
	var buf bytes.Buffer
	printTable(&buf, results)
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "ok") || !strings.Contains(lines[2], "1235") {
		t.Fatalf("table:\n%s", buf.String())
	}
	unit := strings.Index(lines[0], "unit")
	if strings.Index(lines[1], "ms/op") != unit || strings.Index(lines[2], "B/op") != unit {
		t.Fatalf("unit column not aligned:\n%s", buf.String())
	}
	value := strings.Index(lines[0], "value") + len("value")
	if strings.Index(lines[1], "3 ") != value-1 || strings.Index(lines[2], "1235 ") != value-4 {
		t.Fatalf("value column not right-aligned:\n%s", buf.String())
	}
}

func TestGoalsTableIsWellFormed(t *testing.T) {
	t.Parallel()
	for name, g := range goals {
		// A Max goal may be 0 (none at all); a lower bound of 0 says nothing.
		if !strings.HasPrefix(name, "Benchmark") || g.Value < 0 || (g.AtLeast && g.Value == 0) || g.Unit == "" {
			t.Errorf("goal %q = %+v", name, g)
		}
		if _, err := filepath.Match(name, "x"); err != nil {
			t.Errorf("goal %q is a bad pattern: %v", name, err)
		}
	}
}

// The import's share of the storage ceiling is the ratio of the two
// medians, reported only when both ran.
func TestDerivedRatio(t *testing.T) {
	samples := []sample{
		{name: "BenchmarkImportRows", unit: "msgs/s", value: 20000},
		{name: "BenchmarkImportRows", unit: "msgs/s", value: 30000},
		{name: "BenchmarkImportRows", unit: "msgs/s", value: 25000},
		{name: "BenchmarkImportJsonl", unit: "msgs/s", value: 15000},
		{name: "BenchmarkImportJsonl", unit: "MB/s", value: 70},
	}
	got := derivedSamples(samples)
	if len(got) != 1 || got[0].name != "BenchmarkImportJsonl/ofImportRows" || got[0].unit != "x" || got[0].value != 0.6 {
		t.Fatalf("derivedSamples = %+v", got)
	}
	if got := derivedSamples(samples[:3]); len(got) != 0 {
		t.Fatalf("ratio without the import = %+v", got)
	}
}

// derivedRow derives samples' figures, wants exactly one, named name, and
// returns it with its row in the summary (goal and status).
func derivedRow(t *testing.T, samples []sample, name string) (sample, result) {
	t.Helper()
	got := derivedSamples(samples)
	if len(got) != 1 || got[0].name != name {
		t.Fatalf("derivedSamples = %+v, want one %s", got, name)
	}
	for _, r := range summarize(append(samples, got...), goals) {
		if r.Name == name {
			return got[0], r
		}
	}
	t.Fatalf("no row for %s", name)
	return sample{}, result{}
}

// The start delta is the difference of the two medians, in their unit,
// reported only when both ran.
func TestDerivedDifference(t *testing.T) {
	samples := []sample{
		{name: "BenchmarkDesktopExtensions/startWith10", unit: "ms", value: 700},
		{name: "BenchmarkDesktopExtensions/startWith0", unit: "ms", value: 600},
		{name: "BenchmarkDesktopExtensions/startWith10", unit: "ms", value: 900},
		{name: "BenchmarkDesktopExtensions/startWith0", unit: "ms", value: 640},
		{name: "BenchmarkDesktopExtensions/startWith10", unit: "ms", value: 760},
		{name: "BenchmarkDesktopExtensions/startWith0", unit: "ms", value: 2000},
		{name: "BenchmarkDesktopExtensions/startWith10", unit: "MB", value: 1},
	}
	got, row := derivedRow(t, samples, "BenchmarkDesktopExtensions/startDelta10")
	if got.unit != "ms" || got.value != 120 {
		t.Fatalf("derived %+v", got)
	}
	if row.Goal == nil || *row.Goal != 150 || row.status != "ok" {
		t.Fatalf("the delta's row = %+v", row)
	}
	if got := derivedSamples(samples[:1]); len(got) != 0 {
		t.Fatalf("difference without the runs with none = %+v", got)
	}
}

// The start delta from the app bundle's first statement is derived from its
// own figures, beside the one from the navigation start, with the same goal.
func TestDerivedPageStartFromBootDelta(t *testing.T) {
	samples := []sample{
		{name: "BenchmarkDesktopPageExtensions/startFromBootWith0", unit: "ms", value: 380},
		{name: "BenchmarkDesktopPageExtensions/startFromBootWith1", unit: "ms", value: 420},
		{name: "BenchmarkDesktopPageExtensions/startFromBootWith0", unit: "ms", value: 400},
		{name: "BenchmarkDesktopPageExtensions/startFromBootWith1", unit: "ms", value: 450},
		{name: "BenchmarkDesktopPageExtensions/startFromBootWith0", unit: "ms", value: 390},
		{name: "BenchmarkDesktopPageExtensions/startFromBootWith1", unit: "ms", value: 435},
	}
	got, row := derivedRow(t, samples, "BenchmarkDesktopPageExtensions/pageStartFromBootDelta1")
	if got.value != 45 {
		t.Fatalf("derived %+v", got)
	}
	if row.Goal == nil || *row.Goal != 60 || row.status != "ok" {
		t.Fatalf("the delta's row = %+v", row)
	}
}

// The page extension's start delta is derived like the sandboxed one's,
// against its own runs with none; the compat layer's cost with none is
// held to 0 ms: anything above is over.
func TestDerivedPageStartDeltaAndZeroGoal(t *testing.T) {
	samples := []sample{
		{name: "BenchmarkDesktopPageExtensions/startWith0", unit: "ms", value: 610},
		{name: "BenchmarkDesktopPageExtensions/startWith1", unit: "ms", value: 700},
		{name: "BenchmarkDesktopPageExtensions/startWith0", unit: "ms", value: 590},
		{name: "BenchmarkDesktopPageExtensions/startWith1", unit: "ms", value: 640},
		{name: "BenchmarkDesktopPageExtensions/startWith0", unit: "ms", value: 900},
		{name: "BenchmarkDesktopPageExtensions/startWith1", unit: "ms", value: 690},
		// The sandboxed tier's runs are not the page tier's.
		{name: "BenchmarkDesktopExtensions/startWith0", unit: "ms", value: 100},
		{name: "BenchmarkDesktopPageExtensions/compatCostWith0", unit: "ms", value: 0},
		{name: "BenchmarkDesktopPageExtensions/compatCostWith0", unit: "ms", value: 0},
		{name: "BenchmarkDesktopPageExtensions/compatCostWith0", unit: "ms", value: 3},
	}
	got, d := derivedRow(t, samples, "BenchmarkDesktopPageExtensions/pageStartDelta1")
	if got.unit != "ms" || got.value != 80 {
		t.Fatalf("derived %+v", got)
	}
	if d.Goal == nil || *d.Goal != 60 || d.status != "over" {
		t.Fatalf("the delta's row = %+v", d)
	}
	var c result
	for _, r := range summarize(samples, goals) {
		if r.Name == "BenchmarkDesktopPageExtensions/compatCostWith0" {
			c = r
		}
	}
	if c.Goal == nil || *c.Goal != 0 || c.Value != 0 || c.status != "ok" {
		t.Fatalf("the cost's row = %+v", c)
	}
	over := summarize([]sample{{name: "BenchmarkDesktopPageExtensions/compatCostWith0", unit: "ms", value: 0.5}}, goals)
	if len(over) != 1 || over[0].status != "over" {
		t.Fatalf("a cost above 0 = %+v", over)
	}
	if got := derivedSamples(samples[1:2]); len(got) != 0 {
		t.Fatalf("difference without the runs with none = %+v", got)
	}
}
