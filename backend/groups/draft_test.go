package groups

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"hearth/backend/apperr"
)

// script is a Random that answers from lists, in turn (wrapping): floats
// for Float64 (0.99 when empty: no roll succeeds unless talkativeness is
// 1), ints for IntN (taken modulo n; 0 when empty).
type script struct {
	floats []float64
	ints   []int
	f, i   int
}

func (s *script) Float64() float64 {
	if len(s.floats) == 0 {
		return 0.99
	}
	v := s.floats[s.f%len(s.floats)]
	s.f++
	return v
}

func (s *script) IntN(n int) int {
	if len(s.ints) == 0 {
		return 0
	}
	v := s.ints[s.i%len(s.ints)] % n
	s.i++
	return v
}

// quiet members never speak up unasked (talkativeness 0).
func quiet(names ...string) []Member {
	out := make([]Member, len(names))
	for i, n := range names {
		out[i] = Member{Avatar: n + ".png", Name: n}
	}
	return out
}

func with(members []Member, edit func(m *Member)) []Member {
	out := slices.Clone(members)
	for i := range out {
		edit(&out[i])
	}
	return out
}

func talk(avatar string, t float64) func(*Member) {
	return func(m *Member) {
		if m.Avatar == avatar {
			m.Talkativeness = t
		}
	}
}

func mute(avatar string) func(*Member) {
	return func(m *Member) {
		if m.Avatar == avatar {
			m.Muted = true
		}
	}
}

func user(text string) Message { return Message{IsUser: true, Name: "You", Text: text} }

func said(avatar, text string) Message {
	return Message{Name: avatar[:len(avatar)-len(".png")], Avatar: avatar, Text: text}
}

