package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
)

// generateWriter asks for replies (generate.run, normal and swipe) from
// the scripted model in chats of its own, after a user message naming a
// task (chat.addMessages). A generation's key is its id; its value is
// the reply's text at the index and swipe generate.run answered. Every
// check also reads every reply: each must be whole (the scripted text to
// its end: a kill mid-stream must leave nothing), and a reply nobody was
// answered for must be the generation in flight at a kill, whose record
// must then not say it failed.
type generateWriter struct {
	l     *Ledger
	chats []*msgChat
	// where is each acknowledged generation's place: chat, index, swipe.
	where map[string]genPlace
	// inFlight maps a task to the key of the generate.run call for it
	// that got no answer.
	inFlight map[string]string
	// lastReply is, per chat, whether its last message is a reply an
	// answer told of (so a swipe has something to swipe).
	lastReply map[string]bool
	seq       int
}

// genPlace is where a generation's reply landed.
type genPlace struct {
	chat           string
	index, swipeID int
}

const generateChats = 2

// repliesOf is the ledger group of a chat's replies (its asks are in the
// chat's own).
func repliesOf(chat string) string { return "replies in " + chat }

func newGenerateWriter() *generateWriter {
	return &generateWriter{l: NewLedger(), where: map[string]genPlace{}, inFlight: map[string]string{}, lastReply: map[string]bool{}}
}

func (w *generateWriter) name() string    { return "generation commits" }
func (w *generateWriter) ledger() *Ledger { return w.l }

func (w *generateWriter) setup(ctx context.Context, c *client) error {
	avatar, err := createCharacter(ctx, c, "Soak Generate")
	if err != nil {
		return err
	}
	for range generateChats {
		id, err := createChat(ctx, c, avatar)
		if err != nil {
			return err
		}
		w.chats = append(w.chats, &msgChat{id: id, index: map[string]int{}, low: 1})
	}
	return nil
}

func (w *generateWriter) run(ctx context.Context, c *client, rng *rand.Rand) {
	for ctx.Err() == nil {
		ch := w.chats[rng.IntN(len(w.chats))]
		var err error
		if w.lastReply[ch.id] && rng.IntN(10) < 3 {
			err = w.generate(ctx, c, ch, "swipe", w.lastTask(ch))
		} else {
			err = w.ask(ctx, c, ch, rng)
		}
		if isNoAnswer(err) {
			return
		}
	}
}

// lastTask is the task of ch's last user message the writer added.
func (w *generateWriter) lastTask(ch *msgChat) string {
	best, task := -1, ""
	for k, i := range ch.index {
		if i > best {
			best, task = i, strings.TrimPrefix(k, "ask-")
		}
	}
	return "gen-task-" + task
}

// ask adds a user message naming a new task and generates a reply to it.
func (w *generateWriter) ask(ctx context.Context, c *client, ch *msgChat, rng *rand.Rand) error {
	w.seq++
	key := fmt.Sprintf("ask-%d", w.seq)
	task := fmt.Sprintf("gen-task-%d", w.seq)
	text := fmt.Sprintf("%s: %s?", task, words(rng, 4+rng.IntN(10)))
	op := w.l.Begin(key, ch.id, Has(text))
	var idx []int
	err := c.call(ctx, &idx, "chat.addMessages", ch.id, []any{map[string]any{"is_user": true, "name": "User", "mes": text, "extra": map[string]any{"soak": key}}})
	if !outcome(w.l, err, []*Op{op}) {
		return err
	}
	if len(idx) == 1 {
		ch.index[key] = idx[0]
		ch.keys = append(ch.keys, key)
	}
	w.lastReply[ch.id] = false
	return w.generate(ctx, c, ch, "normal", task)
}

// generate runs a generation of typ in ch and records where its reply
// landed.
func (w *generateWriter) generate(ctx context.Context, c *client, ch *msgChat, typ, task string) error {
	w.seq++
	flight := fmt.Sprintf("generate-call-%d", w.seq)
	op := w.l.Begin(flight, "calls", Has("landed"))
	var res struct {
		GenerationID string `json:"generationId"`
		Index        *int   `json:"index"`
		SwipeID      *int   `json:"swipeId"`
		Text         string `json:"text"`
	}
	err := c.call(ctx, &res, "generate.run", map[string]any{"chatId": ch.id, "type": typ})
	if err != nil {
		if !outcome(w.l, err, []*Op{op}) && isNoAnswer(err) {
			w.inFlight[task] = flight
			if typ == "swipe" {
				// A swipe lands on the chat's last message, which the
				// next check must read again: ch.low is past it once
				// checked.
				ch.low = max(0, ch.low-1)
			}
		}
		return err
	}
	op.Fail() // settled: recorded under the generation's own key
	if res.Index == nil || res.SwipeID == nil {
		w.l.Note("generate.run of %s in %s answered no place for its reply: %+v", typ, ch.id, res)
		return nil
	}
	key := "gen/" + res.GenerationID
	w.where[key] = genPlace{chat: ch.id, index: *res.Index, swipeID: *res.SwipeID}
	outcome(w.l, nil, []*Op{w.l.Begin(key, repliesOf(ch.id), Has(res.Text))})
	w.lastReply[ch.id] = true
	ch.low = min(ch.low, *res.Index)
	return nil
}

