package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/characters"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/store"
)

func newService(t *testing.T) (*Service, *store.Store) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := media.New(filepath.Join(dir, "media"))
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	t.Cleanup(func() { bus.Close(); db.Close() })
	chars := characters.New(db, bus, files, nil, time.Now)
	return New(db, bus, chars, time.Now, Hooks{}), db
}

func newChat(t *testing.T, s *Service) string {
	t.Helper()
	ctx := context.Background()
	card, err := s.chars.(*characters.Service).Create(ctx, jsonx.Object{"name": jsonx.Raw("Ava"), "first_mes": jsonx.Raw("Hi")}, characters.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Create(ctx, Owner{Avatar: card.Avatar}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sum.ChatID
}

// document renders the chat as the { metadata, messages } document the
// journal's operations address.
func document(t *testing.T, s *Service, chatID string) []byte {
	t.Helper()
	ctx := context.Background()
	msgs, err := s.StMessagesJSON(ctx, chatID, nil)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := s.Metadata(ctx, chatID)
	if err != nil {
		t.Fatal(err)
	}
	metaJSON, _ := meta.MarshalJSON()
	return []byte(`{"metadata":` + string(metaJSON) + `,"messages":` + string(msgs) + `}`)
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

// TestJournalOpsReplayAndInvert checks, for every kind of write, that the
// journal entry's ops turn the document before into the document after, and
// its inverse turns it back. An undo or redo in place journals the
// operations it applied; one that moves messages journals a diff.
func TestJournalOpsReplayAndInvert(t *testing.T) {
	t.Parallel()
	s, db := newService(t)
	ctx := context.Background()
	id := newChat(t, s)
	raw := func(v string) json.RawMessage { return json.RawMessage(v) }
	steps := []struct {
		name string
		do   func() error
	}{
		{"add", func() error {
			_, err := s.AddMessages(ctx, id, []json.RawMessage{raw(`{"is_user":true,"mes":"a"}`), raw(`{"mes":"b","swipes":["b","c"]}`)}, WriteOptions{})
			return err
		}},
		{"update", func() error {
			return s.UpdateMessages(ctx, id, []Update{{Index: 2, Patch: jsonx.Object{"mes": raw(`"B"`), "extra": raw(`{"model":"x"}`)}}}, WriteOptions{})
		}},
		{"undo", func() error { _, err := s.Undo(ctx, id, WriteOptions{}); return err }},
		{"redo", func() error { _, err := s.Redo(ctx, id, WriteOptions{}); return err }},
		{"swipe", func() error {
			_, err := s.Swipe(ctx, id, 2, SwipeTarget{Direction: "right"}, WriteOptions{})
			return err
		}},
		{"deleteSwipe", func() error { _, _, err := s.DeleteSwipe(ctx, id, 2, 0, WriteOptions{}); return err }},
		{"metadata", func() error {
			_, err := s.SaveMetadata(ctx, id, jsonx.Object{"k": raw(`[1,2]`)}, WriteOptions{})
			return err
		}},
		{"hide", func() error {
			msgs, _ := s.Messages(ctx, id, nil)
			return s.SetMessagesHidden(ctx, id, []string{msgs[1].ID}, true)
		}},
		{"patch", func() error {
			_, err := s.Patch(ctx, id, []json.RawMessage{raw(`{"op":"move","from":"/messages/0","path":"/messages/2"}`)}, WriteOptions{})
			return err
		}},
		{"delete", func() error { _, err := s.DeleteMessages(ctx, id, []int{0, 2}, DeleteOptions{}); return err }},
		{"undo", func() error { _, err := s.Undo(ctx, id, WriteOptions{}); return err }},
	}
	for _, step := range steps {
		before := document(t, s, id)
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		after := document(t, s, id)
		var ops, inverse string
		if err := db.Reader().QueryRowContext(ctx, `SELECT j.ops, j.inverse FROM chat_journal j JOIN chats c ON c.id = j.chat_id
			WHERE c.uuid = ? AND j.revision = c.revision`, id).Scan(&ops, &inverse); err != nil {
			t.Fatalf("%s: journal row: %v", step.name, err)
		}
		apply := func(doc []byte, ops string) []byte {
			p, err := jsonpatch.DecodePatch([]byte(ops))
			if err != nil {
				t.Fatalf("%s: decode %s: %v", step.name, ops, err)
			}
			out, err := p.Apply(doc)
			if err != nil {
				t.Fatalf("%s: apply %s: %v", step.name, ops, err)
			}
			return out
		}
		if got := apply(before, ops); !sameJSON(t, got, after) {
			t.Errorf("%s: ops do not reproduce the change:\nops %s\ngot  %s\nwant %s", step.name, ops, got, after)
		}
		if got := apply(after, inverse); !sameJSON(t, got, before) {
			t.Errorf("%s: inverse does not undo the change:\ninverse %s", step.name, inverse)
		}
	}
}

// TestJournalKeepsNewestEntries: past journalKeep entries, pruning (every
// 50th revision) drops exactly the older ones; the newest always stay.
func TestJournalKeepsNewestEntries(t *testing.T) {
	t.Parallel()
	s, db := newService(t)
	ctx := context.Background()
	id := newChat(t, s)
	if _, err := s.AddMessages(ctx, id, []json.RawMessage{json.RawMessage(`{"mes":"a"}`)}, WriteOptions{Silent: true}); err != nil {
		t.Fatal(err)
	}
	var last int64
	for i := range journalKeep + 120 {
		mes, _ := json.Marshal(fmt.Sprint("edit ", i))
		if err := s.UpdateMessages(ctx, id, []Update{{Index: 0, Patch: jsonx.Object{"mes": mes}}}, WriteOptions{Silent: true}); err != nil {
			t.Fatal(err)
		}
	}
	var oldest, n int64
	if err := db.Reader().QueryRowContext(ctx, `SELECT MIN(revision), MAX(revision), COUNT(*) FROM chat_journal`).Scan(&oldest, &last, &n); err != nil {
		t.Fatal(err)
	}
	pruned := last - last%50 // the last revision that pruned
	if want := pruned - journalKeep + 1; oldest != want || n != last-want+1 {
		t.Errorf("journal holds revisions %d..%d (%d entries), want %d..%d", oldest, last, n, want, last)
	}
}

// TestJournalIsCapped: past journalMaxBytes, pruning drops the oldest
// entries until the rest fit.
func TestJournalIsCapped(t *testing.T) {
	t.Parallel()
	s, db := newService(t)
	ctx := context.Background()
	id := newChat(t, s)
	big := `{"mes":"` + strings.Repeat("x", 200_000) + `"}`
	for range 40 {
		if _, err := s.AddMessages(ctx, id, []json.RawMessage{json.RawMessage(big)}, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var total, n int
	if err := db.Reader().QueryRowContext(ctx, `SELECT SUM(size), COUNT(*) FROM chat_journal`).Scan(&total, &n); err != nil {
		t.Fatal(err)
	}
	// The entries are all the same size: the journal keeps as many as fit
	// under the cap, and not one fewer.
	if n == 0 || total > journalMaxBytes || total+total/n <= journalMaxBytes {
		t.Errorf("journal holds %d bytes in %d entries, cap %d", total, n, journalMaxBytes)
	}
}
