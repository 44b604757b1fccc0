package chats

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"hearth/backend/characters"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/search"
	"hearth/backend/store"
)

// chatRig is a chat service wired to search as the app wires them (its
// writes kick a started search.Indexer), with one chat whose greeting is
// removed, so message indexes are the order of the messages a test adds.
type chatRig struct {
	t      testing.TB
	s      *Service
	search *search.Service
	db     *store.Store
	chatID string
}

func newChatRig(t testing.TB) *chatRig {
	t.Helper()
	r := chatRigAt(t, filepath.Join(t.TempDir(), "hearth.db"))
	r.chatID = r.newChat("Search")
	if _, err := r.s.DeleteMessages(context.Background(), r.chatID, []int{0}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	return r
}

// chatRigAt opens (migrating) the database at path, media beside it. The
// Indexer is closed before the database when the test ends.
func chatRigAt(t testing.TB, path string) *chatRig {
	t.Helper()
	dir := filepath.Dir(path)
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := media.New(filepath.Join(dir, "media"))
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	t.Cleanup(func() { bus.Close(); db.Close() })
	idx := search.NewIndexer(db)
	s := New(db, bus, characters.New(db, bus, files, nil, time.Now), time.Now, Hooks{Index: idx})
	idx.Start()
	t.Cleanup(func() { idx.Close() })
	return &chatRig{t: t, s: s, search: search.New(db), db: db}
}

// newChat creates a chat (with its greeting, "Hi") of a new character.
func (r *chatRig) newChat(name string) string {
	r.t.Helper()
	ctx := context.Background()
	card, err := r.s.chars.(*characters.Service).Create(ctx, jsonx.Object{"name": jsonx.Raw(name), "first_mes": jsonx.Raw("Hi")}, characters.CreateOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	sum, err := r.s.Create(ctx, Owner{Avatar: card.Avatar}, CreateOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	return sum.ChatID
}

// user, bot and narrator build SillyTavern messages of each role.
func msgUser(mes string) map[string]any {
	return map[string]any{"name": "User", "is_user": true, "mes": mes}
}
func msgBot(mes string) map[string]any {
	return map[string]any{"name": "Ava", "is_user": false, "mes": mes}
}
func msgNarrator(mes string) map[string]any {
	return map[string]any{"name": "System", "is_user": false, "mes": mes, "extra": map[string]any{"type": "narrator"}}
}

func (r *chatRig) add(chatID string, msgs ...map[string]any) {
	r.t.Helper()
	raws := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		raws[i], _ = json.Marshal(m)
	}
	if _, err := r.s.AddMessages(context.Background(), chatID, raws, WriteOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

// expect checks the indexes a search of the rig's chat finds, sorted.
func (r *chatRig) expect(query string, opts search.Options, want ...int) {
	r.t.Helper()
	hits, err := r.search.Search(context.Background(), r.chatID, query, opts)
	if err != nil {
		r.t.Fatalf("search %q: %v", query, err)
	}
	got := []int{}
	for _, h := range hits {
		got = append(got, h.Index)
	}
	sort.Ints(got)
	if want == nil {
		want = []int{}
	}
	if !reflect.DeepEqual(got, want) {
		r.t.Errorf("search %q %+v found %v, want %v", query, opts, got, want)
	}
}

func (r *chatRig) ids() []string {
	r.t.Helper()
	msgs, err := r.s.Messages(context.Background(), r.chatID, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

var noOpts search.Options
