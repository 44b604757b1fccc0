package worldinfo

import (
	"context"
	"strings"
	"testing"
)

// ent builds an entry with SillyTavern's template values, keys and content.
func ent(uid int, keys []string, content string, opts ...func(*Entry)) *Entry {
	e := NewEntry(uid)
	e.Key = keys
	e.Content = content
	for _, o := range opts {
		o(e)
	}
	return e
}

func keys(k ...string) []string { return k }

func ptr[T any](v T) *T { return &v }

// words counts white-space separated words: a token counter whose
// results are easy to reason about.
func words(s string) int { return len(strings.Fields(s)) }

// seq is a random source returning vals in turn; it fails the test when
// asked for more.
func seq(t testing.TB, vals ...float64) func() float64 {
	return func() float64 {
		if len(vals) == 0 {
			t.Errorf("random source asked for more numbers than the test planned")
			return 0
		}
		v := vals[0]
		vals = vals[1:]
		return v
	}
}

// chat makes messages from texts, oldest first, alternating user and
// character.
func chat(texts ...string) []Message {
	out := make([]Message, len(texts))
	for i, s := range texts {
		name := "User"
		if i%2 == 1 {
			name = "Seraphina"
		}
		out[i] = Message{Name: name, Text: s}
	}
	return out
}

// baseInput is an activation of one book "W" over msgs with a budget too
// big to matter and a random source that must not be used.
func baseInput(t testing.TB, entries []*Entry, msgs ...string) Input {
	settings := DefaultSettings()
	settings.IncludeNames = false
	return Input{
		Settings:   settings,
		Sources:    []Source{{World: "W", Kind: SourceGlobal, Book: &Book{Entries: entries}}},
		Messages:   chat(msgs...),
		MaxContext: 1_000_000,
		Tokens:     words,
		Rand:       seq(t),
	}
}

func activate(t testing.TB, in Input) *Result {
	t.Helper()
	r, err := Activate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// uids lists the activated entries as "world.uid", in activation order.
func uids(r *Result) string {
	var out []string
	for _, a := range r.Activated {
		out = append(out, a.World+"."+itoa(a.UID))
	}
	return strings.Join(out, " ")
}