func (w *generateWriter) verify(ctx context.Context, c *client, full bool) error {
	for _, ch := range w.chats {
		start := ch.low
		if full {
			start = 0
		}
		if err := w.checkChat(ctx, c, ch, start, full); err != nil {
			return err
		}
	}
	for task, flight := range w.inFlight {
		w.l.Check(flight, None) // never landed
		delete(w.inFlight, task)
	}
	return nil
}

// checkChat checks ch's user messages and replies from start.
func (w *generateWriter) checkChat(ctx context.Context, c *client, ch *msgChat, start int, full bool) error {
	msgs, err := checkAsks(ctx, c, w.l, ch, start, full)
	if err != nil {
		return err
	}
	found := map[string]string{}
	for i, m := range msgs {
		index := start + i
		if m.IsUser || index == 0 {
			continue
		}
		for s, text := range m.Swipes {
			if !wholeReply(text, "") {
				w.l.Half("chat %s message %d swipe %d is not a whole reply: %q", ch.id, index, s, clip(text, 80))
			}
			if s >= len(m.SwipeInfo) {
				continue
			}
			id := m.SwipeInfo[s].Extra.Hearth.GenerationID
			key := "gen/" + id
			if id == "" {
				w.l.Half("chat %s message %d swipe %d is a reply without its generation id", ch.id, index, s)
				continue
			}
			if p, ok := w.where[key]; ok {
				if p.index == index && p.swipeID == s {
					found[key] = text
				}
				continue
			}
			if err := w.landed(ctx, c, ch, index, s, id, text); err != nil {
				return err
			}
			found[key] = text
		}
	}
	for _, key := range w.l.Keys(repliesOf(ch.id), !full) {
		p := w.where[key]
		got := None
		if text, ok := found[key]; ok {
			got = Has(text)
		}
		if w.l.Check(key, got) == Kept && !full {
			if err := w.checkRecord(ctx, c, key, p); err != nil {
				return err
			}
		}
	}
	ch.low = start + len(msgs)
	return nil
}

// landed settles a reply that no answer told of: the generation in flight
// at a kill for its task. Its record must not say it failed, or a client
// that asked generate.status would think nothing was written.
func (w *generateWriter) landed(ctx context.Context, c *client, ch *msgChat, index, swipe int, id, text string) error {
	key := "gen/" + id
	task := genTask.FindString(text)
	if flight, ok := w.inFlight[task]; ok {
		w.l.Check(flight, Has("landed"))
		delete(w.inFlight, task)
	} else {
		w.l.Check(key, Has("a reply nobody asked for"))
	}
	w.where[key] = genPlace{chat: ch.id, index: index, swipeID: swipe}
	w.l.Adopt(key, repliesOf(ch.id), Has(text))
	var rec struct {
		Status string `json:"status"`
		Error  *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := c.call(ctx, &rec, "generate.status", id); err != nil {
		return fmt.Errorf("status of generation %s: %w", id, err)
	}
	if rec.Status != "ended" {
		code := ""
		if rec.Error != nil {
			code = rec.Error.Code
		}
		w.l.Half("generation %s: its reply landed at %s message %d swipe %d, but its record says %s (%s)", id, ch.id, index, swipe, rec.Status, code)
	}
	return nil
}

// checkRecord checks that an acknowledged generation's record says it
// ended, where its reply is.
func (w *generateWriter) checkRecord(ctx context.Context, c *client, key string, p genPlace) error {
	id := strings.TrimPrefix(key, "gen/")
	var rec struct {
		Status  string `json:"status"`
		Index   *int   `json:"index"`
		SwipeID *int   `json:"swipeId"`
	}
	if err := c.call(ctx, &rec, "generate.status", id); err != nil {
		return fmt.Errorf("status of generation %s: %w", id, err)
	}
	if rec.Status != "ended" || rec.Index == nil || *rec.Index != p.index || rec.SwipeID == nil || *rec.SwipeID != p.swipeID {
		w.l.Half("generation %s: acknowledged at message %d swipe %d, its record says %s at %v/%v", id, p.index, p.swipeID, rec.Status, rec.Index, rec.SwipeID)
	}
	return nil
}
