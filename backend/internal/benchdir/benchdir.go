// Package benchdir makes the temp dirs that benchmark fixtures live in.
//
// A fixture is built once per process and outlives every single
// benchmark, so testing's b.TempDir (removed when one benchmark ends)
// does not fit it. Its dir is named <prefix>-<pid>-<random> in the temp
// dir: a run that ends early (a failure, ^C, a timeout) leaves it behind,
// and the next run with the same prefix removes it once its pid no longer
// runs. A package that can tell when its benchmarks are done removes its
// own dirs too, with RemoveAll from a TestMain.
package benchdir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

var (
	mu   sync.Mutex
	made []string
)

// Make removes the stale dirs of prefix (Sweep), then creates a new dir
// <prefix>-<pid>-<random> in os.TempDir and returns its path. RemoveAll
// removes it again.
func Make(prefix string) (string, error) {
	Sweep(prefix)
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s-%d-", prefix, os.Getpid()))
	if err != nil {
		return "", err
	}
	mu.Lock()
	made = append(made, dir)
	mu.Unlock()
	return dir, nil
}

// Sweep removes the dirs <prefix>-<pid>-* in os.TempDir whose pid is not a
// running process (gone, or a zombie: killed and not yet reaped). It
// leaves everything else alone: this process's dirs, other names, files
// and symlinks. Where /proc does not tell which pids run, it removes
// nothing.
func Sweep(prefix string) {
	if _, err := os.Stat("/proc/self"); err != nil {
		return
	}
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := pidOf(e.Name(), prefix)
		if !ok || pid == os.Getpid() || !e.IsDir() {
			continue
		}
		if !running(pid) {
			_ = os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
		}
	}
}

// running reports whether /proc shows pid as a process that is not a
// zombie. It answers true when it cannot tell.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	// "pid (comm) state ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || !bytes.HasPrefix(stat[i+1:], []byte(" Z"))
}

// pidOf returns the pid in name when name is <prefix>-<pid>-<something>.
func pidOf(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix+"-")
	if !ok {
		return 0, false
	}
	digits, suffix, ok := strings.Cut(rest, "-")
	if !ok || suffix == "" || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// RemoveAll removes every dir Make made in this process. A TestMain calls
// it after m.Run, once the fixtures in them are closed.
func RemoveAll() error {
	mu.Lock()
	dirs := made
	made = nil
	mu.Unlock()
	var errs []error
	for _, d := range dirs {
		errs = append(errs, os.RemoveAll(d))
	}
	return errors.Join(errs...)
}
