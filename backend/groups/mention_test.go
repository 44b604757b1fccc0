package groups

import (
	"slices"
	"testing"
)

func TestEachWord(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []string
	}{
		{"Hello, world_2!", []string{"Hello", "world_2"}},
		{"Алиса и Борис", []string{"Алиса", "и", "Борис"}},
		{"Alice你好Bob", []string{"Alice", "你好", "Bob"}},
		{"ルーシーさん", []string{"ルーシーさん"}},
		{"cafe\u0301 ok", []string{"cafe\u0301", "ok"}}, // a combining accent stays in its word
		{"Zoë's", []string{"Zoë", "s"}},                 // as SillyTavern's \b\w+\b cuts it
		{"  ", nil},
	}
	for _, c := range cases {
		var got []string
		eachWord(c.in, func(w string, at int) {
			if c.in[at:at+len(w)] != w {
				t.Errorf("%q: word %q not at %d", c.in, w, at)
			}
			got = append(got, w)
		})
		if !slices.Equal(got, c.want) {
			t.Errorf("eachWord(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMentioned(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		text    string
		members []string
		want    []string
	}{
		{"a word inside another is no mention", "Bobby and Alicia", []string{"Bob", "Alice"}, nil},
		{"the first mention orders", "carol, then alice, then carol again", []string{"Alice", "Carol"}, []string{"Carol.png", "Alice.png"}},
		{"a one-character Chinese name is found anywhere", "今天月亮很圆", []string{"月"}, []string{"月.png"}},
		{"a Thai name inside a run", "สวัสดีสมชายครับ", []string{"สมชาย"}, []string{"สมชาย.png"}},
		{"a name of symbols only mentions nobody", "!!!", []string{"!!!"}, nil},
		{"an empty text mentions nobody", "", []string{"Alice"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := mentioned(c.text, quiet(c.members...)); !slices.Equal(got, c.want) {
				t.Fatalf("mentioned = %q, want %q", got, c.want)
			}
		})
	}
}
