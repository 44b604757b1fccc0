// Command soak is Hearth's crash soak (`make soak`): it runs the headless
// server (`hearth serve`) on 127.0.0.1 with a fresh data dir, drives
// writes of every kind over the HTTP API — messages, chat state and
// floor state, branches, generation commits, agent runs, SillyTavern
// library imports — and kills the server with SIGKILL at a random moment
// while they are in flight, then starts it again on the same data dir
// and checks that every write the server acknowledged is there and no
// item is there in part. It does that -kills times, verifies everything
// once more at the end, runs PRAGMA integrity_check on the database and
// prints the counts. It exits 1 when anything was lost, half written or
// damaged.
//
//	go build -tags headless -o build/bin/hearth-soak . && go run ./backend/tools/soak -bin build/bin/hearth-soak
//
// Generations and agent runs talk to a scripted OpenAI-compatible model
// on 127.0.0.1 that the soak runs itself; nothing leaves the machine.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.bin, "bin", "build/bin/hearth-soak", "the headless build of hearth to soak (go build -tags headless)")
	flag.StringVar(&cfg.workDir, "dir", "", "an empty or new folder for the data dir, the SillyTavern folders and the server's log (default: a new temp folder, removed after a run that passed)")
	flag.IntVar(&cfg.kills, "kills", 200, "how many times to kill the server with SIGKILL")
	flag.DurationVar(&cfg.minRun, "min-run", 150*time.Millisecond, "the shortest time writes run before a kill")
	flag.DurationVar(&cfg.maxRun, "max-run", 900*time.Millisecond, "the longest time writes run before a kill")
	flag.DurationVar(&cfg.chunkDelay, "chunk-delay", 12*time.Millisecond, "the scripted model's pause between streamed chunks")
	flag.Uint64Var(&cfg.seed, "seed", uint64(time.Now().UnixNano()), "the random seed (kill times and write choices)")
	flag.BoolVar(&cfg.verbose, "v", false, "print a line after every kill")
	flag.Parse()
	if cfg.kills < 1 || cfg.minRun <= 0 || cfg.maxRun < cfg.minRun {
		fmt.Fprintln(os.Stderr, "soak: -kills must be at least 1, and 0 < -min-run <= -max-run")
		os.Exit(2)
	}
	if _, err := os.Stat(cfg.bin); err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v (build it with: go build -tags headless -o %s .)\n", err, cfg.bin)
		os.Exit(2)
	}
	keep := cfg.workDir != ""
	dir, err := workDir(cfg.workDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	cfg.workDir = dir
	cfg.out = os.Stdout

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Printf("soak: %d kills of %s, writes for %s–%s before each, seed %d, in %s\n",
		cfg.kills, cfg.bin, cfg.minRun, cfg.maxRun, cfg.seed, dir)
	res := soak(ctx, cfg)
	ok := report(os.Stdout, res)
	switch {
	case !ok:
		fmt.Printf("soak: FAILED; the data dir and the server's log are kept in %s\n", dir)
		os.Exit(1)
	case !keep:
		_ = os.RemoveAll(dir)
	}
}

// report prints the counts and reports whether the soak passed: it ran
// to its end, nothing acknowledged was lost, nothing was half written,
// nobody's data appeared from nowhere, the server refused no write and
// gave no odd answer,
// every acknowledged write was checked, and SQLite found the database
// sound.
func report(w io.Writer, res *result) bool {
	ok := res.err == nil
	fmt.Fprintf(w, "\nsoak: %d SIGKILLs in %s (%d with calls waiting for their answer); the scripted model answered %d requests\n\n",
		res.kills, res.duration.Round(time.Second), res.killsInFlight, res.modelCalls)
	fmt.Fprintf(w, "%-20s %7s %7s %8s %5s %9s %7s %5s %10s %7s\n",
		"writer", "calls", "acked", "verified", "lost", "in-flight", "landed", "half", "unexpected", "refused")
	var sum Counts
	for _, r := range res.rows {
		c := r.counts
		sum = sum.add(c)
		fmt.Fprintf(w, "%-20s %7d %7d %8d %5d %9d %7d %5d %10d %7d\n",
			r.name, c.Calls, c.Acked, c.Verified, c.Lost, c.Uncertain, c.Landed, c.Half, c.Unexpected, c.Refused)
	}
	fmt.Fprintf(w, "%-20s %7d %7d %8d %5d %9d %7d %5d %10d %7d\n",
		"total", sum.Calls, sum.Acked, sum.Verified, sum.Lost, sum.Uncertain, sum.Landed, sum.Half, sum.Unexpected, sum.Refused)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "lost acknowledged writes: %d\n", sum.Lost)
	fmt.Fprintf(w, "half-written or half-imported items: %d\n", sum.Half)
	fmt.Fprintf(w, "unexpected values: %d\n", sum.Unexpected)
	fmt.Fprintf(w, "calls refused unexpectedly: %d\n", sum.Refused)
	fmt.Fprintf(w, "other oddities (unreadable answers, runs that never ended): %d\n", sum.Odd)
	fmt.Fprintf(w, "items imported twice (documented, not a failure): %d\n", sum.Twice)
	if res.err == nil {
		fmt.Fprintf(w, "acknowledged writes left unchecked: %d\n", sum.Unchecked())
	}
	fmt.Fprintf(w, "integrity_check: %s\n", joinOr(res.integrity, "not run"))
	if len(res.foreignKey) > 0 {
		fmt.Fprintf(w, "foreign_key_check: %s\n", joinOr(res.foreignKey, ""))
	}
	for _, r := range res.rows {
		if len(r.problems) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", r.name)
		for _, p := range r.problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
		if r.dropped > 0 {
			fmt.Fprintf(w, "  … and %d more\n", r.dropped)
		}
	}
	if res.err != nil {
		fmt.Fprintf(w, "\nsoak: stopped early: %v\n", res.err)
	}
	if sum.Lost > 0 || sum.Half > 0 || sum.Unexpected > 0 || sum.Refused > 0 || sum.Odd > 0 || (res.err == nil && sum.Unchecked() != 0) || !integrityOK(res.integrity) || len(res.foreignKey) > 0 {
		ok = false
	}
	if ok {
		fmt.Fprintln(w, "\nsoak: PASS")
	}
	return ok
}

// integrityOK reports whether every integrity check answered "ok".
func integrityOK(results []string) bool {
	if len(results) == 0 {
		return false
	}
	for _, r := range results {
		if r != "ok" {
			return false
		}
	}
	return true
}

// joinOr joins list with "; ", or says none when it is empty.
func joinOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	out := list[0]
	for _, s := range list[1:] {
		out += "; " + s
	}
	return out
}
