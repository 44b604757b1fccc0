package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGoReportCountsLeavesAndPackageFailures(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/gotest.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	r := newGoReport(&out)
	if err := r.read(f); err != nil {
		t.Fatal(err)
	}
	got := r.counts()
	// Passed: TestOK, TestTable/one, TestParentOnly/sub, TestFine.
	// Failed: TestTable/two, TestParentOnly (on its own), ex/b (timeout),
	// ex/c (build).
	if got.passed != 4 || got.failed != 4 {
		t.Fatalf("counts = %+v, want 4 passed, 4 failed\n%s", got, out.String())
	}
	text := out.String()
	for _, want := range []string{
		"--- FAIL: ex/a TestTable/two\n    " + "    a_test.go:9: got 1, want 2",
		"--- FAIL: ex/a TestParentOnly\n",
		"cleanup failed",
		"FAIL ex/b",
		"panic: test timed out",
		"FAIL ex/c [ex/c.test] [build failed]\nc.go:3:1: syntax error",
		"ok   ex/d",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "=== RUN   TestOK") {
		t.Errorf("output of a passing test was printed:\n%s", text)
	}
}

func TestReadVitest(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	got, err := readVitest(&out, "testdata/vitest.json")
	if err != nil {
		t.Fatal(err)
	}
	if got.passed != 2 || got.failed != 2 {
		t.Fatalf("counts = %+v, want 2 passed, 2 failed (one broken file)", got)
	}
	for _, want := range []string{"decodeError keeps details", "expected 1 to be 2", "broken.test.ts", "SyntaxError"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRecordAndTotal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []counts{{"go test", 10, 0}, {"fuzz", 1, 0}, {"fuzz", 1, 1}, {"vitest", 5, 0}} {
		if err := record(dir, c); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	code, err := total(&out, dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != 1 || lines[len(lines)-1] != "17 passed, 1 failed" {
		t.Fatalf("exit %d, output:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "FAIL fuzz              2 passed, 1 failed") {
		t.Fatalf("layers not summed in order:\n%s", out.String())
	}
}

func TestRunCheckAndExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := run(dir, "", []string{"check", "ok", "--", "true"}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(dir, "", []string{"check", "bad", "--", "false"}); err != nil {
		t.Fatal(err)
	}
	// A go layer whose command fails without any JSON still counts.
	if _, err := run(dir, "", []string{"go", "crash", "--", "sh", "-c", "exit 3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(dir, "", []string{"check", "x", "--", filepath.Join(dir, "no-such-binary")}); err == nil {
		t.Fatal("a command that cannot start must be an error")
	}
	var out bytes.Buffer
	code, _ := total(&out, dir)
	if code != 1 || !strings.HasSuffix(out.String(), "1 passed, 2 failed\n") {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
}
