package selftest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// webProcessComm is the name the kernel gives WebKitGTK's web content
// process (comm is cut at 15 bytes).
const webProcessComm = "WebKitWebProces"

// Memory is selftest.memory's answer: the resident memory of this process
// (the Go backend, GTK and WebKit's UI side) and of the web processes it
// started (the page's JavaScript, DOM and layout), in MB of VmRSS, which
// is what the machine gives them, not what their heaps hold.
type Memory struct {
	AppMB float64 `json:"appMB"`
	// GoMB is the part of AppMB the Go runtime holds from the system and
	// has not released (heap, stacks, its own structures), which tells
	// the Go side's share from the C libraries'.
	GoMB         float64 `json:"goMB"`
	WebMB        float64 `json:"webMB"`
	WebProcesses int     `json:"webProcesses"`
}

// goHeldMB is what the Go runtime holds from the system and has not
// given back, in MB.
func goHeldMB() float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.Sys-ms.HeapReleased) / 1e6
}

// readMemory measures this process and its web processes from procDir
// (/proc). A web process may sit under a sandbox launcher, so every
// descendant counts, not only the children.
func readMemory(procDir string, self int) (Memory, error) {
	var m Memory
	app, err := rssMB(filepath.Join(procDir, strconv.Itoa(self), "status"))
	if err != nil {
		return m, err
	}
	m.AppMB = app
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return m, fmt.Errorf("list processes: %w", err)
	}
	parent := map[int]int{}
	comm := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		name, ppid, ok := procStat(filepath.Join(procDir, e.Name(), "stat"))
		if !ok {
			continue // ended meanwhile
		}
		parent[pid], comm[pid] = ppid, name
	}
	for pid, name := range comm {
		if name != webProcessComm || !descends(parent, pid, self) {
			continue
		}
		mb, err := rssMB(filepath.Join(procDir, strconv.Itoa(pid), "status"))
		if err != nil {
			continue // ended meanwhile
		}
		m.WebMB += mb
		m.WebProcesses++
	}
	return m, nil
}

// descends reports whether pid is a descendant of root.
func descends(parent map[int]int, pid, root int) bool {
	for seen := 0; seen < len(parent); seen++ {
		p, ok := parent[pid]
		if !ok || p <= 1 {
			return false
		}
		if p == root {
			return true
		}
		pid = p
	}
	return false
}

// procStat reads a process's name and parent from /proc/PID/stat, whose
// name field is in parentheses and may itself hold spaces or ")".
func procStat(path string) (name string, ppid int, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, false
	}
	s := string(data)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, false
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 2 {
		return "", 0, false
	}
	ppid, err = strconv.Atoi(fields[1])
	if err != nil {
		return "", 0, false
	}
	return s[open+1 : end], ppid, true
}

// rssMB reads VmRSS from a /proc/PID/status file, in MB (10^6 bytes, as
// backend/tools/servebench counts them).
func rssMB(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("read RSS: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
		if err != nil {
			return 0, fmt.Errorf("read RSS: parse %q: %w", rest, err)
		}
		return kb * 1024 / 1e6, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read RSS: %w", err)
	}
	return 0, errors.New("read RSS: no VmRSS line in " + path)
}
