package chats

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/store"
)

// searchRig is a chat service with one chat whose greeting is removed, so
// message indexes are the order of the messages a test adds.
type searchRig struct {
	t      testing.TB
	s      *Service
	db     *store.Store
	chatID string
}

func newSearchRig(t testing.TB) *searchRig {
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
	r := &searchRig{t: t, s: New(db, bus, characters.New(db, bus, files, time.Now), time.Now), db: db}
	r.chatID = r.newChat("Search")
	if _, err := r.s.DeleteMessages(ctx, r.chatID, []int{0}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	return r
}

// newChat creates a chat (with its greeting, "Hi") of a new character.
func (r *searchRig) newChat(name string) string {
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

func (r *searchRig) add(chatID string, msgs ...map[string]any) {
	r.t.Helper()
	raws := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		raws[i], _ = json.Marshal(m)
	}
	if _, err := r.s.AddMessages(context.Background(), chatID, raws, WriteOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *searchRig) search(query string, opts SearchOptions) []SearchHit {
	r.t.Helper()
	hits, err := r.s.Search(context.Background(), r.chatID, query, opts)
	if err != nil {
		r.t.Fatalf("search %q: %v", query, err)
	}
	return hits
}

// found lists the indexes a search returns, sorted.
func (r *searchRig) found(query string, opts SearchOptions) []int {
	r.t.Helper()
	out := []int{}
	for _, h := range r.search(query, opts) {
		out = append(out, h.Index)
	}
	sort.Ints(out)
	return out
}

func (r *searchRig) expect(query string, opts SearchOptions, want ...int) {
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

func optPtr[T any](v T) *T { return &v }

var noOpts SearchOptions

func TestSearchFindsSubstringsInAnyScript(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	r.add(r.chatID,
		msgUser("The lantern flickered in the corridor."),
		msgBot("私は東京に住んでいます。猫が好きです。"),
		msgBot("我喜欢在北京喝茶，猫和狗都很可爱。"),
		msgUser("Unbelievable weather today"),
		msgNarrator("The night grew cold."),
		msgBot("猫"),
	)
	for _, c := range []struct {
		q    string
		want []int
	}{
		{"lantern", []int{0}},
		{"LANTERN", []int{0}},
		{"believ", []int{3}},  // the middle of a word
		{"東京に住", []int{1}},    // 4 characters: the index
		{"東京", []int{1}},      // 2 characters: the vocabulary
		{"北京", []int{2}},      // Chinese, 2 characters
		{"京", []int{1, 2}},    // 1 character in two words
		{"猫", []int{1, 2, 5}}, // …and a message that is only that character
		{"喝茶", []int{2}},
		{"す。", []int{1}}, // at the end of a message
		{"ay", []int{3}}, // 2 ASCII characters at the end of a message
		{"d.", []int{4}},
		{"住んでいます", []int{1}},
		{"dragon", nil},
		{"猫犬", nil},
	} {
		r.expect(c.q, noOpts, c.want...)
	}
	hits := r.search("東京", noOpts)
	if len(hits) != 1 || hits[0].Role != "assistant" || hits[0].ID != r.ids()[1] || hits[0].Score <= 0 {
		t.Errorf("hit = %+v", hits)
	}
	if !strings.Contains(hits[0].Snippet, "東京") {
		t.Errorf("snippet %q lacks the hit", hits[0].Snippet)
	}
	if hits[0].ChatID != "" || hits[0].Avatar != nil {
		t.Errorf("a one-chat hit names its chat: %+v", hits[0])
	}
}

func TestSearchRanksBestFirst(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	filler := strings.Repeat("Nothing much happens here at all. ", 20)
	r.add(r.chatID,
		msgBot(filler+"A dragon."),
		msgBot("Dragon, dragon, dragon! The dragon flew."),
		msgBot("The dragon slept."),
		msgBot("猫。"+filler),
		msgBot("猫と猫と猫。"),
	)
	for _, c := range []struct {
		q     string
		first int
	}{{"dragon", 1}, {"猫", 4}} {
		hits := r.search(c.q, noOpts)
		if len(hits) < 2 || hits[0].Index != c.first {
			t.Fatalf("search %q ranked %+v, want %d first", c.q, hits, c.first)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Errorf("search %q: scores not descending: %+v", c.q, hits)
			}
		}
	}
	if hits := r.search("dragon", SearchOptions{Limit: optPtr(2)}); len(hits) != 2 || hits[0].Index != 1 {
		t.Errorf("limit 2 gave %+v", hits)
	}
}

func TestSearchHiddenRoleAndRange(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	for i := 0; i < 10; i++ {
		switch i % 3 {
		case 0:
			r.add(r.chatID, msgUser("echo from the user 東京"))
		case 1:
			r.add(r.chatID, msgBot("echo from the bot 東京"))
		default:
			r.add(r.chatID, msgNarrator("echo from the narrator 東京"))
		}
	}
	r.expect("echo", SearchOptions{Role: optPtr("user")}, 0, 3, 6, 9)
	r.expect("echo", SearchOptions{Role: optPtr("assistant")}, 1, 4, 7)
	r.expect("京", SearchOptions{Role: optPtr("system")}, 2, 5, 8)
	r.expect("echo", SearchOptions{Start: optPtr(3), End: optPtr(6)}, 3, 4, 5)
	r.expect("東京", SearchOptions{Start: optPtr(8)}, 8, 9)
	r.expect("東京", SearchOptions{End: optPtr(2)}, 0, 1)
	r.expect("echo", SearchOptions{Start: optPtr(4), End: optPtr(4)})
	r.expect("echo", SearchOptions{Start: optPtr(50)})

	ids := r.ids()
	if err := r.s.SetMessagesHidden(context.Background(), r.chatID, []string{ids[1], ids[3]}, true); err != nil {
		t.Fatal(err)
	}
	r.expect("echo", noOpts, 0, 2, 4, 5, 6, 7, 8, 9)
	r.expect("東京", noOpts, 0, 2, 4, 5, 6, 7, 8, 9)
	r.expect("echo", SearchOptions{IncludeHidden: true}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	r.expect("京", SearchOptions{IncludeHidden: true, Role: optPtr("user"), End: optPtr(5)}, 0, 3)
	if err := r.s.SetMessagesHidden(context.Background(), r.chatID, []string{ids[1]}, false); err != nil {
		t.Fatal(err)
	}
	r.expect("echo", SearchOptions{End: optPtr(4)}, 0, 1, 2)
}

func TestSearchFollowsEditsSwipesAndDeletes(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("alpha one"), msgBot("bravo two 東京"), msgUser("charlie three"), msgBot("delta four"), msgUser("echo five"))
	ids := r.ids()

	// Index-based edit.
	if err := r.s.UpdateMessages(ctx, r.chatID, []Update{{Index: 0, Patch: jsonx.Object{"mes": jsonx.Raw("alpha dragons")}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("one", noOpts)
	r.expect("dragons", noOpts, 0)

	// A new selected swipe replaces the text; navigating back restores it.
	if _, err := r.s.AddSwipe(ctx, r.chatID, 1, "a zebra swipe", true, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("zebra", noOpts, 1)
	r.expect("東京", noOpts)
	if _, err := r.s.Swipe(ctx, r.chatID, 1, SwipeTarget{To: optPtr(0)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("zebra", noOpts)
	r.expect("東京", noOpts, 1)
	if _, err := r.s.Swipe(ctx, r.chatID, 1, SwipeTarget{To: optPtr(1)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.s.DeleteSwipe(ctx, r.chatID, 1, 1, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("zebra", noOpts)
	r.expect("東京", noOpts, 1)

	// Id-based edit.
	if err := r.s.UpdateMessage(ctx, r.chatID, ids[3], jsonx.Object{"content": jsonx.Raw("delta walrus")}); err != nil {
		t.Fatal(err)
	}
	r.expect("walrus", noOpts, 3)

	// A middle delete renumbers: hits carry the current index, same id.
	if _, err := r.s.DeleteMessages(ctx, r.chatID, []int{0}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("dragons", noOpts)
	hits := r.search("walrus", noOpts)
	if len(hits) != 1 || hits[0].Index != 2 || hits[0].ID != ids[3] {
		t.Errorf("after the middle delete: %+v, want index 2 id %s", hits, ids[3])
	}
	r.expect("five", noOpts, 3)
	if err := r.s.DeleteMessage(ctx, r.chatID, ids[2]); err != nil {
		t.Fatal(err)
	}
	r.expect("charlie", noOpts)
	r.expect("five", noOpts, 2)

	// A whole-document patch that reorders messages.
	msgs, err := r.s.StMessagesJSON(ctx, r.chatID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(msgs, &list); err != nil {
		t.Fatal(err)
	}
	reversed, _ := json.Marshal([]json.RawMessage{list[2], list[1], list[0]})
	op, _ := json.Marshal(map[string]any{"op": "replace", "path": "/messages", "value": json.RawMessage(reversed)})
	if _, err := r.s.Patch(ctx, r.chatID, []json.RawMessage{op}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("five", noOpts, 0)
	r.expect("東京", noOpts, 2)
	r.checkIndexInSync()
}

// checkIndexInSync asserts that every message has exactly its chunk, with
// the role and hidden flag of the message, that nothing is queued, and that
// the full-text index holds exactly the chunks' keys.
func (r *searchRig) checkIndexInSync() {
	r.t.Helper()
	ctx := context.Background()
	if err := r.s.flushChunks(ctx, 0); err != nil {
		r.t.Fatal(err)
	}
	q := r.db.Reader()
	var pending, orphans, missing, wrong int
	if err := q.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM chunks_pending) + (SELECT count(*) FROM chunks_unindexed),
		(SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = c.message_id)),
		(SELECT count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.message_id = m.id)),
		(SELECT count(*) FROM chunks c JOIN chunk_source s USING (message_id)
			WHERE c.body IS NOT s.body OR c.role IS NOT s.role OR c.hidden IS NOT s.hidden OR c.chat_id IS NOT s.chat_id)`).
		Scan(&pending, &orphans, &missing, &wrong); err != nil {
		r.t.Fatal(err)
	}
	if pending+orphans+missing+wrong != 0 {
		r.t.Errorf("chunks out of sync: %d queued, %d orphans, %d missing, %d stale", pending, orphans, missing, wrong)
	}
	keys := func(query string) []int64 {
		rows, err := q.QueryContext(ctx, query)
		if err != nil {
			r.t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var k int64
			if err := rows.Scan(&k); err != nil {
				r.t.Fatal(err)
			}
			out = append(out, k)
		}
		return out
	}
	indexed := keys(`SELECT rowid FROM chunks_fts ORDER BY rowid`)
	want := keys(`SELECT (chat_id << 37) | message_id AS k FROM chunks ORDER BY k`)
	if !reflect.DeepEqual(indexed, want) {
		r.t.Errorf("index holds rows %v, chunks are %v", indexed, want)
	}
	// Role agrees with the Go rule the message views use.
	st, err := r.s.StMessages(ctx, r.chatID, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, m := range st {
		var role string
		if err := q.QueryRowContext(ctx, `SELECT c.role FROM chunks c JOIN messages m ON m.id = c.message_id WHERE m.uuid = ?`, m.ID).Scan(&role); err != nil {
			r.t.Fatal(err)
		}
		if role != roleOf(m) {
			r.t.Errorf("message %s: chunk role %s, message role %s", m.ID, role, roleOf(m))
		}
	}
}

func TestSearchSkipChunkRebuild(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgBot("old words here"), msgUser("another message"))
	ids := r.ids()
	chunkOf := func(id string) (body string, queued bool) {
		t.Helper()
		if err := r.db.Reader().QueryRowContext(ctx, `SELECT c.body, EXISTS (SELECT 1 FROM chunks_pending p WHERE p.message_id = m.id)
			FROM messages m JOIN chunks c ON c.message_id = m.id WHERE m.uuid = ?`, id).Scan(&body, &queued); err != nil {
			t.Fatal(err)
		}
		return body, queued
	}
	skip := func(text string) {
		t.Helper()
		if err := r.s.UpdateMessage(ctx, r.chatID, ids[0], jsonx.Object{"content": jsonx.Raw(text), "skipChunkRebuild": jsonx.Raw(true)}); err != nil {
			t.Fatal(err)
		}
	}

	// A skipping write leaves the chunk as it was and queues it…
	skip("streaming partial walrus")
	if body, queued := chunkOf(ids[0]); body != "old words here" || !queued {
		t.Fatalf("after a skipping write: chunk %q, queued %v", body, queued)
	}
	// …and a search of the chat rebuilds it first.
	r.expect("walrus", noOpts, 0)
	r.expect("old words", noOpts)
	if body, queued := chunkOf(ids[0]); body != "streaming partial walrus" || queued {
		t.Fatalf("after the search: chunk %q, queued %v", body, queued)
	}

	// The next write of the chat that does not skip rebuilds it too, even
	// when it touches another message.
	skip("streaming complete walrus tusk")
	if err := r.s.UpdateMessage(ctx, r.chatID, ids[1], jsonx.Object{"content": jsonx.Raw("edited message")}); err != nil {
		t.Fatal(err)
	}
	if body, queued := chunkOf(ids[0]); body != "streaming complete walrus tusk" || queued {
		t.Fatalf("after a later write: chunk %q, queued %v", body, queued)
	}

	// A search across all chats also catches up first.
	skip("final narwhal")
	hits, err := r.s.SearchAll(ctx, "narwhal", noOpts)
	if err != nil || len(hits) != 1 || hits[0].ID != ids[0] {
		t.Fatalf("search all: %+v, %v", hits, err)
	}
	r.checkIndexInSync()
}

func TestSearchOperatorsAreLiteral(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	texts := []string{
		`she said "hi" twice`,
		`a*b is a product`,
		`cats AND dogs`,
		`call NEAR(x, y) later`,
		`a well-known fact`,
		`col:umn and {braces}`,
		`caret ^start and back\slash`,
		`plain words only`,
	}
	for _, s := range texts {
		r.add(r.chatID, msgBot(s))
	}
	for _, c := range []struct {
		q    string
		want []int
	}{
		{`"hi"`, []int{0}},
		{`"`, []int{0}},
		{`"hi`, []int{0}},
		{`a*b`, []int{1}},
		{`*`, []int{1}},
		{`AND`, []int{2, 5, 6}}, // a substring, case-insensitive: "and" in three messages
		{`NEAR(`, []int{3}},
		{`NEAR(x, y)`, []int{3}},
		{`(`, []int{3}},
		{`-known`, []int{4}},
		{`-`, []int{4}},
		{`col:umn`, []int{5}},
		{`:`, []int{5}},
		{`{braces}`, []int{5}},
		{`^start`, []int{6}},
		{`\`, []int{6}},
		{`NOT`, nil},
		{`OR`, []int{7}}, // "words"
		{`""`, nil},
		{`''`, nil},
	} {
		r.expect(c.q, noOpts, c.want...)
	}
}

func TestSearchAcrossChats(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	other := r.newChat("Other")
	r.add(r.chatID, msgUser("The lantern is lit"), msgBot("no light here"))
	r.add(other, msgBot("another lantern, 東京の夜"))
	hits, err := r.s.SearchAll(ctx, "lantern", noOpts)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("hits = %+v", hits)
	}
	chats := map[string]int{}
	for _, h := range hits {
		chats[h.ChatID] = h.Index
		if h.FileName == "" || h.Avatar == nil || *h.Avatar == "" || h.GroupID != nil {
			t.Errorf("hit does not name its chat: %+v", h)
		}
	}
	if chats[r.chatID] != 0 || chats[other] != 1 {
		t.Errorf("hits by chat = %v", chats)
	}
	// The other chat's greeting was never written by a chat write: its
	// chunk comes from the queue.
	greet, err := r.s.SearchAll(ctx, "Hi", noOpts)
	if err != nil || len(greet) != 1 || greet[0].ChatID != other || greet[0].Index != 0 {
		t.Errorf("greeting: %+v, %v", greet, err)
	}
	if hits, _ := r.s.SearchAll(ctx, "東京", noOpts); len(hits) != 1 || hits[0].ChatID != other {
		t.Errorf("2-character search of all chats: %+v", hits)
	}
	if hits, _ := r.s.Search(ctx, r.chatID, "東京", noOpts); len(hits) != 0 {
		t.Errorf("2-character search of one chat found another chat's message: %+v", hits)
	}
	if hits, _ := r.s.Search(ctx, r.chatID, "lantern", noOpts); len(hits) != 1 || hits[0].Index != 0 {
		t.Errorf("one-chat search: %+v", hits)
	}

	// Deleting a chat takes its chunks out of the index.
	if err := r.s.Delete(ctx, other); err != nil {
		t.Fatal(err)
	}
	if hits, _ := r.s.SearchAll(ctx, "lantern", noOpts); len(hits) != 1 || hits[0].ChatID != r.chatID {
		t.Errorf("after deleting a chat: %+v", hits)
	}
	if hits, _ := r.s.SearchAll(ctx, "東京", noOpts); len(hits) != 0 {
		t.Errorf("after deleting a chat, 2 characters: %+v", hits)
	}
	r.checkIndexInSync()
}

func TestSearchFindsBranchCopies(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("first 東京"), msgBot("second kestrel"), msgUser("third kestrel"))
	b, err := r.s.CreateBranch(ctx, r.chatID, 1, BranchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := r.s.Search(ctx, b.ChatID, "kestrel", noOpts)
	if err != nil || len(hits) != 1 || hits[0].Index != 1 {
		t.Fatalf("branch search: %+v, %v", hits, err)
	}
	if all, _ := r.s.SearchAll(ctx, "東京", noOpts); len(all) != 2 {
		t.Errorf("search all after branching: %+v", all)
	}
	r.checkIndexInSync()
}

func TestSearchValidation(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("hello"))
	long := strings.Repeat("あ", searchMaxQuery+1)
	for _, c := range []struct {
		name  string
		query string
		opts  SearchOptions
		code  string
	}{
		{"empty", "", noOpts, apperr.CodeInvalidArgument},
		{"spaces", " \t\n ", noOpts, apperr.CodeInvalidArgument},
		{"only padding characters", "\ufdd0\x00", noOpts, apperr.CodeInvalidArgument},
		{"too long", long, noOpts, apperr.CodeInvalidArgument},
		{"limit 0", "hello", SearchOptions{Limit: optPtr(0)}, apperr.CodeInvalidArgument},
		{"limit 201", "hello", SearchOptions{Limit: optPtr(201)}, apperr.CodeInvalidArgument},
		{"role", "hello", SearchOptions{Role: optPtr("bot")}, apperr.CodeInvalidArgument},
		{"empty role", "hello", SearchOptions{Role: optPtr("")}, apperr.CodeInvalidArgument},
		{"negative start", "hello", SearchOptions{Start: optPtr(-1)}, apperr.CodeInvalidArgument},
		{"negative end", "hello", SearchOptions{End: optPtr(-1)}, apperr.CodeInvalidArgument},
		{"start after end", "hello", SearchOptions{Start: optPtr(3), End: optPtr(2)}, apperr.CodeInvalidArgument},
	} {
		if _, err := r.s.Search(ctx, r.chatID, c.query, c.opts); apperr.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	if _, err := r.s.Search(ctx, "no-such-chat", "hello", noOpts); apperr.CodeOf(err) != apperr.CodeChatNotFound {
		t.Errorf("unknown chat: %v", err)
	}
	if _, err := r.s.SearchAll(ctx, "hello", SearchOptions{Start: optPtr(0)}); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
		t.Errorf("start without a chat: %v", err)
	}
	ok := strings.Repeat("あ", searchMaxQuery)
	if _, err := r.s.Search(ctx, r.chatID, " "+ok+" ", SearchOptions{Limit: optPtr(200)}); err != nil {
		t.Errorf("a query of the longest length: %v", err)
	}
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 60)
	for _, c := range []struct {
		name, body, query string
		check             func(s string) bool
	}{
		{"short body whole", "a cat\n\nsat", "cat", func(s string) bool { return s == "a cat sat" }},
		{"hit in the middle", long + "東京タワー" + long, "東京", func(s string) bool {
			return strings.HasPrefix(s, "…") && strings.HasSuffix(s, "…") && strings.Contains(s, "東京タワー") &&
				utf8.RuneCountInString(s) <= snippetRunes+2
		}},
		{"hit at the start", "Lantern " + long, "lantern", func(s string) bool {
			return strings.HasPrefix(s, "Lantern") && strings.HasSuffix(s, "…")
		}},
		{"hit at the end", long + "the end", "end", func(s string) bool {
			return strings.HasPrefix(s, "…") && strings.HasSuffix(s, "the end")
		}},
		{"emoji and combining marks stay whole", strings.Repeat("😀", 80) + "é" + strings.Repeat("😀", 80), "é", func(s string) bool {
			return utf8.ValidString(s) && strings.Contains(s, "é")
		}},
		{"no hit", long, "zzz", func(s string) bool { return strings.HasPrefix(s, "word") && strings.HasSuffix(s, "…") }},
		{"long hit", long + strings.Repeat("x", 300), strings.Repeat("x", 150), func(s string) bool {
			return strings.HasPrefix(s, "…x") && utf8.RuneCountInString(s) <= snippetRunes+2
		}},
	} {
		got := snippet(c.body, newFoldedMatcher(foldString(c.query)))
		if !c.check(got) {
			t.Errorf("%s: snippet %q", c.name, got)
		}
	}
}

// TestMigrationBackfills undoes migration 0003 on a database holding
// messages (as if it had been made before search existed), runs the
// migration's own SQL again, and checks that it indexed every message
// itself, with nothing left for a search to catch up on.
func TestMigrationBackfills(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "hearth.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := media.New(filepath.Join(dir, "media"))
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	defer bus.Close()
	s := New(db, bus, characters.New(db, bus, files, time.Now), time.Now)
	r := &searchRig{t: t, s: s, db: db, chatID: newChat(t, s)}
	r.add(r.chatID, msgUser("an upgraded lantern"), msgNarrator("東京"))
	if err := s.SetMessagesHidden(ctx, r.chatID, r.ids()[2:3], true); err != nil {
		t.Fatal(err)
	}
	db.Close()

	migration, err := os.ReadFile(filepath.Join("..", "store", "migrations", "0003_search.sql"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(ON)")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP TRIGGER message_added`, `DROP TRIGGER message_body_changed`, `DROP TRIGGER message_swipe_added`,
		`DROP TRIGGER message_swipe_changed`, `DROP TABLE chunks_terms`, `DROP TABLE chunks_fts`,
		`DROP TABLE chunks`, `DROP TABLE chunks_pending`, `DROP TABLE chunks_unindexed`, `DROP VIEW chunk_source`, string(migration),
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	raw.Close()

	db, err = store.Open(ctx, path, store.Options{BackupDir: filepath.Join(dir, "backups")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r.s, r.db = New(db, bus, characters.New(db, bus, files, time.Now), time.Now), db
	var chunks, pending int
	if err := db.Reader().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM chunks_pending) + (SELECT count(*) FROM chunks_unindexed)`).Scan(&chunks, &pending); err != nil {
		t.Fatal(err)
	}
	if chunks != 3 || pending != 0 {
		t.Fatalf("after the upgrade: %d chunks, %d queued; want 3, 0", chunks, pending)
	}
	r.expect("lantern", noOpts, 1)
	r.expect("東京", noOpts)
	hits := r.search("東京", SearchOptions{IncludeHidden: true})
	if len(hits) != 1 || hits[0].Role != "system" {
		t.Errorf("hidden narrator after the upgrade: %+v", hits)
	}
	r.checkIndexInSync()
}

// TestSearchRowIDReuse deletes the newest message and adds another, which
// SQLite gives the same row id, hence the same index key, before anything
// drains the index queue: the old text must not answer for the new message.
func TestSearchRowIDReuse(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("first words"), msgBot("old okapi text 東京"))
	rowID := func() int64 {
		var id int64
		if err := r.db.Reader().QueryRowContext(ctx, `SELECT max(id) FROM messages`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	r.expect("okapi", noOpts, 1)
	before := rowID()
	if _, err := r.s.DeleteMessages(ctx, r.chatID, []int{1}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.add(r.chatID, msgBot("new zebra text"))
	if rowID() != before {
		t.Skipf("SQLite did not reuse row id %d", before)
	}
	r.expect("okapi", noOpts)
	r.expect("東京", noOpts)
	r.expect("zebra", noOpts, 1)
	r.checkIndexInSync()
}

// TestIndexCatchesUpInBackground checks that a write's index work is done
// without any search asking for it.
func TestIndexCatchesUpInBackground(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("indexed by the background worker"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		var queued bool
		if err := r.db.Reader().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM chunks_unindexed)`).Scan(&queued); err != nil {
			t.Fatal(err)
		}
		if !queued {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the index queue was not worked through within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var n int
	if err := r.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '"background"'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("index rows for the new message: %d, %v", n, err)
	}
}

// TestSearchFollowsUndo checks that undo and redo, writes of their own,
// bring the chunks along like any other write.
func TestSearchFollowsUndo(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("the first draft"))
	if err := r.s.UpdateMessages(ctx, r.chatID, []Update{{Index: 0, Patch: jsonx.Object{"mes": jsonx.Raw("the final 東京 text")}}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("東京", noOpts, 0)
	if _, err := r.s.Undo(ctx, r.chatID, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("東京", noOpts)
	r.expect("draft", noOpts, 0)
	if _, err := r.s.Redo(ctx, r.chatID, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.expect("draft", noOpts)
	r.expect("東京", noOpts, 0)
	r.checkIndexInSync()
}

// TestSearchSeesRowsChangedAnyWay changes message rows with plain SQL, the
// way code outside Service.mutate might: triggers queue the chunks, and the
// next search rebuilds them.
func TestSearchSeesRowsChangedAnyWay(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	r.add(r.chatID, msgUser("plain words"), msgBot("more words"))
	err := r.db.InTx(ctx, func(tx *store.Tx) error {
		for _, q := range []string{
			`UPDATE message_swipes SET mes = 'a sneaky okapi' WHERE message_id = (SELECT id FROM messages WHERE idx = 0)`,
			`UPDATE message_bodies SET hidden = 1 WHERE message_id = (SELECT id FROM messages WHERE idx = 1)`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.expect("okapi", noOpts, 0)
	r.expect("words", noOpts)
	r.expect("words", SearchOptions{IncludeHidden: true}, 1)
	r.checkIndexInSync()
}
