package search

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// fuzzTexts are the messages FuzzSearchQuery searches: scripts, case
// pairs SQLite and Go fold differently, FTS5 syntax, very short bodies.
var fuzzTexts = []string{
	`The lantern flickered; "quoted" words AND operators NEAR(x) col:umn a*b -c ^d`,
	"私は東京に住んでいます。猫が好きです。ああああ",
	"我喜欢在北京喝茶，猫和狗都很可爱。",
	"ΣΑΣ σας ς — µ micro, ſ long s, İstanbul, Straße, ﬁ",
	"Ünïcödé ÄÖÜ äöü é (e + \u0301) 😀👍🏽 \u212a kelvin",
	"x",
	"東京",
	"  spaced\ttabs\nnew lines  ",
	"한국어 텍스트와 العربية والعبرية עברית",
}

// FuzzSearchQuery throws arbitrary query strings at both search paths
// (the trigram index for 3+ characters, the vocabulary for 1–2) of a chat
// whose messages it knows: a query is either refused as
// validation.invalid_argument, or it finds exactly the messages whose
// case-folded text contains the case-folded query — never an internal
// error, never a panic, never FTS5 syntax.
func FuzzSearchQuery(f *testing.F) {
	for _, seed := range []string{
		"lantern", "東京", "猫", "京", "ああ", `"`, `""`, `"quoted"`, "*", "a*b", "AND", "NEAR(", "NEAR(x)", "-c", "^d",
		"col:umn", "(", ")", "{", "}", ":", "σ", "Σ", "ς", "ss", "ß", "i̇", "İ", "K", "k", "😀", "👍🏽", "e\u0301", " x ",
		"\x00", "\uffff", "\uffffx", "", " ", "\t\n", "\xff\xfe", "NOT", "OR", "x OR y", "'", "`", "%", "_", "\\",
		"한국", "ال", "spaced\ttabs", "tabs\nnew",
	} {
		f.Add(seed)
	}
	fr := newSearchRig(f)
	for _, text := range fuzzTexts {
		fr.add(fr.chatID, msgBot(text))
	}
	f.Fuzz(func(t *testing.T, query string) {
		ctx := context.Background()
		norm, verr := normalizeQuery(query)
		for _, all := range []bool{false, true} {
			var hits []Hit
			var err error
			if all {
				hits, err = fr.s.SearchAll(ctx, query, Options{Limit: optPtr(searchMaxLimit)})
			} else {
				hits, err = fr.s.Search(ctx, fr.chatID, query, Options{Limit: optPtr(searchMaxLimit)})
			}
			if verr != nil {
				if apperr.CodeOf(err) != apperr.CodeInvalidArgument {
					t.Fatalf("query %q: %v, want validation.invalid_argument", query, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("query %q: %v", query, err)
			}
			got := []int{}
			for _, h := range hits {
				got = append(got, h.Index)
			}
			sort.Ints(got)
			want := []int{}
			folded := foldString(norm)
			for i, text := range fuzzTexts {
				if strings.Contains(foldString(text), folded) {
					want = append(want, i)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("query %q (all chats %v) found %v, want %v", query, all, got, want)
			}
		}
	})
}
