package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"
)

// branchWriter grows source chats (chat.addMessages, state.setChatState)
// and branches them at random messages (chat.createBranch). A branch's
// value is what it must hold whole: its length, its last message, and the
// source's chat state at the branch point, copied in the same
// transaction. Every check also lists the source character's chats: a
// branch must be named in its source message's extra.branches and the
// other way round, or it is half made. A source that has grown long is
// left for a new one (with a character of its own, so a check lists only
// its branches).
type branchWriter struct {
	l       *Ledger
	sources []*branchSource
	seq     int
}

// branchSource is one source chat and its branches.
type branchSource struct {
	avatar string
	chat   *msgChat
	texts  []string          // the source's messages' texts by index
	known  map[string]string // branch chat id → its key
	// inFlight are the keys of branch calls that got no answer since the
	// last check: a branch found that nobody acknowledged is one of them.
	inFlight []string
	// touched is set by any write since the last check.
	touched bool
}

const (
	branchState = "soak-branch"
	// sourceLength is how long a source grows before the writer starts
	// another.
	sourceLength = 60
)

func newBranchWriter() *branchWriter { return &branchWriter{l: NewLedger()} }

func (w *branchWriter) name() string    { return "branches" }
func (w *branchWriter) ledger() *Ledger { return w.l }

func (s *branchSource) stateKey() string    { return "state/" + s.chat.id }
func (s *branchSource) stateGroup() string  { return "state of " + s.chat.id }
func (s *branchSource) branchGroup() string { return "branches of " + s.chat.id }

func (w *branchWriter) setup(ctx context.Context, c *client) error {
	return w.newSource(ctx, c)
}

// newSource makes a character and a source chat of it.
func (w *branchWriter) newSource(ctx context.Context, c *client) error {
	avatar, err := createCharacter(ctx, c, fmt.Sprintf("Soak Branches %d", len(w.sources)+1))
	if err != nil {
		return err
	}
	id, err := createChat(ctx, c, avatar)
	if err != nil {
		return err
	}
	s := &branchSource{avatar: avatar, chat: &msgChat{id: id, index: map[string]int{}}, known: map[string]string{}}
	msgs, err := readMessages(ctx, c, id, 0)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		s.texts = append(s.texts, m.Mes)
	}
	s.chat.low = len(msgs)
	w.sources = append(w.sources, s)
	return nil
}

func (w *branchWriter) run(ctx context.Context, c *client, rng *rand.Rand) {
	for ctx.Err() == nil {
		s := w.sources[len(w.sources)-1]
		if len(s.texts) >= sourceLength {
			if err := w.newSource(ctx, c); err != nil {
				return
			}
			continue
		}
		var err error
		switch p := rng.IntN(100); {
		case p < 40:
			err = w.add(ctx, c, s, rng)
		case p < 55:
			err = w.setState(ctx, c, s)
		default:
			err = w.branch(ctx, c, s, rng)
		}
		if isNoAnswer(err) {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(5+rng.IntN(20)) * time.Millisecond):
		}
	}
}

// add appends a message to the source.
func (w *branchWriter) add(ctx context.Context, c *client, s *branchSource, rng *rand.Rand) error {
	w.seq++
	s.touched = true
	key := fmt.Sprintf("src-%d", w.seq)
	text := fmt.Sprintf("%s: %s", key, words(rng, 5+rng.IntN(20)))
	op := w.l.Begin(key, s.chat.id, Has(text))
	var idx []int
	err := c.call(ctx, &idx, "chat.addMessages", s.chat.id, []any{map[string]any{"mes": text, "is_user": rng.IntN(2) == 0, "extra": map[string]any{"soak": key}}})
	if !outcome(w.l, err, []*Op{op}) {
		return err
	}
	if len(idx) == 1 && idx[0] == len(s.texts) {
		s.texts = append(s.texts, text)
		s.chat.index[key] = idx[0]
	} else {
		w.l.Note("chat.addMessages answered %v for a message at %d", idx, len(s.texts))
	}
	return nil
}

// setState writes the source's chat state, which every branch copies.
func (w *branchWriter) setState(ctx context.Context, c *client, s *branchSource) error {
	w.seq++
	s.touched = true
	value := map[string]any{"v": w.seq}
	op := w.l.Begin(s.stateKey(), s.stateGroup(), canonicalOf(value))
	err := c.call(ctx, nil, "state.setChatState", s.chat.id, branchState, value)
	outcome(w.l, err, []*Op{op})
	return err
}

// branchValue is what a branch at index holds: its length, its last
// message and its copy of the source's chat state.
func branchValue(index int, last string, state Value) Value {
	return Has(fmt.Sprintf("%d messages, last %q, state %s", index+1, last, state))
}

