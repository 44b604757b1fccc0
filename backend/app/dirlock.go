package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"hearth/backend/apperr"
)

// CodeDataDirInUse: another Hearth process has the data dir open.
const CodeDataDirInUse = "app.data_dir_in_use"

// lockName is the file whose lock marks a data dir as open.
const lockName = "hearth.lock"

// errLocked is what tryLock answers when another process holds the lock.
var errLocked = errors.New("locked")

// dirLock holds a data dir for one process. Each process keeps state
// beside the database that another cannot see — running generations and
// agent runs, which a second Open would mark interrupted at its startup,
// parsed lorebooks, event subscribers — so two processes on one data dir
// (the desktop window and `hearth import st`, say) would quietly corrupt
// each other's view. The operating system drops the lock when the process
// ends, a crash included, so a stale lock never blocks a restart.
type dirLock struct {
	once sync.Once
	f    *os.File
}

// lockDataDir takes dir's lock, or answers CodeDataDirInUse naming the
// process that holds it.
func lockDataDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, lockName)
	f, err := openLockFile(path)
	if err == nil {
		if err = tryLock(f); err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		if !errors.Is(err, errLocked) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		who := "another Hearth"
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				who = fmt.Sprintf("another Hearth (process %d)", pid)
			}
		}
		return nil, apperr.New(CodeDataDirInUse, "the data folder %s is in use by %s; close it first, or choose another folder with --data-dir", dir, who).
			WithDetails(map[string]any{"dataDir": dir})
	}
	// The pid is only for the message above; the lock is what counts.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, nil
}

// release lets the data dir go; safe to call twice.
func (l *dirLock) release() {
	l.once.Do(func() { _ = l.f.Close() })
}
