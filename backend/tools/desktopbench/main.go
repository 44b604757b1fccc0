// Command desktopbench runs the desktop self-test (`hearth --self-test`)
// several times under Xvfb and prints what it measured about opening a
// 10,000-message chat, and about streaming a reply into it, as `go test
// -bench` result lines, one benchmark per figure, so `make bench` reports
// their medians beside their goals:
//
//	go run ./backend/tools/desktopbench -runs 5 | go run ./backend/tools/benchreport
//
// With -memory (the default) each run also opens the large chats ten times
// and rests 30 s (the self-test's memory phase, selftest.MemoryEnv), and
// the resident memory of the app process (Go, GTK, WebKit's UI side) and of
// its web processes after both is printed in MB.
//
// Each run's probe extension (backend/selftest/extensions/probe) also
// times 200 api.chat.count calls from its sandboxed frame against the
// page's own, printed as BenchmarkDesktopExtensions/bridgeOverheadP50.
// Then, with -ext-runs (default 3; 0 skips), the self-test's extension
// bench mode (selftest.ExtensionsEnv) runs that many times with each of
// 0, 10 and 20 generated sandboxed extensions, in turn: a short run that
// measures the window's start until every extension has activated
// (startWith0, startWith10, startWith20; benchreport prints startDelta10,
// the median with ten less the median with none) and, with extensions,
// one MESSAGE_SENT's way to all of their frames (eventFanout10,
// eventFanout20 after a pause; eventFanoutWarm… back to back).
//
// Then, with -page-runs (default 3; 0 skips), the self-test's page bench
// mode (selftest.PageExtensionsEnv) runs that many times with the
// SillyTavern-style page extension disabled and enabled, in turn: the
// window's start until the UI is up and, enabled, the extension has run
// (BenchmarkDesktopPageExtensions/startWith0, startWith1; benchreport
// prints pageStartDelta1, the median with it less the median without);
// the same end from the app bundle's first statement (startFromBootWith0,
// startFromBootWith1; benchreport's pageStartFromBootDelta1: the same
// difference without the spread of the webview's launch and the
// document's load, which nothing of the compat layer takes part in);
// how long the window was loading the SillyTavern compat layer, from the
// first request for one of its files to the last answer, with none
// enabled (compatCostWith0: nothing of the layer runs unless it was
// fetched) and with one (compatSpanWith1), and how many files
// (compatFilesWith0, compatFilesWith1); with one, the UI's own start
// (uiStartWith1), how long after it the extension had run in the same
// window (ranAfterUiWith1: the delta without the spread of the UI's start
// between runs, but also without what the extension slowed the UI by),
// and where the time went, by the page loader's requests
// in turn (runtimeStageWith1: from the runtime chunk's request, made with
// the list while the UI comes up, until the extension's module ran, which
// waits for the UI; packageStageWith1: from there until its ready handler
// had run; the first split by the page loader's marks: runtimeLoadWith1
// from asking for the runtime until it was evaluated, uiWaitWith1 its wait
// for the UI to be shown, installWith1 its install, linkWith1 from the
// extension's import until its module's first statement);
// and how many extensions.list() calls the window made with none enabled
// (listCallsWith0: 1, the extension host's, which the page loader shares).
//
// The figures are timings of one window on a shared machine and vary from
// run to run by a fifth or more, which is why they are benchmarks and not
// test assertions. A run that fails prints a FAIL line (benchreport then
// exits non-zero) and the next run goes on.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"hearth/backend/selftest"
)

// figures maps the self-test's metric names (the click run's; the select
// run's are the same with a "select" prefix) to benchmark names.
var figures = []struct{ metric, name string }{
	{"tailInViewMs", "tailInView"},
	{"firstPaintMs", "firstPaint"},
	{"wholeChatMs", "wholeChat"},
	{"maxTypingGapMs", "maxEventLoopGap"},
	{"maxKeyHandlerMs", "maxKeyHandler"},
}

// generation maps the self-test's generation metrics (stream.js) to
// benchmark names: a chunk from the scripted model server to the window's
// STREAM_TOKEN_RECEIVED handler, the longest gap between event-loop turns
// while a reply streams at 100 tokens/s into the 10k chat, and the longest
// once it is committed (the stored message replacing the live one, until
// it is painted).
var generation = []struct{ metric, name, unit string }{
	{"chunkToHandlerMs", "chunkToHandler", "chunk-handler-ms"},
	{"streamMaxTaskMs", "streamMaxTask", "ms"},
	{"streamCommitMaxTaskMs", "streamCommitMaxTask", "ms"},
}

