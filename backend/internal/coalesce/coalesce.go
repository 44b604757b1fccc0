// Package coalesce batches a stream's deltas into events: a generation's
// STREAM_TOKEN_RECEIVED and an agent run's model_delta.
package coalesce

import (
	"strings"
	"sync"
	"time"
)

// Window is the least time between two events of one stream. A provider
// may send a chunk per token (over a hundred a second); a window of 40 ms
// keeps the webview's work at 25 events a second while text still appears
// to flow.
const Window = 40 * time.Millisecond

// Coalescer batches stream deltas. A delta that arrives after a quiet
// window goes out at once (no added latency); deltas inside a window wait
// for its end and go out together. emit runs under the coalescer's lock:
// once Close returns, every delta has been emitted, in order.
type Coalescer struct {
	mu        sync.Mutex
	text      strings.Builder
	reasoning strings.Builder
	last      time.Time
	timer     *time.Timer
	closed    bool
	emit      func(text, reasoning string)
	now       func() time.Time
}

// New returns a coalescer that calls emit with each batch.
func New(emit func(text, reasoning string)) *Coalescer {
	return &Coalescer{emit: emit, now: time.Now}
}

// Add queues a delta.
func (c *Coalescer) Add(text, reasoning string) {
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
	wait := Window - c.now().Sub(c.last)
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

// Close sends what is pending and stops; later adds are dropped.
func (c *Coalescer) Close() {
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

func (c *Coalescer) flushLocked() {
	c.last = c.now()
	if c.text.Len() == 0 && c.reasoning.Len() == 0 {
		return
	}
	text, reasoning := c.text.String(), c.reasoning.String()
	c.text.Reset()
	c.reasoning.Reset()
	c.emit(text, reasoning)
}
