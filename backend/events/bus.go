// Package events is Hearth's typed in-process event bus.
//
// Domain services publish from store after-commit hooks, which run under the
// store's write lock in commit order; Publish only enqueues, so a slow
// subscriber never holds up a write. Each subscriber drains its own queue on
// its own goroutine, which keeps per-chat revision order for every sink.
package events

import (
	"sync"
)

// Event is one published fact. Payload is the structured object handed to
// api.events handlers, a pointer to the payload struct the registry
// declares for Type (registry.go); it always carries chatId, and revision
// when a chat write is involved. Transports send the Event as JSON.
type Event struct {
	Type    string `json:"type"`
	Payload any    `json:"payload"`
}

// Bus fans events out to subscribers.
type Bus struct {
	mu     sync.Mutex
	subs   map[int]*subscriber
	nextID int
	closed bool
}

// NewBus returns an empty bus.
func NewBus() *Bus { return &Bus{subs: map[int]*subscriber{}} }

type subscriber struct {
	fn      func(Event)
	mu      sync.Mutex
	queue   []item
	wake    chan struct{}
	done    chan struct{}
	stopped bool
}

// item is one entry of a subscriber's queue: an event for fn, or (then
// set) a function to run in its place, in line with the events.
type item struct {
	e    Event
	then func()
}

// Publish enqueues e for every subscriber. It never blocks on a
// subscriber. In tests it panics when Check refuses e (strict).
func (b *Bus) Publish(e Event) {
	if strict {
		if err := Check(e); err != nil {
			panic(err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		s.push(e)
	}
}

// Subscribe registers fn; fn runs on a dedicated goroutine, one event at a
// time, in publish order. The returned function unsubscribes; it is
// idempotent and waits until fn is no longer running.
func (b *Bus) Subscribe(fn func(Event)) (unsubscribe func()) {
	unsubscribe, _ = b.SubscribeInLine(fn)
	return unsubscribe
}

// SubscribeInLine is Subscribe that also returns then: then(f) runs f on
// the subscriber's goroutine once fn has had every event published before
// the call to then, and before any published after. A transport answers a
// call through it, so the events of the call's writes (published before the
// call returns) reach the caller before the answer does. After unsubscribe,
// or on a closed bus, then runs f at once.
func (b *Bus) SubscribeInLine(fn func(Event)) (unsubscribe func(), then func(func())) {
	s := &subscriber{fn: fn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(s.done)
		return func() {}, func(f func()) { f() }
	}
	id := b.nextID
	b.nextID++
	b.subs[id] = s
	b.mu.Unlock()
	go s.run()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, id)
			b.mu.Unlock()
			s.stop()
		})
		<-s.done
	}, s.then
}

// Close stops every subscriber. Safe to call twice.
func (b *Bus) Close() {
	b.mu.Lock()
	subs := b.subs
	b.subs = map[int]*subscriber{}
	b.closed = true
	b.mu.Unlock()
	for _, s := range subs {
		s.stop()
		<-s.done
	}
}

func (s *subscriber) push(e Event) {
	s.mu.Lock()
	s.queue = append(s.queue, item{e: e})
	s.mu.Unlock()
	s.poke()
}

// then queues f in line with the events (SubscribeInLine), or runs it at
// once when the subscriber has stopped.
func (s *subscriber) then(f func()) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		f()
		return
	}
	s.queue = append(s.queue, item{then: f})
	s.mu.Unlock()
	s.poke()
}

func (s *subscriber) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) run() {
	defer close(s.done)
	for range s.wake {
		for {
			s.mu.Lock()
			if s.stopped {
				s.mu.Unlock()
				return
			}
			if len(s.queue) == 0 {
				s.mu.Unlock()
				break
			}
			batch := s.queue
			s.queue = nil
			s.mu.Unlock()
			for _, it := range batch {
				if it.then != nil {
					it.then()
					continue
				}
				s.fn(it.e)
			}
		}
	}
}