func TestDraft(t *testing.T) {
	t.Parallel()
	abc := quiet("Alice", "Bob", "Carol")
	cases := []struct {
		name string
		turn Turn
		want []string
		// wantCode, when set, is the error's code.
		wantCode string
	}{
		// Natural: mentions, in the order the text makes them.
		{name: "natural: Latin mentions in text order", turn: Turn{Strategy: Natural, Members: abc, Chat: []Message{user("Hey bob, where is ALICE?")}},
			want: []string{"Bob.png", "Alice.png"}},
		{name: "natural: a word of the name mentions it", turn: Turn{Strategy: Natural, Members: quiet("John Smith", "Jane Smith"), Chat: []Message{user("Smith!")}},
			want: []string{"John Smith.png"}},
		{name: "natural: Cyrillic mentions, any case", turn: Turn{Strategy: Natural, Members: quiet("Алиса", "Борис", "Вера"), Chat: []Message{user("БОРИС, привет! А где Алиса?")}},
			want: []string{"Борис.png", "Алиса.png"}},
		{name: "natural: an inflected Cyrillic name is no mention", turn: Turn{Strategy: Natural, Members: quiet("Алиса", "Борис"), Chat: []Message{user("Скажи Алисе")}, Rand: &script{ints: []int{1}}},
			want: []string{"Борис.png"}},
		{name: "natural: Chinese names inside a run of text", turn: Turn{Strategy: Natural, Members: quiet("小明", "小红", "老王"), Chat: []Message{user("小红你好，小明呢？")}},
			want: []string{"小红.png", "小明.png"}},
		{name: "natural: Japanese name with an honorific and a long vowel", turn: Turn{Strategy: Natural, Members: quiet("アリス", "ルーシー"), Chat: []Message{user("ルーシーさん、アリスは？")}},
			want: []string{"ルーシー.png", "アリス.png"}},
		{name: "natural: Korean name with a particle", turn: Turn{Strategy: Natural, Members: quiet("지수", "민수"), Chat: []Message{user("민수야 안녕")}},
			want: []string{"민수.png"}},
		{name: "natural: a Latin name glued to CJK text", turn: Turn{Strategy: Natural, Members: quiet("Alice", "Bob"), Chat: []Message{user("Bob你好")}},
			want: []string{"Bob.png"}},
		{name: "natural: the last speaker does not answer its own mention", turn: Turn{Strategy: Natural, Members: abc, Chat: []Message{user("hi"), said("Alice.png", "I am Alice, and this is Carol.")}},
			want: []string{"Carol.png"}},
		{name: "natural: with self-responses it may", turn: Turn{Strategy: Natural, Members: abc, AllowSelfResponses: true, Chat: []Message{user("hi"), said("Alice.png", "I am Alice, and this is Carol.")}},
			want: []string{"Alice.png", "Carol.png"}},
		{name: "natural: a legacy message is known by its name", turn: Turn{Strategy: Natural, Members: abc, Chat: []Message{{Name: "Alice", Text: "Alice here, Bob."}}},
			want: []string{"Bob.png"}},
		{name: "natural: after a user's message everyone may speak", turn: Turn{Strategy: Natural, Members: abc, Chat: []Message{said("Alice.png", "x"), user("Alice?")}},
			want: []string{"Alice.png"}},
		{name: "natural: a muted member is not drafted by a mention", turn: Turn{Strategy: Natural, Members: with(abc, mute("Bob.png")), Chat: []Message{user("Bob and Carol")}},
			want: []string{"Carol.png"}},
		{name: "natural: a hidden last message mentions nobody", turn: Turn{Strategy: Natural, Members: abc, Chat: []Message{{IsSystem: true, Name: "Narrator", Text: "Carol"}}, Rand: &script{ints: []int{1}}},
			want: []string{"Bob.png"}},
		{name: "natural: talkativeness 1 speaks up after the mentions", turn: Turn{Strategy: Natural, Members: with(abc, talk("Carol.png", 1)), Chat: []Message{user("Bob?")}},
			want: []string{"Bob.png", "Carol.png"}},
		{name: "natural: a roll under talkativeness speaks up", turn: Turn{Strategy: Natural, Members: with(with(abc, talk("Alice.png", 0.3)), talk("Bob.png", 0.3)), Chat: []Message{user("hm")},
			// IntN answers 0: the shuffle makes [Bob, Carol, Alice], who roll 0.2, 0.5 and 0.9.
			Rand: &script{floats: []float64{0.2, 0.5, 0.9}}},
			want: []string{"Bob.png"}},
		{name: "natural: nobody chatty, one at random", turn: Turn{Strategy: Natural, Members: abc, Chat: []Message{user("hm")}, Rand: &script{ints: []int{0, 0, 2}}},
			want: []string{"Carol.png"}},
		{name: "natural: the random one is among the chatty", turn: Turn{Strategy: Natural, Members: with(abc, talk("Bob.png", 0.1)), Chat: []Message{user("hm")}},
			want: []string{"Bob.png"}},
		{name: "natural: the random one is never the last speaker", turn: Turn{Strategy: Natural, Members: quiet("Alice", "Bob"), Chat: []Message{said("Bob.png", "...")}, Rand: &script{ints: []int{1}}},
			want: []string{"Alice.png"}},
		{name: "natural: the only member spoke last", turn: Turn{Strategy: Natural, Members: quiet("Alice"), Chat: []Message{said("Alice.png", "...")}},
			want: nil},
		{name: "natural: an empty chat drafts one at random", turn: Turn{Strategy: Natural, Members: abc, Rand: &script{ints: []int{0, 0, 1}}},
			want: []string{"Bob.png"}},

		// List.
		{name: "list: every unmuted member in order", turn: Turn{Strategy: List, Members: with(abc, mute("Bob.png")), Chat: []Message{user("hi")}},
			want: []string{"Alice.png", "Carol.png"}},
		{name: "list: the last speaker does not come first", turn: Turn{Strategy: List, Members: abc, Chat: []Message{said("Alice.png", "...")}},
			want: []string{"Bob.png", "Carol.png"}},
		{name: "list: the last speaker further down still speaks", turn: Turn{Strategy: List, Members: abc, Chat: []Message{said("Bob.png", "...")}},
			want: []string{"Alice.png", "Bob.png", "Carol.png"}},
		{name: "list: with self-responses the last speaker comes first", turn: Turn{Strategy: List, Members: abc, AllowSelfResponses: true, Chat: []Message{said("Alice.png", "...")}},
			want: []string{"Alice.png", "Bob.png", "Carol.png"}},

		// Manual.
		{name: "manual: nobody after a user's message", turn: Turn{Strategy: Manual, Members: abc, Chat: []Message{user("Alice?")}},
			want: nil},
		{name: "manual: one at random otherwise, not the last speaker", turn: Turn{Strategy: Manual, Members: abc, Chat: []Message{said("Alice.png", "...")}, Rand: &script{ints: []int{0}}},
			want: []string{"Bob.png"}},
		{name: "manual: never a muted member", turn: Turn{Strategy: Manual, Members: with(abc, mute("Bob.png")), Chat: []Message{said("Alice.png", "...")}, Rand: &script{ints: []int{0}}},
			want: []string{"Carol.png"}},

		// Pooled.
		{name: "pooled: one who has not spoken since the user", turn: Turn{Strategy: Pooled, Members: abc, Chat: []Message{said("Bob.png", "old"), user("hi"), said("Alice.png", "a"), said("Carol.png", "c")}, Rand: &script{ints: []int{0}}},
			want: []string{"Bob.png"}},
		{name: "pooled: hidden and narrator messages do not count as speaking", turn: Turn{Strategy: Pooled, Members: quiet("Alice", "Bob"),
			Chat: []Message{user("hi"), {IsSystem: true, Name: "Alice", Avatar: "Alice.png"}, {Narrator: true, Name: "Bob", Avatar: "Bob.png"}}, Rand: &script{ints: []int{1}}},
			want: []string{"Bob.png"}},
		{name: "pooled: everyone spoke, the last speaker waits", turn: Turn{Strategy: Pooled, Members: quiet("Alice", "Bob"), Chat: []Message{user("hi"), said("Alice.png", "a"), said("Bob.png", "b")}, Rand: &script{ints: []int{1}}},
			want: []string{"Alice.png"}},
		{name: "pooled: a single member who spoke waits", turn: Turn{Strategy: Pooled, Members: quiet("Alice"), Chat: []Message{user("hi"), said("Alice.png", "a")}},
			want: nil},
		{name: "pooled: never a muted member", turn: Turn{Strategy: Pooled, Members: with(abc, mute("Carol.png")), Chat: []Message{user("hi"), said("Alice.png", "a")}, Rand: &script{ints: []int{5}}},
			want: []string{"Bob.png"}},

		// Forcing, and what is no turn.
		{name: "a forced member speaks, muted or not", turn: Turn{Strategy: Manual, Members: with(abc, mute("Bob.png")), Force: "Bob.png", Chat: []Message{user("hi")}},
			want: []string{"Bob.png"}},
		{name: "a forced non-member is refused", turn: Turn{Strategy: Natural, Members: abc, Force: "Zed.png"}, wantCode: apperr.CodeInvalidArgument},
		{name: "an unknown strategy is refused", turn: Turn{Strategy: 7, Members: abc}, wantCode: apperr.CodeInvalidArgument},
		{name: "everyone muted: nobody", turn: Turn{Strategy: List, Members: with(abc, func(m *Member) { m.Muted = true }), Chat: []Message{user("hi")}},
			want: nil},
		{name: "no members: nobody", turn: Turn{Strategy: Natural, Chat: []Message{user("hi")}}, want: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.turn.Rand == nil {
				c.turn.Rand = &script{}
			}
			got, err := Draft(c.turn)
			if c.wantCode != "" {
				if apperr.CodeOf(err) != c.wantCode {
					t.Fatalf("error %v, want %s", err, c.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("drafted %q, want %q", got, c.want)
			}
		})
	}
}

// TestDraftTalkativenessExtremes rolls many times: talkativeness 1 always
// speaks up and 0 never does (by a roll: SillyTavern's >= would let 0
// through on a roll of exactly 0, which a script can produce).
func TestDraftTalkativenessExtremes(t *testing.T) {
	t.Parallel()
	members := []Member{{Avatar: "never.png", Name: "Never"}, {Avatar: "always.png", Name: "Always", Talkativeness: 1}, {Avatar: "half.png", Name: "Half", Talkativeness: 0.5}}
	zero := &script{floats: []float64{0}}
	got, err := Draft(Turn{Strategy: Natural, Members: members, Chat: []Message{user("hm")}, Rand: zero})
	if err != nil || slices.Contains(got, "never.png") {
		t.Fatalf("a roll of 0 drafted %q (%v)", got, err)
	}
	halves := 0
	for seed := range uint64(500) {
		got, err := Draft(Turn{Strategy: Natural, Members: members, Chat: []Message{user("hm")}, Rand: rand.New(rand.NewPCG(seed, 1))})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, "always.png") || slices.Contains(got, "never.png") {
			t.Fatalf("seed %d drafted %q", seed, got)
		}
		if slices.Contains(got, "half.png") {
			halves++
		}
	}
	if halves < 200 || halves > 300 {
		t.Errorf("talkativeness 0.5 spoke up %d times in 500", halves)
	}
}

