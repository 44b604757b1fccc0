package chats

import (
	"context"
	"encoding/json"
	"maps"
	"math"
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
	r := searchRigAt(t, filepath.Join(t.TempDir(), "hearth.db"))
	r.chatID = r.newChat("Search")
	if _, err := r.s.DeleteMessages(context.Background(), r.chatID, []int{0}, DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	return r
}

// searchRigAt opens (migrating) the database at path, media beside it.
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
	return &searchRig{t: t, s: New(db, bus, characters.New(db, bus, files, nil, time.Now), time.Now, Hooks{}), db: db}
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
	// A search of one chat ranks that chat's matches itself (FTS5's bm25
	// would count every chat's); it finds what a search of all chats finds
	// there.
	r.add(r.chatID, msgBot("Lanterns, lanterns everywhere."), msgUser("a LANTERN"), msgBot("dark"))
	one, err := r.s.Search(ctx, r.chatID, "lantern", noOpts)
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.s.SearchAll(ctx, "lantern", noOpts)
	if err != nil {
		t.Fatal(err)
	}
	// Both score a message alike (BM25's term-frequency part against the
	// index's mean length), best first.
	descending := func(what string, hits []SearchHit) {
		for i, h := range hits {
			if h.Score <= 0 || (i > 0 && h.Score > hits[i-1].Score) {
				t.Errorf("%s scores not positive and descending: %+v", what, hits)
			}
		}
	}
	descending("one-chat", one)
	descending("all-chats", all)
	inChat := map[int]float64{}
	for _, h := range all {
		if h.ChatID == r.chatID {
			inChat[h.Index] = h.Score
		}
	}
	found := map[int]float64{}
	for _, h := range one {
		found[h.Index] = h.Score
	}
	if !maps.Equal(found, inChat) || len(found) != 3 {
		t.Errorf("one-chat search found %v; all chats found %v there", found, inChat)
	}
	// The mean length read from FTS5's averages record is the chunks' own.
	avg, err := indexAverage(ctx, r.s.db.Reader())
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	if err := r.s.db.Reader().QueryRow(`SELECT avg(chars) FROM chunks`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if math.Abs(avg-want) > 1e-9 || avg <= 0 {
		t.Errorf("index average = %v, chunks' mean length = %v", avg, want)
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

// An import inserts its rows through its own statements; each of them
// must still be queued for its chunk.
func TestSearchFindsImportedMessages(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	ctx := context.Background()
	card, err := r.s.chars.(*characters.Service).Create(ctx, jsonx.Object{"name": jsonx.Raw("Ava")}, characters.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := `{"user_name":"User","character_name":"Ava","chat_metadata":{}}
{"name":"User","is_user":true,"mes":"the kestrel 飛んだ"}
{"name":"Ava","is_user":false,"mes":"no bird here"}
{"name":"Ava","is_user":false,"mes":"a kestrel again"}
`
	sum, err := r.s.ImportJsonl(ctx, Owner{Avatar: card.Avatar}, JsonlImport{FileName: "imported", Text: &text})
	if err != nil {
		t.Fatal(err)
	}
	r.chatID = sum.ChatID
	r.expect("kestrel", noOpts, 0, 2)
	r.expect("飛ん", noOpts, 0)
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

func TestSqliteVarint(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want int64
		n    int
	}{
		{[]byte{0x00}, 0, 1},
		{[]byte{0x7f, 0xff}, 127, 1},
		{[]byte{0x81, 0x00}, 128, 2},
		{[]byte{0x86, 0xc3, 0x17}, 106903, 3},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, -1, 9},
		{[]byte{0x81}, 0, 0},
		{nil, 0, 0},
	} {
		if got, n := sqliteVarint(c.in); got != c.want || n != c.n {
			t.Errorf("sqliteVarint(% x) = %d, %d; want %d, %d", c.in, got, n, c.want, c.n)
		}
	}
}