// memory maps the self-test's memory metrics (memory.js) to benchmark
// names: the app process, which has goals, and its web processes, which
// are reported beside it.
var memory = []struct{ metric, name string }{
	{"rssAfterTenOpensMB", "rssAfterTenOpens"},
	{"rssIdle30sMB", "rssIdle30s"},
	{"webRssAfterTenOpensMB", "webProcessRssAfterTenOpens"},
	{"webRssIdle30sMB", "webProcessRssIdle30s"},
}

// agentFigures maps the self-test's agent metrics to benchmark names: a
// stored run event to the window's AGENT_RUN_EVENT handler.
var agentFigures = []struct{ metric, name, unit string }{
	{"agentEventToHandlerMs", "eventToHandler", "event-handler-ms"},
}

// extensionFigures maps the self-test's extension metrics to benchmark
// names: a normal run's bridge timing (extension.js), in ms.
var extensionFigures = []struct{ metric, name string }{
	{"extBridgeOverheadP50Ms", "bridgeOverheadP50"},
	{"extFrameCallP50Ms", "frameCallP50"},
	{"pageCallP50Ms", "pageCallP50"},
}

// benchCounts are the extension counts of the extension bench mode's
// runs: none and ten for the start's delta, twenty for the fan-out.
var benchCounts = []int{0, 10, 20}

// pageCounts are the page bench mode's runs: the page extension disabled
// and enabled.
var pageCounts = []int{0, 1}

// pageFigures maps the page bench mode's metrics (stpage.js) to benchmark
// names, per run ("%d": the run's count of enabled page extensions; a
// metric the run does not report is left out).
var pageFigures = []struct{ metric, name, unit string }{
	{"startWithPageExtensionsMs", "startWith%d", "ms"},
	{"uiStartMs", "uiStartWith%d", "ms"},
	{"startFromBootMs", "startFromBootWith%d", "ms"},
	{"pageExtensionAfterUiMs", "ranAfterUiWith1", "ms"},
	{"compatRuntimeStageMsWith1", "runtimeStageWith1", "ms"},
	{"compatPackageStageMsWith1", "packageStageWith1", "ms"},
	{"compatRuntimeLoadMsWith1", "runtimeLoadWith1", "ms"},
	{"compatUiWaitMsWith1", "uiWaitWith1", "ms"},
	{"compatInstallMsWith1", "installWith1", "ms"},
	{"compatLinkMsWith1", "linkWith1", "ms"},
	{"compatCostWith0", "compatCostWith0", "ms"},
	{"compatSpanMsWith1", "compatSpanWith1", "ms"},
	{"compatResourcesWith%d", "compatFilesWith%d", "files"},
	{"listCallsWith0", "listCallsWith0", "calls"},
}

func main() {
	bin := flag.String("bin", "build/bin/hearth", "the desktop build to run")
	runs := flag.Int("runs", 5, "how many self-tests to run")
	mem := flag.Bool("memory", true, "add the memory phase (about a minute more per run)")
	extRuns := flag.Int("ext-runs", 3, "how many extension bench runs to make with each of 0, 10 and 20 extensions (0: none)")
	pageRuns := flag.Int("page-runs", 3, "how many page bench runs to make with the page extension disabled and enabled (0: none)")
	flag.Parse()
	failed := false
	for i := 1; i <= *runs; i++ {
		var env []string
		if *mem {
			env = append(env, selftest.MemoryEnv+"=1")
		}
		metrics, err := selfTest(*bin, env)
		if err != nil {
			fmt.Printf("FAIL desktopbench: run %d: %v\n", i, err)
			failed = true
			continue
		}
		printRun(os.Stdout, metrics)
	}
	// In turn, so a machine that slows down weighs on every count alike.
	for i := 1; i <= *extRuns; i++ {
		for _, n := range benchCounts {
			metrics, err := selfTest(*bin, []string{fmt.Sprintf("%s=%d", selftest.ExtensionsEnv, n)})
			if err != nil {
				fmt.Printf("FAIL desktopbench: extension bench run %d with %d extensions: %v\n", i, n, err)
				failed = true
				continue
			}
			printExtensionRun(os.Stdout, metrics)
		}
	}
	for i := 1; i <= *pageRuns; i++ {
		for _, n := range pageCounts {
			metrics, err := selfTest(*bin, []string{fmt.Sprintf("%s=%d", selftest.PageExtensionsEnv, n)})
			if err != nil {
				fmt.Printf("FAIL desktopbench: page bench run %d with %d page extension(s) enabled: %v\n", i, n, err)
				failed = true
				continue
			}
			printPageRun(os.Stdout, metrics)
		}
	}
	if failed {
		os.Exit(1)
	}
}

