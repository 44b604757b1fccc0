package chats_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"hearth/backend/events"
)

// importJsonl imports text as a chat of the rig's character named name
// through chat.importJsonl.
func (r *rig) importJsonl(name, text string) (rigSummary, error) {
	var sum rigSummary
	out, err := r.try("chat.importJsonl", map[string]any{"avatar": r.avatar}, map[string]any{"fileName": name, "text": text})
	if err == nil {
		r.decode(out, &sum)
	}
	return sum, err
}

// mustImport is importJsonl that fails the test on error.
func (r *rig) mustImport(name, text string) rigSummary {
	r.tb.Helper()
	sum, err := r.importJsonl(name, text)
	if err != nil {
		r.tb.Fatalf("import %s: %v", name, err)
	}
	return sum
}

// exportJsonl exports a chat through chat.exportJsonl and returns its text,
// checking the file name.
func (r *rig) exportJsonl(chatID string) string {
	r.tb.Helper()
	var file struct {
		FileName string `json:"fileName"`
		Text     string `json:"text"`
	}
	r.decode(r.call("chat.exportJsonl", chatID), &file)
	var sum struct {
		FileName string `json:"fileName"`
	}
	r.decode(r.call("chat.get", chatID), &sum)
	if file.FileName != sum.FileName+".jsonl" {
		r.tb.Fatalf("export file name %q, want %q", file.FileName, sum.FileName+".jsonl")
	}
	return file.Text
}

// chatCount is how many chats the rig's character has.
func (r *rig) chatCount() int {
	r.tb.Helper()
	var list []json.RawMessage
	r.decode(r.call("chat.list", map[string]any{"avatar": r.avatar}), &list)
	return len(list)
}

// recorder collects the events published on the rig's bus.
type recorder struct {
	mu   sync.Mutex
	evs  []string
	then func(func())
}

func (r *rig) record() *recorder {
	rec := &recorder{}
	unsub, then := r.app.Bus.SubscribeInLine(func(e events.Event) {
		rec.mu.Lock()
		rec.evs = append(rec.evs, e.Type)
		rec.mu.Unlock()
	})
	rec.then = then
	r.tb.Cleanup(unsub)
	return rec
}

// types waits until everything published so far has reached the recorder
// and returns the event types seen.
func (rec *recorder) types() []string {
	delivered := make(chan struct{})
	rec.then(func() { close(delivered) })
	<-delivered
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.evs...)
}

// jsonLines splits JSONL text into decoded lines (blank lines skipped).
func jsonLines(tb testing.TB, text string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for i, line := range strings.Split(strings.TrimPrefix(text, "\uFEFF"), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			tb.Fatalf("line %d is not a JSON object: %v\n%s", i+1, err, line)
		}
		out = append(out, o)
	}
	return out
}

// jsonEqual reports whether a and b encode to the same JSON (map keys are
// sorted by encoding/json, so key order does not count).
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// checkSwipeInvariants asserts HOST-ABI §2's invariants on every exported
// message line.
func checkSwipeInvariants(tb testing.TB, msgs []map[string]any) {
	tb.Helper()
	for i, m := range msgs {
		swipes, _ := m["swipes"].([]any)
		info, _ := m["swipe_info"].([]any)
		id, ok := m["swipe_id"].(float64)
		if !ok || len(swipes) < 1 || int(id) < 0 || int(id) >= len(swipes) || m["mes"] != swipes[int(id)] || len(info) != len(swipes) {
			tb.Fatalf("message %d breaks the swipe invariants: %s", i, show(m))
		}
		if _, has := m["id"]; has {
			tb.Fatalf("message %d was exported with Hearth's id: %s", i, show(m))
		}
	}
}

// uniqueName returns a chat file name no other call in this process used.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s %d", prefix, chatSerial.Add(1))
}
