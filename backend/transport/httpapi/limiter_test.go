package httpapi

import (
	"fmt"
	"testing"
	"time"
)

// fakeClock is a settable clock for the login limiter.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestLimiter() (*loginLimiter, *fakeClock) {
	clock := &fakeClock{t: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
	l := newLoginLimiter()
	l.now = clock.now
	return l, clock
}

func TestLoginKey(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"192.0.2.7:5000":           "192.0.2.7",
		"[::ffff:192.0.2.7]:5000":  "192.0.2.7",
		"[2001:db8:1:2::1]:5000":   "2001:db8:1:2::/64",
		"[2001:db8:1:2:ff::9]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:5000":   "2001:db8:1:3::/64",
		"[::1]:5000":               "::/64",
		"[fe80::1%eth0]:5000":      "fe80::/64",
		"not an address":           "not an address",
	}
	for remote, want := range tests {
		if got := loginKey(remote); got != want {
			t.Errorf("loginKey(%q) = %q, want %q", remote, got, want)
		}
	}
}

// An IPv6 client owns a whole /64: hopping addresses inside it does not
// buy more guesses, and an IPv4-mapped address is the IPv4 client.
func TestLoginLimiterSharesBudgetPerPrefix(t *testing.T) {
	t.Parallel()
	l, _ := newTestLimiter()
	for i := range loginBurst {
		if !l.allow(fmt.Sprintf("[2001:db8:1:2::%x]:5000", i+1)) {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	if l.allow("[2001:db8:1:2:abcd::1]:5000") {
		t.Error("another address in the same /64 got a fresh budget")
	}
	if !l.allow("[2001:db8:1:3::1]:5000") {
		t.Error("the neighbouring /64 was refused")
	}
	for range loginBurst {
		l.allow("192.0.2.7:1000")
	}
	if l.allow("[::ffff:192.0.2.7]:1000") {
		t.Error("the IPv4-mapped form of a spent IPv4 client got a fresh budget")
	}
}

// Limiters that have refilled are dropped about once a minute, so the map
// holds only clients seen recently, however many came and went.
func TestLoginLimiterPrunes(t *testing.T) {
	t.Parallel()
	l, clock := newTestLimiter()
	for i := range 100 {
		l.allow(fmt.Sprintf("198.51.100.%d:1", i))
	}
	if n := l.size(); n != 100 {
		t.Fatalf("size = %d", n)
	}
	// One client keeps guessing; the others went away.
	clock.advance(50 * time.Second)
	for range loginBurst {
		l.allow("192.0.2.1:1")
	}
	if n := l.size(); n != 101 {
		t.Fatalf("size = %d before a minute passed, want 101 (no prune yet)", n)
	}
	clock.advance(20 * time.Second)
	l.allow("192.0.2.2:1")
	if n := l.size(); n != 2 {
		t.Errorf("size = %d after a minute, want 2 (the spent client and the new one)", n)
	}
	// 20 s after spending its burst it has refilled one attempt, not five.
	allowed := 0
	for range loginBurst {
		if l.allow("192.0.2.1:1") {
			allowed++
		}
	}
	if allowed != 1 {
		t.Errorf("spent client got %d attempts 20 s later, want 1 (pruning must not reset it)", allowed)
	}
	// Pruning is opportunistic: without logins nothing runs, and the next
	// login after the idle spell clears everything that refilled.
	clock.advance(time.Hour)
	l.allow("192.0.2.3:1")
	if n := l.size(); n != 1 {
		t.Errorf("size = %d after an idle hour, want 1", n)
	}
}