// selfTest runs one self-test in a fresh temp dir, with env added to this
// process's environment, and returns its metrics.
func selfTest(bin string, env []string) (map[string]float64, error) {
	dir, err := os.MkdirTemp("", "hearth-desktopbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	report := filepath.Join(dir, "selftest.json")
	cmd := exec.Command("xvfb-run", "-a", "-s", "-screen 0 1280x900x24", bin, "--self-test", report)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), env...)
	runErr := cmd.Run()
	data, err := os.ReadFile(report)
	if err != nil {
		if runErr != nil {
			return nil, runErr
		}
		return nil, err
	}
	var rep struct {
		Metrics map[string]float64 `json:"metrics"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("read %s: %w", report, err)
	}
	if runErr != nil {
		return nil, fmt.Errorf("self-test failed (%v); its checks are in the log above", runErr)
	}
	return rep.Metrics, nil
}

// printRun writes one run's figures as benchmark lines, e.g.
// "BenchmarkDesktopChat10k/select/wholeChat 1 1378 ms".
func printRun(w io.Writer, metrics map[string]float64) {
	for _, mode := range []struct{ name, prefix string }{{"click", ""}, {"select", "select"}} {
		for _, f := range figures {
			key := f.metric
			if mode.prefix != "" {
				key = mode.prefix + string(key[0]-'a'+'A') + key[1:]
			}
			if v, ok := metrics[key]; ok {
				fmt.Fprintf(w, "BenchmarkDesktopChat10k/%s/%s\t1\t%g ms\n", mode.name, f.name, v)
			}
		}
	}
	for _, f := range memory {
		if v, ok := metrics[f.metric]; ok {
			fmt.Fprintf(w, "BenchmarkDesktopChat10k/%s\t1\t%g MB\n", f.name, v)
		}
	}
	for _, f := range generation {
		if v, ok := metrics[f.metric]; ok {
			fmt.Fprintf(w, "BenchmarkDesktopGenerate/%s\t1\t%g %s\n", f.name, v, f.unit)
		}
	}
	for _, f := range agentFigures {
		if v, ok := metrics[f.metric]; ok {
			fmt.Fprintf(w, "BenchmarkDesktopAgent/%s\t1\t%g %s\n", f.name, v, f.unit)
		}
	}
	for _, f := range extensionFigures {
		if v, ok := metrics[f.metric]; ok {
			fmt.Fprintf(w, "BenchmarkDesktopExtensions/%s\t1\t%g ms\n", f.name, v)
		}
	}
}

// printExtensionRun writes an extension bench run's figures, named by its
// extension count (the startExtensions metric), e.g.
// "BenchmarkDesktopExtensions/startWith10 1 640 ms".
func printExtensionRun(w io.Writer, metrics map[string]float64) {
	n, ok := metrics["startExtensions"]
	if !ok {
		return
	}
	count := int(n)
	if v, ok := metrics["startWithExtensionsMs"]; ok {
		fmt.Fprintf(w, "BenchmarkDesktopExtensions/startWith%d\t1\t%g ms\n", count, v)
	}
	if v, ok := metrics[fmt.Sprintf("extEventFanout%dMs", count)]; ok {
		fmt.Fprintf(w, "BenchmarkDesktopExtensions/eventFanout%d\t1\t%g ms\n", count, v)
	}
	if v, ok := metrics[fmt.Sprintf("extEventFanoutWarm%dMs", count)]; ok {
		fmt.Fprintf(w, "BenchmarkDesktopExtensions/eventFanoutWarm%d\t1\t%g ms\n", count, v)
	}
}

// printPageRun writes a page bench run's figures, named by its count of
// enabled page extensions (the startPageExtensions metric), e.g.
// "BenchmarkDesktopPageExtensions/startWith1 1 702 ms".
func printPageRun(w io.Writer, metrics map[string]float64) {
	n, ok := metrics["startPageExtensions"]
	if !ok {
		return
	}
	for _, f := range pageFigures {
		metric, name := f.metric, f.name
		if strings.Contains(metric, "%d") {
			metric = fmt.Sprintf(metric, int(n))
		}
		if strings.Contains(name, "%d") {
			name = fmt.Sprintf(name, int(n))
		}
		if v, ok := metrics[metric]; ok {
			fmt.Fprintf(w, "BenchmarkDesktopPageExtensions/%s\t1\t%g %s\n", name, v, f.unit)
		}
	}
}
