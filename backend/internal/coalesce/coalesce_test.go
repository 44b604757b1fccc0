package coalesce

import (
	"sync"
	"testing"
	"time"
)

// TestCoalescer drives a coalescer with a hand-set clock: a delta after a
// quiet window goes out at once, deltas inside a window wait for Close
// (or the timer), and nothing is emitted after Close.
func TestCoalescer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	c := New(func(text, reasoning string) {
		mu.Lock()
		got = append(got, text+"|"+reasoning)
		mu.Unlock()
	})
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	c.Add("a", "")
	c.Add("b", "r")
	c.Add("c", "")
	mu.Lock()
	if len(got) != 1 || got[0] != "a|" {
		t.Fatalf("after the first delta: %q, want it out at once", got)
	}
	mu.Unlock()
	c.Close()
	c.Add("late", "")
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[1] != "bc|r" {
		t.Fatalf("after Close: %q, want the window's deltas in one batch and nothing later", got)
	}
}

// TestCoalescerTimerFlush checks that a batch goes out by itself when its
// window ends.
func TestCoalescerTimerFlush(t *testing.T) {
	t.Parallel()
	done := make(chan string, 4)
	c := New(func(text, _ string) { done <- text })
	c.Add("x", "")
	c.Add("y", "")
	if first := <-done; first != "x" {
		t.Fatalf("first batch %q", first)
	}
	select {
	case second := <-done:
		if second != "y" {
			t.Fatalf("second batch %q", second)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the window's batch never went out")
	}
	c.Close()
}
