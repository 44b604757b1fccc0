// Command testsummary runs one layer of `make test` and keeps the score, so
// the run can end with a single "N passed, N failed" line across Go tests,
// fuzzing, vet, svelte-check and Vitest.
//
//	testsummary [-dir D] [-C DIR] go LAYER -- go test -json ...
//	testsummary [-dir D] [-C DIR] vitest LAYER REPORT.json -- npx vitest run ...
//	testsummary [-dir D] [-C DIR] check LAYER -- CMD ...
//	testsummary [-dir D] [-C DIR] node LAYER REPORT.tap -- node --test ...
//	testsummary [-dir D] [-C DIR] checks LAYER REPORT.json -- CMD ...
//	testsummary [-dir D] total
//
// go streams `go test -json` and prints one line per package and the full
// output of every failing test; vitest reads Vitest's JSON report; node
// reads the TAP report of Node's test runner; checks reads a self-test's
// {ok, checks: [{name, ok, detail}]} report, one count per check; check
// counts a command as one pass or one failure. Each records its counts in
// D/counts.tsv; total sums them, prints the final line and exits 1 if
// anything failed. A layer's command exiting non-zero always counts as a
// failure, even when the report it wrote shows none.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	dir := flag.String("dir", "build/test-artifacts/summary", "where layer counts are recorded")
	chdir := flag.String("C", "", "run the layer's command in this directory")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: testsummary [-dir D] [-C DIR] go|vitest|node|checks|check LAYER [REPORT] -- CMD... | testsummary [-dir D] total")
		flag.PrintDefaults()
	}
	flag.Parse()
	code, err := run(*dir, *chdir, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run(dir, chdir string, args []string) (int, error) {
	if len(args) == 0 {
		return 0, errors.New("missing mode")
	}
	mode, args := args[0], args[1:]
	if mode == "total" {
		return total(os.Stdout, dir)
	}
	pre, cmd := splitCommand(args)
	if len(cmd) == 0 {
		return 0, fmt.Errorf("%s: missing -- CMD", mode)
	}
	var c counts
	var err error
	switch {
	case mode == "go" && len(pre) == 1:
		c, err = runGo(chdir, cmd)
	case mode == "vitest" && len(pre) == 2:
		c, err = runReport(chdir, cmd, filepath.Join(chdir, pre[1]), "vitest report", "test", readVitest)
	case mode == "node" && len(pre) == 2:
		// node --test writes a TAP report (its other reporter prints to stdout).
		c, err = runReport(chdir, cmd, filepath.Join(chdir, pre[1]), "node test report", "test", readNodeTAP)
	case mode == "checks" && len(pre) == 2:
		c, err = runReport(chdir, cmd, filepath.Join(chdir, pre[1]), "checks report", "check", readChecks)
	case mode == "check" && len(pre) == 1:
		c, err = runCheck(chdir, cmd)
	default:
		return 0, fmt.Errorf("bad arguments for %q: %q", mode, args)
	}
	if err != nil {
		return 0, err
	}
	c.layer = pre[0]
	return 0, record(dir, c)
}

// splitCommand splits args at the first "--".
func splitCommand(args []string) (before, cmd []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// counts is one layer's score.
type counts struct {
	layer          string
	passed, failed int
}

// command prepares cmd to run in dir with our stderr.
func command(dir string, cmd []string) *exec.Cmd {
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Dir = dir
	c.Stderr = os.Stderr
	return c
}

// exitFailure reports a command that ran but exited non-zero; other errors
// (not found, not runnable) are returned as is.
func exitFailure(err error) (bool, error) {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return true, nil
	}
	return false, err
}

func runGo(dir string, cmd []string) (counts, error) {
	c := command(dir, cmd)
	out, err := c.StdoutPipe()
	if err != nil {
		return counts{}, err
	}
	if err := c.Start(); err != nil {
		return counts{}, err
	}
	r := newGoReport(os.Stdout)
	if err := r.read(out); err != nil {
		_ = c.Process.Kill()
		_ = c.Wait()
		return counts{}, err
	}
	failedExit, err := exitFailure(c.Wait())
	if err != nil {
		return counts{}, err
	}
	res := r.counts()
	if failedExit && res.failed == 0 {
		fmt.Printf("FAIL %s exited non-zero without a failing test\n", strings.Join(cmd, " "))
		res.failed = 1
	}
	return res, nil
}

func runCheck(dir string, cmd []string) (counts, error) {
	c := command(dir, cmd)
	c.Stdout = os.Stdout
	failedExit, err := exitFailure(c.Run())
	if err != nil {
		return counts{}, err
	}
	if failedExit {
		return counts{failed: 1}, nil
	}
	return counts{passed: 1}, nil
}

// record appends c to dir/counts.tsv.
func record(dir string, c counts) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "counts.tsv"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(f, "%s\t%d\t%d\n", c.layer, c.passed, c.failed); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// total prints each layer's counts (summed over its runs, in first-run
// order) and the grand total, and returns 1 if anything failed.
func total(w io.Writer, dir string) (int, error) {
	f, err := os.Open(filepath.Join(dir, "counts.tsv"))
	if err != nil {
		return 0, fmt.Errorf("no layers recorded: %w", err)
	}
	defer f.Close()
	var order []string
	byLayer := map[string]*counts{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			return 0, fmt.Errorf("bad line %q", sc.Text())
		}
		p, perr := strconv.Atoi(fields[1])
		n, nerr := strconv.Atoi(fields[2])
		if perr != nil || nerr != nil {
			return 0, fmt.Errorf("bad line %q", sc.Text())
		}
		c, ok := byLayer[fields[0]]
		if !ok {
			c = &counts{layer: fields[0]}
			byLayer[fields[0]] = c
			order = append(order, fields[0])
		}
		c.passed += p
		c.failed += n
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	var sum counts
	fmt.Fprintln(w)
	for _, name := range order {
		c := byLayer[name]
		mark := "ok  "
		if c.failed > 0 {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %-14s %4d passed, %d failed\n", mark, name, c.passed, c.failed)
		sum.passed += c.passed
		sum.failed += c.failed
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", sum.passed, sum.failed)
	if sum.failed > 0 {
		return 1, nil
	}
	return 0, nil
}

// runReport runs a command that writes a report file and scores the report
// with read. A missing or unreadable report counts as one failure, and so
// does a non-zero exit that the report does not explain.
func runReport(dir string, cmd []string, report, what, unit string, read func(io.Writer, string) (counts, error)) (counts, error) {
	_ = os.Remove(report)
	c := command(dir, cmd)
	c.Stdout = os.Stdout
	failedExit, err := exitFailure(c.Run())
	if err != nil {
		return counts{}, err
	}
	res, rerr := read(os.Stdout, report)
	if rerr != nil {
		fmt.Printf("FAIL %s %s: %v\n", what, report, rerr)
		res.failed++
	}
	if failedExit && res.failed == 0 {
		fmt.Printf("FAIL %s exited non-zero without a failing %s\n", strings.Join(cmd, " "), unit)
		res.failed = 1
	}
	return res, nil
}
