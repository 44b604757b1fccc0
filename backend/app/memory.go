package app

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// Opening a long chat reads tens of megabytes, and an import writes as
// many: SQLite's page caches fill and the Go heap grows to hold them, and
// neither gives the memory back by itself (the runtime returns free heap
// over minutes, SQLite never shrinks a cache). A desktop app that sits idle
// between such calls should not keep that peak, so once the router has
// seen a large call and then none for idleRelease, the app releases what
// it holds (ReleaseMemory).

// largeCall is the size of arguments or result that counts a call as
// large; idleRelease the quiet time after one before memory goes back.
const (
	largeCall   = 1 << 20
	idleRelease = 5 * time.Second
)

// ReleaseMemory shrinks every idle SQLite connection's page cache and
// returns the heap's free memory to the operating system (a full GC, some
// tens of milliseconds with a long chat's messages in memory).
func (a *App) ReleaseMemory(ctx context.Context) {
	a.Store.ReleaseMemory(ctx)
	debug.FreeOSMemory()
}

// idleReleaser runs release once no large call has come for a while
// (after) since the last one.
type idleReleaser struct {
	mu      sync.Mutex
	after   time.Duration
	timer   *time.Timer
	closed  bool
	release func()
}

func newIdleReleaser(after time.Duration, release func()) *idleReleaser {
	return &idleReleaser{after: after, release: release}
}

// large notes a large call: the release is due after from now.
func (r *idleReleaser) large() {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
	case r.timer == nil:
		r.timer = time.AfterFunc(r.after, r.release)
	default:
		r.timer.Reset(r.after)
	}
}

// close cancels a release not yet started.
func (r *idleReleaser) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
	}
}
