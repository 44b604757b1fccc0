package search

import (
	"context"
	"maps"
	"testing"
	"unicode/utf8"
)

// TestSearchShortScoresContexts pins what a 1–2 character query's term
// frequency is: the distinct trigrams of the folded, padded text that
// start with it (the characters following each occurrence), not its
// occurrences, which an index without positions does not keep.
func TestSearchShortScoresContexts(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	r.add(r.chatID,
		msgBot("東京と東京と"),   // one context: 東京と, twice
		msgBot("東京と東京が"),   // two: 東京と, 東京が
		msgBot("東京と東京"),    // two: 東京と, 東京 and the padding
		msgBot("to TO tO"), // "to": two, "to " and "to" padded
		msgBot("Tokyo tokyo"),
		msgBot("猫と猫と猫と"), // 猫: two, 猫と猫 and 猫と padded
	)
	if err := flushChunks(context.Background(), r.db, 0); err != nil {
		t.Fatal(err)
	}
	avg, err := indexAverage(context.Background(), r.db.Reader())
	if err != nil || avg <= 0 {
		t.Fatalf("index average %v, %v", avg, err)
	}
	for _, c := range []struct {
		q  string
		tf map[int]int // index: distinct contexts
	}{
		{"東京", map[int]int{0: 1, 1: 2, 2: 2}},
		{"to", map[int]int{3: 2, 4: 1}},
		{"猫", map[int]int{5: 2}},
		{"と", map[int]int{0: 2, 1: 1, 2: 1, 5: 2}},
	} {
		hits := r.search(c.q, Options{Limit: optPtr(searchMaxLimit)})
		got := map[int]float64{}
		for _, h := range hits {
			got[h.Index] = h.Score
		}
		want := map[int]float64{}
		for i, tf := range c.tf {
			want[i] = bm25TF(tf, utf8.RuneCountInString(fixtureText(t, r, i)), avg)
		}
		if !maps.Equal(got, want) {
			t.Errorf("search %q scored %v, want %v (term frequencies %v)", c.q, got, want, c.tf)
		}
	}
	// The same term frequency, the shorter message first.
	if hits := r.search("東京", noOpts); len(hits) != 3 || hits[0].Index != 2 || hits[1].Index != 1 || hits[2].Index != 0 {
		t.Errorf("search 東京 ranked %+v, want 2, 1, 0", hits)
	}
}

// fixtureText is the active text of message i of the rig's chat.
func fixtureText(t *testing.T, r *searchRig, i int) string {
	t.Helper()
	var body string
	if err := r.db.Reader().QueryRowContext(context.Background(), `SELECT t.body FROM chunk_source t JOIN messages m ON m.id = t.message_id
		JOIN chats c ON c.id = m.chat_id WHERE c.uuid = ? AND m.idx = ?`, r.chatID, i).Scan(&body); err != nil {
		t.Fatalf("text of message %d: %v", i, err)
	}
	return body
}

// TestShortContextsMatchText checks, for every 1–2 character substring of
// the fuzzer's texts, that the vocabulary names exactly the messages whose
// folded text contains it, with the term frequency that the text, read by
// scanShort past shortScanCap, gives them: both ways find and score a
// message alike.
func TestShortContextsMatchText(t *testing.T) {
	t.Parallel()
	r := newSearchRig(t)
	for _, text := range fuzzTexts {
		r.add(r.chatID, msgBot(text))
	}
	ctx := context.Background()
	if err := flushChunks(ctx, r.db, 0); err != nil {
		t.Fatal(err)
	}
	q := r.db.Reader()
	texts := map[int64]string{}
	rows, err := q.QueryContext(ctx, `SELECT (c.chat_id << 37) | c.message_id, t.body FROM chunks c JOIN chunk_source t USING (message_id)`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key int64
		var body string
		if err := rows.Scan(&key, &body); err != nil {
			t.Fatal(err)
		}
		texts[key] = body
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	queries := map[string]bool{}
	for _, text := range fuzzTexts {
		rs := []rune(text)
		for n := 1; n <= 2; n++ {
			for i := 0; i+n <= len(rs); i++ {
				queries[string(rs[i:i+n])] = true
			}
		}
	}
	for query := range queries {
		p, err := newSearchPlan(query, Options{IncludeHidden: true})
		if err != nil || p.query != query || p.runes > 2 {
			continue // blank, trimmed or padding: not this query
		}
		tf, ok, err := shortContexts(ctx, q, p)
		if err != nil || !ok {
			t.Fatalf("query %q: vocabulary %v, %v", query, ok, err)
		}
		want := map[int64]int{}
		for key, body := range texts {
			if n := p.matcher.contexts(body); n > 0 {
				want[key] = n
			}
		}
		if !maps.Equal(tf, want) {
			t.Errorf("query %q: the vocabulary gives %v, the text %v", query, tf, want)
		}
		fromVocabulary, err := shortCandidates(ctx, q, p, tf)
		if err != nil {
			t.Fatal(err)
		}
		fromText, err := scanShort(ctx, q, p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := scoredTF(fromVocabulary), scoredTF(fromText); !maps.Equal(got, want) {
			t.Errorf("query %q: shortCandidates found %v, scanShort %v", query, got, want)
		}
	}
}

// scoredTF maps each candidate's message to its term frequency.
func scoredTF(found []scored) map[int64]int {
	out := map[int64]int{}
	for _, c := range found {
		out[c.messageID] = c.tf
	}
	return out
}
