package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// maxLogBytes is the size past which the log starts over at the next
// launch, keeping one previous file (hearth.log.1).
const maxLogBytes = 10 << 20

// openLog makes the process's default logger write to the process's
// stderr and to <dir>/logs/hearth.log, where "internal" errors put their
// detail under the ref a caller sees (apperr.Shape). The logger is
// process-wide, so it writes to os.Stderr, not p.Stderr: a Program's
// Stderr may be a test's buffer, which another Program's log must never
// reach. The returned function restores the previous logger and closes
// the file.
func (p *Program) openLog(dir string) (func(), error) {
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		return nil, fmt.Errorf("create log dir: %w", err)
	}
	path := filepath.Join(logs, "hearth.log")
	if info, err := os.Stat(path); err == nil && info.Size() > maxLogBytes {
		if err := os.Rename(path, path+".1"); err != nil {
			return nil, fmt.Errorf("rotate log: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.MultiWriter(os.Stderr, f), nil)))
	return func() {
		slog.SetDefault(prev)
		f.Close()
	}, nil
}
