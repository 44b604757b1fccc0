package worldinfo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchVocabulary is the word pool of the benchmark's chat and keys.
var benchVocabulary = strings.Fields(`dragon castle river forest king queen knight sword shield tavern village
mountain storm lantern temple priest witch wolf raven tower bridge harbor ship merchant gold silver
crown throne battle army scout ranger elf dwarf orc goblin troll giant wizard spell potion scroll
library archive prophecy oracle moon sun star comet winter summer harvest festival plague curse
blessing relic amulet ring dagger bow arrow horse carriage road inn market guild thief assassin
noble peasant farmer blacksmith healer bard song legend myth ruin cave mine crystal gem ember ash
shadow light void abyss portal realm empire rebellion treaty border fortress garrison siege`)

// benchSyllables make the proper names lorebooks are keyed by.
var benchSyllables = strings.Fields("ka vor el dri tha mar is ul en gar oth ri an sel dor wyn bra ce lo fen")

// benchSetup builds a 1,000-entry book with keys like real lorebooks:
// proper names (and a phrase with the name), one in ten also a regex on
// the name, one in ten a regex on ordinary words, one in twenty-five an
// ordinary word (those activate), a third with secondary keys; and a chat
// of 30 messages of about 450 characters each.
func benchSetup() Input {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string { return benchVocabulary[r.IntN(len(benchVocabulary))] }
	sentence := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, " ")
	}
	entries := make([]*Entry, 1000)
	for i := range entries {
		e := NewEntry(i)
		name := ""
		for range 2 + r.IntN(2) {
			name += benchSyllables[r.IntN(len(benchSyllables))]
		}
		name = strings.ToUpper(name[:1]) + name[1:]
		e.Key = []string{name, "the " + word() + " of " + name}
		switch {
		case i%10 == 0:
			e.Key = append(e.Key, fmt.Sprintf(`/\b%s(s|es)?\b/i`, name))
		case i%10 == 5:
			e.Key = append(e.Key, fmt.Sprintf(`/(%s|%s) (of|from) the %s/`, word(), word(), word()))
		case i%25 == 1:
			e.Key = append(e.Key, word()) // a common word: these activate
		}
		if i%3 == 0 {
			e.KeySecondary = []string{word(), word()}
			e.SelectiveLogic = i % 4
		}
		e.Comment = name
		e.Content = sentence(60 + r.IntN(60))
		e.Order = r.IntN(200)
		e.Position = r.IntN(5)
		if i%50 == 0 {
			e.Group = "g" + itoa(i%7)
		}
		entries[i] = e
	}
	msgs := make([]Message, 30)
	for i := range msgs {
		msgs[i] = Message{Name: []string{"User", "Seraphina"}[i%2], Text: sentence(70)}
	}
	settings := DefaultSettings()
	settings.Depth = 10
	settings.Recursive = true
	return Input{
		Settings:   settings,
		Sources:    []Source{{World: "Bench", Kind: SourceGlobal, Book: &Book{Entries: entries}}},
		Messages:   msgs,
		MaxContext: 16384,
		Tokens:     func(s string) int { return (len(s) + 3) / 4 },
		Rand:       rand.New(rand.NewPCG(3, 4)).Float64,
	}
}

// BenchmarkActivate1000 activates a 1,000-entry book over a scan depth of
// 10 messages, with recursion. "warm" reuses an Engine (its compiled keys),
// as a running app does; "cold" compiles every key again.
func BenchmarkActivate1000(b *testing.B) {
	in := benchSetup()
	r, err := Activate(context.Background(), in)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d entries activated, budget overflowed: %v", len(r.Activated), r.BudgetOverflowed)
	b.Run("warm", func(b *testing.B) {
		en := NewEngine()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := en.Activate(context.Background(), in); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	})
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Activate(context.Background(), in); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	})
}
