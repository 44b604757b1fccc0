package groups

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkGroupDraft drafts the next speakers of a 5-member group
// (names in Latin, Cyrillic and Chinese) after a 4 KB message in each
// strategy, the pooled one over the 200 member messages since the user's
// last (issue 38: at most 1 ms; benchreport's goal).
func BenchmarkGroupDraft(b *testing.B) {
	members := []Member{
		{Avatar: "Seraphina.png", Name: "Seraphina", Talkativeness: 0.5},
		{Avatar: "Dr Watson.png", Name: "Dr. John Watson", Talkativeness: 0.3},
		{Avatar: "Алиса.png", Name: "Алиса Петровна", Talkativeness: 0.2},
		{Avatar: "小明.png", Name: "小明", Talkativeness: 0.1},
		{Avatar: "Muted.png", Name: "Muted One", Talkativeness: 1, Muted: true},
	}
	var text strings.Builder
	for text.Len() < 4096 {
		text.WriteString("The forest was quiet that evening, and nobody spoke of what had happened at the river. ")
		text.WriteString("Тишина стояла над рекой. 森林里很安静。 ")
	}
	text.WriteString("Watson, what do you think? 小明呢？")
	chat := []Message{user("hello everyone")}
	for i := range 200 {
		m := members[i%4]
		chat = append(chat, Message{Name: m.Name, Avatar: m.Avatar, Text: "..."})
	}
	chat = append(chat, user(text.String()))
	for _, s := range []struct {
		name     string
		strategy int
		chat     []Message
	}{
		{"natural", Natural, chat[len(chat)-1:]},
		{"list", List, chat[len(chat)-1:]},
		{"pooled", Pooled, chat[:len(chat)-1]},
	} {
		b.Run(s.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Draft(Turn{Strategy: s.strategy, Members: members, Chat: s.chat, Rand: r}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
