package httpapi

import (
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

const (
	loginBurst = 5
	loginEvery = time.Minute / loginBurst
	// limiterPruneEvery is how often, at most, a login sweeps out the
	// limiters of clients that have gone quiet.
	limiterPruneEvery = time.Minute
	// limiterPruneAt also sweeps whenever the map reaches this size, so a
	// burst of new clients within a minute cannot grow it unchecked.
	limiterPruneAt = 1024
)

// loginLimiter gives every client a budget of login attempts (a burst of
// loginBurst, refilled one per loginEvery), so a password cannot be guessed
// at network speed. A client is an IPv4 address or an IPv6 /64: one
// household or host gets a /64 and can pick any address in it, so keying by
// the full IPv6 address would hand out 2^64 budgets. A limiter that has
// refilled holds nothing a fresh one would not, so it is dropped at the
// next sweep; the map then only holds clients seen within about a minute.
type loginLimiter struct {
	now func() time.Time

	mu        sync.Mutex
	limiters  map[string]*rate.Limiter
	lastPrune time.Time
}

func newLoginLimiter() *loginLimiter {
	return &loginLimiter{now: time.Now, limiters: map[string]*rate.Limiter{}}
}

// allow spends one login attempt of the budget of the client at
// remoteAddr (an http.Request's RemoteAddr).
func (l *loginLimiter) allow(remoteAddr string) bool {
	key := loginKey(remoteAddr)
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastPrune) >= limiterPruneEvery || len(l.limiters) >= limiterPruneAt {
		l.prune(now)
	}
	lim, ok := l.limiters[key]
	if !ok {
		lim = rate.NewLimiter(rate.Every(loginEvery), loginBurst)
		l.limiters[key] = lim
	}
	return lim.AllowN(now, 1)
}

// prune drops the limiters that have refilled; the caller holds l.mu.
func (l *loginLimiter) prune(now time.Time) {
	l.lastPrune = now
	for k, lim := range l.limiters {
		if lim.TokensAt(now) >= loginBurst {
			delete(l.limiters, k)
		}
	}
}

// size is the number of clients with a limiter.
func (l *loginLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.limiters)
}

// loginKey names the client a login attempt counts against: the IPv4
// address (IPv4-mapped IPv6 included), or the IPv6 /64. Forwarding headers
// are ignored on purpose: a client could set them to dodge the limit.
func loginKey(remoteAddr string) string {
	var addr netip.Addr
	if ap, err := netip.ParseAddrPort(remoteAddr); err == nil {
		addr = ap.Addr()
	} else if a, err := netip.ParseAddr(remoteAddr); err == nil {
		addr = a
	} else {
		return remoteAddr
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return addr.String()
	}
	p, err := addr.Prefix(64)
	if err != nil {
		return addr.String()
	}
	return p.String()
}
