package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
)

// stateWriter writes chat state (state.setChatState with ifRevision,
// state.deleteChatState) and floor state (state.floorUpdate on a chosen
// floor, state.floorPatch) in chats of its own. A key is one namespace of
// one chat; its value is the namespace's value (for a floor state, the
// replayed state), as canonical JSON.
type stateWriter struct {
	l     *Ledger
	chats []string
	// rev is each chat-state key's revision, for ifRevision; -1 (or
	// missing) sends none.
	rev map[string]int64
	// floors is how many messages each chat has (commits go on them).
	floors int
	seq    int
}

// Namespaces the state writer uses.
var (
	chatNamespaces = []string{"soak-a", "soak-b"}
	floorNamespace = "soak-floor"
)

const stateChats = 2

func newStateWriter() *stateWriter {
	return &stateWriter{l: NewLedger(), rev: map[string]int64{}, floors: 6}
}

func (w *stateWriter) name() string    { return "state+floor state" }
func (w *stateWriter) ledger() *Ledger { return w.l }

func (w *stateWriter) setup(ctx context.Context, c *client) error {
	avatar, err := createCharacter(ctx, c, "Soak State")
	if err != nil {
		return err
	}
	for range stateChats {
		id, err := createChat(ctx, c, avatar)
		if err != nil {
			return err
		}
		msgs := make([]map[string]any, w.floors-1)
		for i := range msgs {
			msgs[i] = map[string]any{"is_user": i%2 == 0, "mes": fmt.Sprintf("floor %d", i+1)}
		}
		if err := c.call(ctx, nil, "chat.addMessages", id, msgs); err != nil {
			return fmt.Errorf("fill chat %s: %w", id, err)
		}
		w.chats = append(w.chats, id)
	}
	return nil
}

func chatStateKey(chat, ns string) string { return "cs/" + chat + "/" + ns }
func floorKey(chat string) string         { return "fs/" + chat + "/" + floorNamespace }

func (w *stateWriter) run(ctx context.Context, c *client, rng *rand.Rand) {
	for ctx.Err() == nil {
		chat := w.chats[rng.IntN(len(w.chats))]
		w.seq++
		var err error
		switch p := rng.IntN(100); {
		case p < 45:
			err = w.set(ctx, c, chat, chatNamespaces[rng.IntN(len(chatNamespaces))], rng)
		case p < 50:
			err = w.remove(ctx, c, chat, chatNamespaces[rng.IntN(len(chatNamespaces))])
		case p < 80:
			err = w.floorUpdate(ctx, c, chat, rng)
		default:
			err = w.floorPatch(ctx, c, chat)
		}
		if isNoAnswer(err) {
			return
		}
	}
}

// set writes a chat-state namespace, conditional on the revision last
// seen.
func (w *stateWriter) set(ctx context.Context, c *client, chat, ns string, rng *rand.Rand) error {
	key := chatStateKey(chat, ns)
	value := map[string]any{"n": w.seq, "note": words(rng, 3+rng.IntN(12))}
	op := w.l.Begin(key, chat, canonicalOf(value))
	args := []any{chat, ns, value}
	if r, ok := w.rev[key]; ok && r >= 0 {
		args = append(args, map[string]any{"ifRevision": r})
	}
	var res struct {
		Revision int64 `json:"revision"`
	}
	err := c.call(ctx, &res, "state.setChatState", args...)
	if outcome(w.l, err, []*Op{op}) {
		w.rev[key] = res.Revision
	}
	return err
}

// remove deletes a chat-state namespace.
func (w *stateWriter) remove(ctx context.Context, c *client, chat, ns string) error {
	key := chatStateKey(chat, ns)
	op := w.l.Begin(key, chat, None)
	err := c.call(ctx, nil, "state.deleteChatState", chat, ns)
	if outcome(w.l, err, []*Op{op}) {
		w.rev[key] = -1
	}
	return err
}

// floorState is the floor state the writer knows: its key's baseline.
func (w *stateWriter) floorState(chat string) map[string]any {
	cur := map[string]any{}
	if v := w.l.Baseline(floorKey(chat)); v.Present {
		_ = json.Unmarshal([]byte(v.Text), &cur)
	}
	return cur
}

// floorUpdate commits a next state on a random floor.
func (w *stateWriter) floorUpdate(ctx context.Context, c *client, chat string, rng *rand.Rand) error {
	floor := rng.IntN(w.floors)
	next := maps.Clone(w.floorState(chat))
	next[fmt.Sprintf("f%d", floor)] = w.seq
	op := w.l.Begin(floorKey(chat), chat, canonicalOf(next))
	err := c.call(ctx, nil, "state.floorUpdate", chat, floorNamespace, next, map[string]any{"floor": floor})
	outcome(w.l, err, []*Op{op})
	return err
}

// floorPatch commits RFC 6902 operations on the last floor.
func (w *stateWriter) floorPatch(ctx context.Context, c *client, chat string) error {
	next := maps.Clone(w.floorState(chat))
	path := fmt.Sprintf("p%d", w.seq%5)
	next[path] = w.seq
	op := w.l.Begin(floorKey(chat), chat, canonicalOf(next))
	ops := []map[string]any{{"op": "add", "path": "/" + path, "value": w.seq}}
	err := c.call(ctx, nil, "state.floorPatch", chat, floorNamespace, ops)
	outcome(w.l, err, []*Op{op})
	return err
}

func (w *stateWriter) verify(ctx context.Context, c *client, full bool) error {
	for _, chat := range w.l.Groups(!full) {
		for _, ns := range chatNamespaces {
			key := chatStateKey(chat, ns)
			if !w.l.Known(key) {
				continue
			}
			var st *struct {
				Value    json.RawMessage `json:"value"`
				Revision int64           `json:"revision"`
			}
			if err := c.call(ctx, &st, "state.getChatState", chat, ns); err != nil {
				return fmt.Errorf("read chat state %s of %s: %w", ns, chat, err)
			}
			got, rev := None, int64(-1)
			if st != nil {
				v, err := canonical(st.Value)
				if err != nil {
					return fmt.Errorf("chat state %s of %s: %w", ns, chat, err)
				}
				got, rev = v, st.Revision
			}
			w.l.Check(key, got)
			w.rev[key] = rev
		}
		if !w.l.Known(floorKey(chat)) {
			continue
		}
		var fs struct {
			Value json.RawMessage `json:"value"`
		}
		if err := c.call(ctx, &fs, "state.floorGet", chat, floorNamespace); err != nil {
			return fmt.Errorf("read floor state of %s: %w", chat, err)
		}
		got, err := canonical(fs.Value)
		if err != nil {
			return fmt.Errorf("floor state of %s: %w", chat, err)
		}
		if got == Has("{}") {
			// No commit on a shown swipe reads as {}: the same as none
			// for a writer that only writes shown swipes.
			got = None
		}
		w.l.Check(floorKey(chat), got)
	}
	return nil
}
