package events

import (
	"sync"
	"testing"
	"time"
)

// progress is a registered event whose payload carries n, for the bus
// tests (in a test binary Publish refuses unregistered events).
func progress(phase string, n int) Event {
	return Event{Type: LibraryProgress, Payload: &LibraryProgressPayload{Op: "import", Phase: phase, Done: n}}
}

func TestSubscribersGetEventsInOrder(t *testing.T) {
	t.Parallel()
	b := NewBus()
	defer b.Close()
	const n = 1000
	var mu sync.Mutex
	got := map[int][]int{}
	var unsubs []func()
	for s := range 3 {
		unsubs = append(unsubs, b.Subscribe(func(e Event) {
			mu.Lock()
			got[s] = append(got[s], e.Payload.(*LibraryProgressPayload).Done)
			mu.Unlock()
		}))
	}
	for i := range n {
		b.Publish(progress("x", i))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		done := len(got[0]) == n && len(got[1]) == n && len(got[2]) == n
		mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("events not delivered")
		}
		time.Sleep(time.Millisecond)
	}
	for s, seq := range got {
		for i, v := range seq {
			if v != i {
				t.Fatalf("subscriber %d: event %d is %d", s, i, v)
			}
		}
	}
	for _, u := range unsubs {
		u()
		u() // idempotent
	}
}

func TestSlowSubscriberDoesNotBlockPublish(t *testing.T) {
	t.Parallel()
	b := NewBus()
	defer b.Close()
	release := make(chan struct{})
	unsub := b.Subscribe(func(Event) { <-release })
	// The subscriber is stuck until every publish returned: a blocking
	// Publish would deadlock here.
	for range 10000 {
		b.Publish(progress("x", 0))
	}
	close(release)
	unsub()
}

func TestUnsubscribeStopsDelivery(t *testing.T) {
	t.Parallel()
	b := NewBus()
	var mu sync.Mutex
	count := 0
	unsub := b.Subscribe(func(Event) { mu.Lock(); count++; mu.Unlock() })
	unsub()
	b.Publish(progress("x", 0))
	b.Close()
	b.Close()
	mu.Lock()
	defer mu.Unlock()
	if count != 0 {
		t.Errorf("got %d events after unsubscribe", count)
	}
	if u := b.Subscribe(func(Event) {}); u == nil {
		t.Error("subscribe after close returned nil")
	} else {
		u()
	}
}

// TestSubscribeInLine: then(f) runs f after the events published before it
// and before those published after, on the subscriber's goroutine; after
// unsubscribe (and on a closed bus) it runs f at once.
func TestSubscribeInLine(t *testing.T) {
	t.Parallel()
	b := NewBus()
	defer b.Close()
	seen := make(chan string, 100)
	unsubscribe, then := b.SubscribeInLine(func(e Event) { seen <- e.Payload.(*LibraryProgressPayload).Phase })
	for round := range 20 {
		b.Publish(progress("before", 0))
		b.Publish(progress("before", 0))
		then(func() { seen <- "then" })
		b.Publish(progress("after", 0))
		want := []string{"before", "before", "then", "after"}
		for i, w := range want {
			select {
			case got := <-seen:
				if got != w {
					t.Fatalf("round %d, item %d: %s, want %s", round, i, got, w)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("round %d: item %d never came", round, i)
			}
		}
	}
	unsubscribe()
	ran := false
	then(func() { ran = true })
	if !ran {
		t.Error("then after unsubscribe did not run at once")
	}
	closed := NewBus()
	closed.Close()
	_, thenClosed := closed.SubscribeInLine(func(Event) {})
	ran = false
	thenClosed(func() { ran = true })
	if !ran {
		t.Error("then on a closed bus did not run at once")
	}
}
