package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
)

// messagesWriter adds messages (chat.addMessages, one to three a call)
// and edits them by index (chat.updateMessages) in chats of its own. Each
// message carries its key in extra.soak; a key's value is its text.
type messagesWriter struct {
	l     *Ledger
	chats []*msgChat
	seq   int
}

// msgChat is one chat the writer writes to.
type msgChat struct {
	id    string
	index map[string]int // message key → index, once known
	keys  []string       // keys with a known index, to edit
	// low is the lowest index a write may have touched since the last
	// check: the chat's length then, or an edited message's index.
	low int
}

// messagesChats is how many chats the writer spreads its messages over.
const messagesChats = 4

func newMessagesWriter() *messagesWriter { return &messagesWriter{l: NewLedger()} }

func (w *messagesWriter) name() string    { return "messages" }
func (w *messagesWriter) ledger() *Ledger { return w.l }

func (w *messagesWriter) setup(ctx context.Context, c *client) error {
	avatar, err := createCharacter(ctx, c, "Soak Messages")
	if err != nil {
		return err
	}
	for range messagesChats {
		id, err := createChat(ctx, c, avatar)
		if err != nil {
			return err
		}
		w.chats = append(w.chats, &msgChat{id: id, index: map[string]int{}, low: 1})
	}
	return nil
}

func (w *messagesWriter) run(ctx context.Context, c *client, rng *rand.Rand) {
	for ctx.Err() == nil {
		ch := w.chats[rng.IntN(len(w.chats))]
		var ok bool
		if len(ch.keys) > 0 && rng.IntN(10) < 4 {
			ok = w.edit(ctx, c, ch, rng)
		} else {
			ok = w.add(ctx, c, ch, rng)
		}
		if !ok {
			return
		}
	}
}

// add appends one to three messages in one call.
func (w *messagesWriter) add(ctx context.Context, c *client, ch *msgChat, rng *rand.Rand) bool {
	n := 1 + rng.IntN(3)
	msgs := make([]map[string]any, n)
	keys := make([]string, n)
	ops := make([]*Op, n)
	for i := range n {
		w.seq++
		keys[i] = fmt.Sprintf("msg-%d", w.seq)
		text := fmt.Sprintf("%s v0: %s", keys[i], words(rng, 6+rng.IntN(40)))
		msgs[i] = map[string]any{"is_user": rng.IntN(2) == 0, "name": "Soak", "mes": text, "extra": map[string]any{"soak": keys[i]}}
		ops[i] = w.l.Begin(keys[i], ch.id, Has(text))
	}
	var idx []int
	err := c.call(ctx, &idx, "chat.addMessages", ch.id, msgs)
	if !outcome(w.l, err, ops) {
		return !isNoAnswer(err)
	}
	if len(idx) != n {
		w.l.Note("chat.addMessages of %d messages answered %d indexes", n, len(idx))
		return true
	}
	for i, k := range keys {
		ch.index[k] = idx[i]
		ch.keys = append(ch.keys, k)
	}
	return true
}

// edit rewrites the text of one message whose index is known.
func (w *messagesWriter) edit(ctx context.Context, c *client, ch *msgChat, rng *rand.Rand) bool {
	key := ch.keys[rng.IntN(len(ch.keys))]
	i := ch.index[key]
	w.seq++
	text := fmt.Sprintf("%s v%d: %s", key, w.seq, words(rng, 4+rng.IntN(30)))
	op := w.l.Begin(key, ch.id, Has(text))
	ch.low = min(ch.low, i)
	err := c.call(ctx, nil, "chat.updateMessages", ch.id, map[string]any{"index": i, "patch": map[string]any{"mes": text}})
	if !outcome(w.l, err, []*Op{op}) {
		return !isNoAnswer(err)
	}
	return true
}

func (w *messagesWriter) verify(ctx context.Context, c *client, full bool) error {
	for _, ch := range w.chats {
		if !full && len(w.l.Keys(ch.id, true)) == 0 {
			continue
		}
		start := ch.low
		if full {
			start = 0
		}
		if err := checkMessages(ctx, c, w.l, ch, start, !full); err != nil {
			return err
		}
	}
	return nil
}

// checkMessages reads ch from start and checks its keyed messages against
// l (only those written since their last check when dirtyOnly): each key
// holds its text, no message holds a key nobody wrote, every message is
// whole. It learns the index of messages whose add landed unanswered.
func checkMessages(ctx context.Context, c *client, l *Ledger, ch *msgChat, start int, dirtyOnly bool) error {
	msgs, err := readMessages(ctx, c, ch.id, start)
	if err != nil {
		return err
	}
	found := map[string]string{}
	for i, m := range msgs {
		if !m.whole() {
			l.Half("chat %s message %d breaks the message invariants (swipe_id %d of %d swipes, %d swipe_info)",
				ch.id, start+i, m.SwipeID, len(m.Swipes), len(m.SwipeInfo))
		}
		k := m.soakKey()
		if k == "" {
			continue
		}
		if _, dup := found[k]; dup {
			l.Half("chat %s holds message %s twice", ch.id, k)
		}
		found[k] = m.Mes
		if _, known := ch.index[k]; !known {
			if l.Known(k) {
				ch.index[k] = start + i
				ch.keys = append(ch.keys, k)
			} else {
				l.Check(k, Has(m.Mes)) // a message nobody added
			}
		}
	}
	for _, k := range l.Keys(ch.id, dirtyOnly) {
		if i, known := ch.index[k]; known && i < start {
			return fmt.Errorf("bookkeeping: %s at index %d was written but the check reads from %d", k, i, start)
		}
		got := None
		if text, ok := found[k]; ok {
			got = Has(text)
		}
		l.Check(k, got)
	}
	ch.low = start + len(msgs)
	ch.keys = slices.DeleteFunc(ch.keys, func(k string) bool {
		if _, ok := found[k]; !ok && ch.index[k] >= start {
			delete(ch.index, k)
			return true
		}
		return false
	})
	return nil
}

// checkAsks checks the keyed user messages of a chat replies are written
// into (generation, agent runs) from start, as the messages writer checks
// its own, and returns the chat's messages from start for the replies'
// checks.
func checkAsks(ctx context.Context, c *client, l *Ledger, ch *msgChat, start int, full bool) ([]stMessage, error) {
	asks := &msgChat{id: ch.id, index: ch.index, keys: ch.keys, low: start}
	if err := checkMessages(ctx, c, l, asks, start, !full); err != nil {
		return nil, err
	}
	ch.keys = asks.keys
	return readMessages(ctx, c, ch.id, start)
}