// TestDraftPooledAcrossTurns plays turns of a pooled group: after a user
// message nobody speaks twice until everyone has spoken, and the last
// speaker never follows itself.
func TestDraftPooledAcrossTurns(t *testing.T) {
	t.Parallel()
	members := quiet("Alice", "Bob", "Carol", "Dana")
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 2))
		chat := []Message{user("hi")}
		var since []string // who spoke since the last user message
		for turn := range 12 {
			if turn == 7 {
				chat = append(chat, user("again"))
				since = nil
			}
			got, err := Draft(Turn{Strategy: Pooled, Members: members, Chat: chat, Rand: r})
			if err != nil || len(got) != 1 {
				t.Fatalf("seed %d turn %d: %q, %v", seed, turn, got, err)
			}
			who := got[0]
			if last := chat[len(chat)-1]; !last.IsUser && last.Avatar == who {
				t.Fatalf("seed %d turn %d: %s answered itself", seed, turn, who)
			}
			if len(since) < len(members) && slices.Contains(since, who) {
				t.Fatalf("seed %d turn %d: %s spoke again before everyone had, after %q", seed, turn, who, since)
			}
			if !slices.Contains(since, who) {
				since = append(since, who)
			}
			chat = append(chat, said(who, "..."))
		}
	}
}

func TestTalkativeness(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ext  string
		want float64
	}{
		{`{}`, 0.5},
		{``, 0.5},
		{`{"talkativeness":0.9}`, 0.9},
		{`{"talkativeness":0}`, 0},
		{`{"talkativeness":"0.2"}`, 0.2},
		{`{"talkativeness":" 1 "}`, 1},
		{`{"talkativeness":"lots"}`, 0.5},
		{`{"talkativeness":"NaN"}`, 0.5},
		{`{"talkativeness":null}`, 0.5},
		{`{"talkativeness":true}`, 0.5},
	}
	for _, c := range cases {
		if got := Talkativeness(json.RawMessage(c.ext)); got != c.want {
			t.Errorf("Talkativeness(%s) = %v, want %v", c.ext, got, c.want)
		}
	}
}
