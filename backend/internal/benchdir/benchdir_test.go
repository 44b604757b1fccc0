package benchdir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// deadPid returns the pid of a process that ran and was reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if _, err := os.Stat(fmt.Sprint("/proc/", pid)); err == nil {
		t.Skipf("pid %d was reused already", pid)
	}
	return pid
}

// zombiePid returns the pid of a child that was killed and is not yet
// reaped; it is reaped when the test ends.
func zombiePid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to start: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Wait() })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(stat), ") Z ") {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d is not a zombie: %s", pid, stat)
		}
	}
}

func TestMakeSweepsDirsOfDeadProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc: Sweep removes nothing here")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	const prefix = "hearth-bench"
	dead, zombie, self, parent := deadPid(t), zombiePid(t), os.Getpid(), os.Getppid()
	if _, err := os.Stat(fmt.Sprint("/proc/", parent)); err != nil {
		t.Skipf("parent pid %d not in /proc", parent)
	}
	mkdir := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "media"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "hearth.db"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	stale := []string{
		mkdir(fmt.Sprintf("%s-%d-123", prefix, dead)),
		mkdir(fmt.Sprintf("%s-%d-x-y", prefix, dead)),
		mkdir(fmt.Sprintf("%s-%d-123", prefix, zombie)),
	}
	kept := []string{
		mkdir(fmt.Sprintf("%s-%d-123", prefix, self)),   // this process's own
		mkdir(fmt.Sprintf("%s-%d-123", prefix, parent)), // another live process's
		// Not <prefix>-<pid>-<something>:
		mkdir(fmt.Sprintf("%s-%d", prefix, dead)),
		mkdir(fmt.Sprintf("%s-%d-", prefix, dead)),
		mkdir(fmt.Sprintf("%sx-%d-123", prefix, dead)),
		mkdir(fmt.Sprintf("hearth-searchbench-%d-123", dead)),
		mkdir(fmt.Sprintf("%s-x-%d-123", prefix, dead)),
		mkdir(fmt.Sprintf("%s-%dx-123", prefix, dead)),
		mkdir(fmt.Sprintf("%s--%d-123", prefix, dead)),
		mkdir(fmt.Sprintf("other-%s-%d-123", prefix, dead)),
		mkdir(prefix + "-0-123"),
	}
	// A file and a symlink of the pattern are not fixture dirs.
	file := fmt.Sprintf("%s-%d-file", prefix, dead)
	if err := os.WriteFile(filepath.Join(tmp, file), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := mkdir("target")
	link := fmt.Sprintf("%s-%d-link", prefix, dead)
	if err := os.Symlink(filepath.Join(tmp, target), filepath.Join(tmp, link)); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, file, link, target)

	dir, err := Make(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != tmp || !strings.HasPrefix(filepath.Base(dir), fmt.Sprintf("%s-%d-", prefix, self)) {
		t.Errorf("Make made %s, want %s/%s-%d-*", dir, tmp, prefix, self)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("Make's dir: %v", err)
	}
	for _, name := range stale {
		if _, err := os.Lstat(filepath.Join(tmp, name)); !os.IsNotExist(err) {
			t.Errorf("%s (a dead pid's) was not removed: %v", name, err)
		}
	}
	for _, name := range kept {
		if _, err := os.Lstat(filepath.Join(tmp, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, target, "hearth.db")); err != nil {
		t.Errorf("the symlink's target lost its file: %v", err)
	}

	// RemoveAll removes what Make made, and only that.
	if err := RemoveAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("RemoveAll left %s: %v", dir, err)
	}
	for _, name := range kept {
		if _, err := os.Lstat(filepath.Join(tmp, name)); err != nil {
			t.Errorf("RemoveAll removed %s: %v", name, err)
		}
	}
}

func TestPidOf(t *testing.T) {
	for _, c := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{"hearth-bench-42-123", 42, true},
		{"hearth-bench-42-1-2", 42, true},
		{"hearth-bench-42", 0, false},
		{"hearth-bench-42-", 0, false},
		{"hearth-bench--42-1", 0, false},
		{"hearth-bench-+42-1", 0, false},
		{"hearth-bench-0-1", 0, false},
		{"hearth-benchx-42-1", 0, false},
		{"hearth-searchbench-42-1", 0, false},
	} {
		if pid, ok := pidOf(c.name, "hearth-bench"); pid != c.pid || ok != c.ok {
			t.Errorf("pidOf(%q) = %d, %v; want %d, %v", c.name, pid, ok, c.pid, c.ok)
		}
	}
}
