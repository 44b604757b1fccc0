package selftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeProc writes /proc/PID/{stat,status} files for the given processes.
func fakeProc(t *testing.T, procs map[string]struct {
	name, ppid string
	rssKB      string
}) string {
	t.Helper()
	dir := t.TempDir()
	for pid, p := range procs {
		d := filepath.Join(dir, pid)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := pid + " (" + p.name + ") S " + p.ppid + " 1 1 0 -1 4194560"
		status := "Name:\t" + p.name + "\nVmPeak:\t999999 kB\n"
		if p.rssKB != "" {
			status += "VmRSS:\t" + p.rssKB + " kB\n"
		}
		for name, body := range map[string]string{"stat": stat, "status": status} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "sys"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadMemoryCountsOnlyThisProcesssWebProcesses(t *testing.T) {
	t.Parallel()
	type proc = struct{ name, ppid, rssKB string }
	dir := fakeProc(t, map[string]proc{
		"100": {"hearth", "1", "102400"},
		// Under a sandbox launcher: a grandchild still counts.
		"150": {"bwrap", "100", "1024"},
		"200": {webProcessComm, "150", "204800"},
		"210": {webProcessComm, "100", "51200"},
		"220": {"WebKitNetworkP", "100", "40960"},
		// Another window's web process is not ours.
		"300": {webProcessComm, "1", "999999"},
		// A name with ") S 100 (" in it must not pass for a child web process.
		"400": {webProcessComm + ") S 100 (x", "1", "10"},
	})
	m, err := readMemory(dir, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := Memory{AppMB: 102400 * 1024 / 1e6, WebMB: (204800 + 51200) * 1024 / 1e6, WebProcesses: 2}
	if m != want {
		t.Fatalf("readMemory = %+v, want %+v", m, want)
	}
}

func TestReadMemoryFailsWithoutItsOwnRSS(t *testing.T) {
	t.Parallel()
	type proc = struct{ name, ppid, rssKB string }
	dir := fakeProc(t, map[string]proc{"100": {"hearth", "1", ""}})
	if _, err := readMemory(dir, 100); err == nil || !strings.Contains(err.Error(), "no VmRSS") {
		t.Fatalf("readMemory without VmRSS: err = %v", err)
	}
	if _, err := readMemory(dir, 101); err == nil {
		t.Fatal("readMemory of a missing process: no error")
	}
}

func TestReadMemoryOfThisProcess(t *testing.T) {
	t.Parallel()
	m, err := readMemory("/proc", os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if m.AppMB < 1 || m.WebProcesses != 0 {
		t.Fatalf("readMemory of the test process = %+v", m)
	}
}

// The memory phase is off unless asked for: the page reads it from
// selftest.info, and selftest.memory answers through the router.
func TestMemoryPhaseIsOptInAndSelftestMemoryAnswers(t *testing.T) {
	a := newApp(t)
	for _, on := range []bool{false, true} {
		s := New(Options{Report: filepath.Join(t.TempDir(), "r.json"), Memory: on})
		if want := map[bool]time.Duration{false: 90 * time.Second, true: memoryTimeout}[on]; s.opts.Timeout != want {
			t.Errorf("Memory %v: default timeout %s, want %s", on, s.opts.Timeout, want)
		}
		if got := s.info()["memory"]; got != on {
			t.Errorf("Memory %v: selftest.info says memory: %v", on, got)
		}
		if on {
			s.Register(a.Router)
		}
	}
	var m Memory
	invoke(t, a, &m, "selftest.memory")
	if m.AppMB < 1 || m.GoMB <= 0 || m.GoMB > m.AppMB*4 {
		t.Fatalf("selftest.memory = %+v", m)
	}
}
