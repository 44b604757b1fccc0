package chats_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hearth/backend/app"
	"hearth/backend/events"
)

// TestConcurrentAddMessages runs 8 writers × 200 single-message
// chat.addMessages calls against one chat through the host router and
// checks that the chat ends with every message exactly once at contiguous
// indexes, that each call got its own revision, and that MESSAGE_SENT /
// MESSAGE_RECEIVED arrive in revision order carrying the call's index.
func TestConcurrentAddMessages(t *testing.T) {
	t.Parallel()
	const writers, perWriter = 8, 200
	r := openRig(t, t.TempDir())
	chatID := r.newChat("concurrency")
	initial := r.chat(chatID)
	if initial.MessageCount != 1 {
		t.Fatalf("new chat has %d messages, want the greeting only", initial.MessageCount)
	}

	type seen struct {
		Revision int64  `json:"revision"`
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Type     string `json:"-"`
		Message  struct {
			Mes string `json:"mes"`
		} `json:"stMessage"`
	}
	var mu sync.Mutex
	var got []seen
	var decodeErr error
	unsubscribe := r.app.Bus.Subscribe(func(e events.Event) {
		var at events.ChatRevision
		switch p := e.Payload.(type) {
		case *events.MessagePayload:
			at = p.ChatRevision
		case *events.MessageReceivedPayload:
			at = p.ChatRevision
		}
		if (e.Type != events.MessageSent && e.Type != events.MessageReceived) || at.ChatID != chatID {
			return
		}
		var s seen
		raw, err := json.Marshal(e.Payload)
		if err == nil {
			err = json.Unmarshal(raw, &s)
		}
		s.Type = e.Type
		mu.Lock()
		defer mu.Unlock()
		if err != nil && decodeErr == nil {
			decodeErr = fmt.Errorf("decode %s payload: %w", e.Type, err)
		}
		got = append(got, s)
	})
	defer unsubscribe()

	type call struct {
		writer, seq int
		mes         string
		index       int
	}
	calls := make([][]call, writers)
	errs := make(chan error, writers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range perWriter {
				mes := fmt.Sprintf("writer %d message %d", w, i)
				msg := map[string]any{"name": "Writer", "is_user": i%2 == 0, "mes": mes}
				out, err := r.try("chat.addMessages", chatID, msg)
				if err != nil {
					errs <- fmt.Errorf("writer %d call %d: %w", w, i, err)
					return
				}
				var index int
				if err := json.Unmarshal(out, &index); err != nil {
					errs <- fmt.Errorf("writer %d call %d: result %s is not an index", w, i, out)
					return
				}
				calls[w] = append(calls[w], call{writer: w, seq: i, mes: mes, index: index})
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// Indexes the calls returned: 1..1600 (0 is the greeting), each once,
	// increasing within each writer (its calls were sequential).
	byMes := map[string]int{}
	byIndex := map[int]string{}
	for w, list := range calls {
		for i, c := range list {
			if i > 0 && c.index <= list[i-1].index {
				t.Errorf("writer %d: call %d got index %d after %d", w, i, c.index, list[i-1].index)
			}
			if prev, dup := byIndex[c.index]; dup {
				t.Errorf("index %d returned for both %q and %q", c.index, prev, c.mes)
			}
			byIndex[c.index] = c.mes
			byMes[c.mes] = c.index
		}
	}
	total := writers * perWriter
	for i := 1; i <= total; i++ {
		if _, ok := byIndex[i]; !ok {
			t.Errorf("no call returned index %d", i)
		}
	}

	// The stored chat: greeting + every message once, at the index its call returned.
	msgs := r.stMessages(chatID)
	if len(msgs) != total+1 {
		t.Fatalf("chat has %d messages, want %d", len(msgs), total+1)
	}
	ids := map[string]bool{}
	for i, m := range msgs {
		if ids[m.ID] {
			t.Errorf("message id %s appears twice", m.ID)
		}
		ids[m.ID] = true
		if i == 0 {
			continue
		}
		if want, ok := byIndex[i]; !ok || m.Mes != want {
			t.Errorf("message %d is %q, want %q", i, m.Mes, want)
		}
	}
	if n := r.count(chatID); n != total+1 {
		t.Errorf("chat.count = %d, want %d", n, total+1)
	}
	final := r.chat(chatID)
	if final.Revision != initial.Revision+int64(total) {
		t.Errorf("final revision %d, want %d + %d", final.Revision, initial.Revision, total)
	}

	// Events: one per call, in strictly increasing revision order, each
	// carrying the index the call returned; the revisions are exactly the
	// ones the calls produced.
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= total || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if decodeErr != nil {
		t.Fatal(decodeErr)
	}
	if len(got) != total {
		t.Fatalf("got %d message events, want %d", len(got), total)
	}
	revOf := map[string]int64{}
	for i, e := range got {
		if want := initial.Revision + int64(i) + 1; e.Revision != want {
			t.Errorf("event %d has revision %d, want %d (strictly increasing, one per call)", i, e.Revision, want)
		}
		index, ok := byMes[e.Message.Mes]
		if !ok {
			t.Errorf("event %d is for unknown message %q", i, e.Message.Mes)
			continue
		}
		if e.Index != index {
			t.Errorf("event for %q has index %d, but the call returned %d", e.Message.Mes, e.Index, index)
		}
		if e.ID != msgs[index].ID {
			t.Errorf("event for index %d has id %s, stored message has %s", index, e.ID, msgs[index].ID)
		}
		wantType := events.MessageReceived
		if msgs[index].IsUser {
			wantType = events.MessageSent
		}
		if e.Type != wantType {
			t.Errorf("event for index %d is %s, want %s", index, e.Type, wantType)
		}
		if _, dup := revOf[e.Message.Mes]; dup {
			t.Errorf("two events for %q", e.Message.Mes)
		}
		revOf[e.Message.Mes] = e.Revision
	}
	// Each call's revision: later calls of one writer committed later.
	for w, list := range calls {
		for i := 1; i < len(list); i++ {
			if revOf[list[i].mes] <= revOf[list[i-1].mes] {
				t.Errorf("writer %d: call %d has revision %d, not after call %d's %d", w, i, revOf[list[i].mes], i-1, revOf[list[i-1].mes])
			}
		}
	}
}

// rig is one opened app with a character to own test chats.
type rig struct {
	tb     testing.TB
	app    *app.App
	avatar string
}

// chatSerial makes test chat file names unique within the process.
var chatSerial atomic.Int64

// with returns the rig reporting to tb (a fuzz iteration's *testing.T
// rather than the *testing.F that opened it).
func (r *rig) with(tb testing.TB) *rig { return &rig{tb: tb, app: r.app, avatar: r.avatar} }

// openRig opens the app on dir (closed at the end of tb) and creates the
// character Seraphina, whose greeting has one alternate.
func openRig(tb testing.TB, dir string) *rig {
	tb.Helper()
	a, err := app.Open(context.Background(), dir)
	if err != nil {
		tb.Fatalf("open app: %v", err)
	}
	tb.Cleanup(func() { a.Close() })
	r := &rig{tb: tb, app: a}
	var card struct {
		Avatar string `json:"avatar"`
	}
	r.decode(r.call("characters.create", map[string]any{
		"name": "Seraphina", "first_mes": "Hello {{user}}", "alternate_greetings": []string{"Welcome back, {{user}}."},
	}), &card)
	if card.Avatar == "" {
		tb.Fatal("characters.create returned no avatar")
	}
	r.avatar = card.Avatar
	return r
}

// try invokes method with args (each encoded as one positional argument).
func (r *rig) try(method string, args ...any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out, err := r.app.Router.Invoke(context.Background(), method, raw)
	return out, err
}

// call is try that fails the test on error.
func (r *rig) call(method string, args ...any) json.RawMessage {
	r.tb.Helper()
	out, err := r.try(method, args...)
	if err != nil {
		r.tb.Fatalf("%s: %v", method, err)
	}
	return out
}

func (r *rig) decode(raw json.RawMessage, dst any) {
	r.tb.Helper()
	if err := json.Unmarshal(raw, dst); err != nil {
		r.tb.Fatalf("decode %s: %v", raw, err)
	}
}

// newChat creates a chat of the rig's character with a unique file name.
func (r *rig) newChat(prefix string) string {
	r.tb.Helper()
	var sum rigSummary
	name := fmt.Sprintf("%s %d", prefix, chatSerial.Add(1))
	r.decode(r.call("chat.create", map[string]any{"avatar": r.avatar}, map[string]any{"fileName": name}), &sum)
	if sum.ChatID == "" {
		r.tb.Fatal("chat.create returned no chatId")
	}
	return sum.ChatID
}

type rigSummary struct {
	ChatID       string `json:"chatId"`
	MessageCount int    `json:"messageCount"`
	Revision     int64  `json:"revision"`
}

func (r *rig) chat(chatID string) rigSummary {
	r.tb.Helper()
	var s rigSummary
	r.decode(r.call("chat.get", chatID), &s)
	return s
}

func (r *rig) count(chatID string) int {
	r.tb.Helper()
	var n int
	r.decode(r.call("chat.count", chatID), &n)
	return n
}

// rigMessage is the part of a SillyTavern message these tests look at.
type rigMessage struct {
	ID      string   `json:"id"`
	Mes     string   `json:"mes"`
	IsUser  bool     `json:"is_user"`
	Swipes  []string `json:"swipes"`
	SwipeID int      `json:"swipe_id"`
}

func (r *rig) stMessages(chatID string) []rigMessage {
	r.tb.Helper()
	var out []rigMessage
	r.decode(r.call("chat.getStMessages", chatID), &out)
	return out
}

// sortedIDs lists a map's keys in order, for stable failure messages.
func sortedIDs[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
