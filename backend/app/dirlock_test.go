package app_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"hearth/backend/app"
	"hearth/backend/apperr"
)

// Environment of the lock child (TestDataDirLockChild).
const (
	lockChild    = "HEARTH_LOCK_CHILD"
	lockChildDir = "HEARTH_LOCK_CHILD_DIR"
)

// TestDataDirIsOneProcess: while a process has a data dir open, another
// process's Open is app.data_dir_in_use naming it, and changes nothing;
// once the first closes (or dies), the next Open succeeds.
func TestDataDirIsOneProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, err := app.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	child := func() (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDataDirLockChild$", "-test.v")
		cmd.Env = append(os.Environ(), lockChild+"=1", lockChildDir+"="+dir)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := child()
	if err == nil || !strings.Contains(out, app.CodeDataDirInUse) || !strings.Contains(out, "process "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("a second process opened the data dir in use (%v):\n%s", err, out)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if out, err := child(); err != nil {
		t.Fatalf("after Close, another process could not open the data dir: %v\n%s", err, out)
	}
	// In one process, Close and Open again works too (tests and restarts do it).
	b, err := app.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	_ = b.Close()
}

// TestDataDirLockChild is the second process of TestDataDirIsOneProcess:
// it opens the data dir and reports the error code.
func TestDataDirLockChild(t *testing.T) {
	if os.Getenv(lockChild) != "1" {
		t.Skip("the child of TestDataDirIsOneProcess")
	}
	a, err := app.Open(context.Background(), os.Getenv(lockChildDir))
	if err != nil {
		t.Fatalf("%s: %v", apperr.CodeOf(err), err)
	}
	_ = a.Close()
}
