package state

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"hearth/backend/apperr"
)

// leases queues updateChatState rounds per namespace, first come first
// served. A round that never ends (its window closed mid-update) expires
// after ttl. Leases only order cooperating updaters: a plain setChatState
// never waits, and ifRevision still guards every write.
type leases struct {
	ttl   time.Duration
	mu    sync.Mutex
	slots map[leaseKey]*leaseSlot
}

type leaseKey struct{ chat, ns string }

type leaseSlot struct {
	turn   chan struct{} // holds a token while the lease is held
	holder string
	timer  *time.Timer
	users  int // holders and waiters; the slot goes when it drops to 0
}

func newLeases(ttl time.Duration) *leases {
	return &leases{ttl: ttl, slots: map[leaseKey]*leaseSlot{}}
}

// maxLeaseWait bounds how long a round waits for its turn.
const maxLeaseWait = 30 * time.Second

func (l *leases) acquire(ctx context.Context, chat, ns string) (string, error) {
	key := leaseKey{chat, ns}
	l.mu.Lock()
	slot := l.slots[key]
	if slot == nil {
		slot = &leaseSlot{turn: make(chan struct{}, 1)}
		l.slots[key] = slot
	}
	slot.users++
	l.mu.Unlock()

	wait := time.NewTimer(maxLeaseWait)
	defer wait.Stop()
	select {
	case slot.turn <- struct{}{}:
	case <-ctx.Done():
		l.leave(key, slot)
		return "", ctx.Err()
	case <-wait.C:
		l.leave(key, slot)
		return "", apperr.New(apperr.CodeStateConflict, "namespace %q stayed busy for %s", ns, maxLeaseWait)
	}
	token := newToken()
	l.mu.Lock()
	slot.holder = token
	slot.timer = time.AfterFunc(l.ttl, func() { l.release(chat, ns, token) })
	l.mu.Unlock()
	return token, nil
}

// tryAcquire takes the lease at once if no round holds it or waits for
// it (the uncontended case), and reports whether it did.
func (l *leases) tryAcquire(chat, ns string) (string, bool) {
	key := leaseKey{chat, ns}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.slots[key] != nil {
		return "", false
	}
	token := newToken()
	slot := &leaseSlot{turn: make(chan struct{}, 1), holder: token, users: 1}
	slot.turn <- struct{}{}
	slot.timer = time.AfterFunc(l.ttl, func() { l.release(chat, ns, token) })
	l.slots[key] = slot
	return token, true
}

// release ends the round holding token; a stale or empty token does nothing.
func (l *leases) release(chat, ns, token string) {
	if token == "" {
		return
	}
	key := leaseKey{chat, ns}
	l.mu.Lock()
	slot := l.slots[key]
	if slot == nil || slot.holder != token {
		l.mu.Unlock()
		return
	}
	slot.holder = ""
	slot.timer.Stop()
	l.mu.Unlock()
	<-slot.turn
	l.leave(key, slot)
}

func (l *leases) leave(key leaseKey, slot *leaseSlot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	slot.users--
	if slot.users == 0 && l.slots[key] == slot {
		delete(l.slots, key)
	}
}

func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
