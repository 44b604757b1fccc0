package worldinfo

import (
	"context"
	"time"
)

// ActivationDeadline bounds one activation's whole scan when the input
// sets no Deadline. A 1,000-entry book scans in a few milliseconds
// (BenchmarkActivate1000), so an honest scan never comes near it; but a
// book can hold thousands of regex keys that backtrack, each allowed
// jsMatchTimeout (in practice up to three times that: regexp2 reads a
// coarse clock), and without a bound on the whole their sum stalls the
// reply for minutes. Two seconds is long enough for a book with a
// handful of slow keys to be scanned to the end, and short enough that a
// person waiting for a reply sees a pause, not a hang.
const ActivationDeadline = 2 * time.Second

// halt decides when an activation stops: when the caller's context ends
// (the scan is abandoned and Activate returns the context's error) or
// when the deadline passes (the scan stops matching keys, keeps what
// activated so far and says so in a warning). The checks are cheap; the
// scan makes one before every key it matches and every entry it looks at.
type halt struct {
	ctx      context.Context
	clock    func() time.Time
	limit    time.Duration
	deadline time.Time
	// cut is set once the deadline passed, err once the context ended.
	cut bool
	err error
}

func newHalt(ctx context.Context, in *Input) *halt {
	h := &halt{ctx: ctx, clock: in.Clock, limit: in.Deadline}
	if h.clock == nil {
		h.clock = time.Now
	}
	if h.limit <= 0 {
		h.limit = ActivationDeadline
	}
	h.deadline = h.clock().Add(h.limit)
	return h
}

// stop reports whether the scan must stop matching: the context ended or
// the deadline passed. Once true it stays true.
func (h *halt) stop() bool {
	if h.err != nil || h.cut {
		return true
	}
	if err := h.ctx.Err(); err != nil {
		h.err = err
		return true
	}
	if !h.clock().Before(h.deadline) {
		h.cut = true
		return true
	}
	return false
}

// cancelled reports whether the caller's context ended: the scan is to be
// abandoned, not finished.
func (h *halt) cancelled() bool {
	if h.err == nil {
		h.err = h.ctx.Err()
	}
	return h.err != nil
}

// warning is the result's warning for a scan the deadline cut short.
func (h *halt) warning() string {
	return "the lorebook scan ran past its " + h.limit.String() +
		" limit and stopped early: entries whose keys it had not checked by then did not activate"
}
