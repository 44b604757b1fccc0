package generate

import (
	"strings"
	"sync"
	"time"
)

// coalesceWindow is the least time between two STREAM_TOKEN_RECEIVED
// events of one generation. A provider may send a chunk per token (over a
// hundred a second); a window of 40 ms keeps the webview's work at 25
// events a second while text still appears to flow.
const coalesceWindow = 40 * time.Millisecond

// coalescer batches stream deltas. A delta that arrives after a quiet
// window goes out at once (no added latency); deltas inside a window wait
// for its end and go out together.
type coalescer struct {
	mu        sync.Mutex
	text      strings.Builder
	reasoning strings.Builder
	last      time.Time
	timer     *time.Timer
	closed    bool
	emit      func(text, reasoning string)
	now       func() time.Time
}

func newCoalescer(emit func(text, reasoning string)) *coalescer {
	return &coalescer{emit: emit, now: time.Now}
}

// add queues a delta.
func (c *coalescer) add(text, reasoning string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.text.WriteString(text)
	c.reasoning.WriteString(reasoning)
	if c.timer != nil {
		return // a flush is already due
	}
	wait := coalesceWindow - c.now().Sub(c.last)
	if wait <= 0 {
		c.flushLocked()
		return
	}
	c.timer = time.AfterFunc(wait, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.timer = nil
		if !c.closed {
			c.flushLocked()
		}
	})
}

// close sends what is pending and stops; later adds are dropped.
func (c *coalescer) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.flushLocked()
	c.closed = true
}

func (c *coalescer) flushLocked() {
	c.last = c.now()
	if c.text.Len() == 0 && c.reasoning.Len() == 0 {
		return
	}
	text, reasoning := c.text.String(), c.reasoning.String()
	c.text.Reset()
	c.reasoning.Reset()
	c.emit(text, reasoning)
}
