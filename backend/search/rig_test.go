package search

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"hearth/backend/characters"
	"hearth/backend/chats"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/store"
)

// searchRig is a search service over a chat service wired as the app
// wires them (the chat service's writes kick a started Indexer), with one
// chat whose greeting is removed, so message indexes are the order of the
// messages a test adds.
type searchRig struct {
	t      testing.TB
	s      *Service
	chats  *chats.Service
	chars  *characters.Service
	idx    *Indexer
	db     *store.Store
	chatID string
}

func newSearchRig(t testing.TB) *searchRig {
	t.Helper()
	r := searchRigAt(t, filepath.Join(t.TempDir(), "hearth.db"))
	r.chatID = r.newChat("Search")
	if _, err := r.chats.DeleteMessages(context.Background(), r.chatID, []int{0}, chats.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	return r
}

// searchRigAt opens (migrating) the database at path, media beside it.
// The Indexer is closed before the database when the test ends.
func searchRigAt(t testing.TB, path string) *searchRig {
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
	chars := characters.New(db, bus, files, nil, time.Now)
	r := &searchRig{t: t, s: New(db), chars: chars, idx: NewIndexer(db), db: db}
	r.chats = chats.New(db, bus, chars, time.Now, chats.Hooks{Index: r})
	r.idx.Start()
	t.Cleanup(func() { r.idx.Close() })
	return r
}

// AfterCommit hands a write to the rig's Indexer of the moment
// (chats.Indexer), which a test may close and replace (holdIndexer,
// releaseIndexer).
func (r *searchRig) AfterCommit(ctx context.Context, tx *store.Tx) error {
	return r.idx.AfterCommit(ctx, tx)
}

// newChat creates a chat (with its greeting, "Hi") of a new character.
func (r *searchRig) newChat(name string) string {
	r.t.Helper()
	ctx := context.Background()
	card, err := r.chars.Create(ctx, jsonx.Object{"name": jsonx.Raw(name), "first_mes": jsonx.Raw("Hi")}, characters.CreateOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	sum, err := r.chats.Create(ctx, chats.Owner{Avatar: card.Avatar}, chats.CreateOptions{})
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

func (r *searchRig) add(chatID string, msgs ...map[string]any) {
	r.t.Helper()
	raws := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		raws[i], _ = json.Marshal(m)
	}
	if _, err := r.chats.AddMessages(context.Background(), chatID, raws, chats.WriteOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *searchRig) search(query string, opts Options) []Hit {
	r.t.Helper()
	hits, err := r.s.Search(context.Background(), r.chatID, query, opts)
	if err != nil {
		r.t.Fatalf("search %q: %v", query, err)
	}
	return hits
}

// found lists the indexes a search returns, sorted.
func (r *searchRig) found(query string, opts Options) []int {
	r.t.Helper()
	out := []int{}
	for _, h := range r.search(query, opts) {
		out = append(out, h.Index)
	}
	sort.Ints(out)
	return out
}

func (r *searchRig) expect(query string, opts Options, want ...int) {
	r.t.Helper()
	if want == nil {
		want = []int{}
	}
	if got := r.found(query, opts); !reflect.DeepEqual(got, want) {
		r.t.Errorf("search %q %+v found %v, want %v", query, opts, got, want)
	}
}

func (r *searchRig) ids() []string {
	r.t.Helper()
	msgs, err := r.chats.Messages(context.Background(), r.chatID, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

func optPtr[T any](v T) *T { return &v }

var noOpts Options