// branch branches the source at a random message.
func (w *branchWriter) branch(ctx context.Context, c *client, s *branchSource, rng *rand.Rand) error {
	w.seq++
	s.touched = true
	index := rng.IntN(len(s.texts))
	want := branchValue(index, s.texts[index], w.l.Baseline(s.stateKey()))
	// The branch's own key needs its id, which only the answer tells;
	// until then the call is an in-flight key of its own.
	flight := fmt.Sprintf("branch-call-%d", w.seq)
	op := w.l.Begin(flight, "calls", Has("landed"))
	var sum chatSummary
	err := c.call(ctx, &sum, "chat.createBranch", s.chat.id, index)
	if err == nil {
		op.Fail() // settled: the branch is recorded under its own key
		key := "branch/" + sum.ChatID
		s.known[sum.ChatID] = key
		outcome(w.l, nil, []*Op{w.l.Begin(key, s.branchGroup(), want)})
		return nil
	}
	if !outcome(w.l, err, []*Op{op}) && isNoAnswer(err) {
		s.inFlight = append(s.inFlight, flight)
	}
	return err
}

func (w *branchWriter) verify(ctx context.Context, c *client, full bool) error {
	for _, s := range w.sources {
		if !full && !s.touched {
			continue
		}
		if err := w.checkSource(ctx, c, s, full); err != nil {
			return err
		}
		s.touched = false
	}
	return nil
}

// checkSource checks a source, its state and its branches.
func (w *branchWriter) checkSource(ctx context.Context, c *client, s *branchSource, full bool) error {
	start := s.chat.low
	if full {
		start = 0
	}
	if err := checkMessages(ctx, c, w.l, s.chat, start, !full); err != nil {
		return err
	}
	msgs, err := readMessages(ctx, c, s.chat.id, 0)
	if err != nil {
		return err
	}
	s.texts = s.texts[:0]
	listed := map[string]int{} // branch file name → the source message naming it
	for i, m := range msgs {
		s.texts = append(s.texts, m.Mes)
		if list, ok := m.Extra["branches"].([]any); ok {
			for _, name := range list {
				if n, ok := name.(string); ok {
					listed[n] = i
				}
			}
		}
	}
	state, err := readBranchState(ctx, c, s.chat.id)
	if err != nil {
		return err
	}
	w.l.Check(s.stateKey(), state)

	chats, err := listChats(ctx, c, s.avatar)
	if err != nil {
		return err
	}
	byID := map[string]chatSummary{}
	for _, b := range chats {
		if b.Kind != "branch" {
			continue
		}
		byID[b.ChatID] = b
		at, ok := listed[b.FileName]
		switch {
		case b.ParentChatID == nil || *b.ParentChatID != s.chat.id || b.BranchPoint == nil:
			w.l.Half("branch %s (%s) does not name its source as its parent", b.ChatID, b.FileName)
		case !ok || at != *b.BranchPoint:
			w.l.Half("branch %s (%s) at message %d is not listed in that message's extra.branches", b.ChatID, b.FileName, *b.BranchPoint)
		case b.MessageCount != *b.BranchPoint+1:
			w.l.Half("branch %s (%s) at message %d holds %d messages", b.ChatID, b.FileName, *b.BranchPoint, b.MessageCount)
		}
		delete(listed, b.FileName)
		if _, known := s.known[b.ChatID]; known {
			continue
		}
		// A branch nobody acknowledged: the call in flight at a kill.
		key := "branch/" + b.ChatID
		if len(s.inFlight) == 0 {
			w.l.Check(key, Has("a branch nobody made"))
		} else {
			w.l.Check(s.inFlight[0], Has("landed"))
			s.inFlight = s.inFlight[1:]
		}
		got, err := branchHolds(ctx, c, b)
		if err != nil {
			return err
		}
		s.known[b.ChatID] = key
		w.l.Adopt(key, s.branchGroup(), got) // checked from now on as it is
	}
	for name, at := range listed {
		w.l.Half("source message %d lists branch %q, which does not exist", at, name)
	}
	for _, k := range s.inFlight {
		w.l.Check(k, None)
	}
	s.inFlight = nil

	for id, key := range s.known {
		if !full && !w.l.Dirty(key) {
			continue
		}
		got := None
		if b, ok := byID[id]; ok {
			if got, err = branchHolds(ctx, c, b); err != nil {
				return err
			}
		}
		w.l.Check(key, got)
	}
	s.chat.low = len(msgs)
	return nil
}

// branchHolds reads what branch b holds, in branchValue's form.
func branchHolds(ctx context.Context, c *client, b chatSummary) (Value, error) {
	if b.BranchPoint == nil {
		return Has("no branch point"), nil
	}
	msgs, err := readMessages(ctx, c, b.ChatID, *b.BranchPoint)
	if err != nil {
		return None, err
	}
	if len(msgs) != 1 {
		return Has(fmt.Sprintf("%d messages from the branch point", len(msgs))), nil
	}
	state, err := readBranchState(ctx, c, b.ChatID)
	if err != nil {
		return None, err
	}
	return branchValue(*b.BranchPoint, msgs[0].Mes, state), nil
}

// readBranchState reads a chat's copy of the branch writer's chat state.
func readBranchState(ctx context.Context, c *client, chat string) (Value, error) {
	var st *struct {
		Value json.RawMessage `json:"value"`
	}
	if err := c.call(ctx, &st, "state.getChatState", chat, branchState); err != nil {
		return None, fmt.Errorf("read the chat state of %s: %w", chat, err)
	}
	if st == nil {
		return None, nil
	}
	v, err := canonical(st.Value)
	if err != nil {
		return None, fmt.Errorf("chat state of %s: %w", chat, err)
	}
	return v, nil
}
