// Package eventstest records what an events.Bus publishes, for tests.
package eventstest

import (
	"sync"
	"testing"
	"time"

	"hearth/backend/events"
)

// deliveryTimeout bounds how long Take waits for the bus to deliver.
const deliveryTimeout = 10 * time.Second

// Recorder collects every event a bus publishes.
type Recorder struct {
	then func(func())

	mu  sync.Mutex
	evs []events.Event
}

// Record subscribes to bus until the test ends.
func Record(tb testing.TB, bus *events.Bus) *Recorder {
	r := &Recorder{}
	unsubscribe, then := bus.SubscribeInLine(func(e events.Event) {
		r.mu.Lock()
		r.evs = append(r.evs, e)
		r.mu.Unlock()
	})
	r.then = then
	tb.Cleanup(unsubscribe)
	return r
}

// Take waits until every event published before the call has reached the
// recorder (the bus runs then in line with the events, so no sentinel
// event is needed), returns them and starts a new collection. tb is the
// test that waits, which may not be the one that called Record (a fuzz
// target's t).
func (r *Recorder) Take(tb testing.TB) []events.Event {
	tb.Helper()
	Flush(tb, r.then)
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.evs
	r.evs = nil
	return got
}

// Flush waits until then (the second result of events.Bus.SubscribeInLine)
// runs: until its subscriber has had every event published before the
// call. A test that keeps its own list of events flushes before it counts
// them, or checks that one did not come: the bus delivers on the
// subscriber's goroutine, so an event published before the code under
// test returned may not have reached the list yet.
func Flush(tb testing.TB, then func(func())) {
	tb.Helper()
	delivered := make(chan struct{})
	then(func() { close(delivered) })
	select {
	case <-delivered:
	case <-time.After(deliveryTimeout):
		tb.Fatalf("events were not delivered within %v", deliveryTimeout)
	}
}
