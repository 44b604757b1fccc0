package search

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// shortScanCap bounds how many vocabulary rows (a trigram in a message) a
// 1–2 character query reads. Past it (a letter like "e", a particle like
// "の" in a Japanese chat) nearly every message matches, and reading the
// text of every searched message is cheaper than looking each one up.
const shortScanCap = 200_000

// searchShort answers a 1–2 character query, which no trigram equals.
// Every occurrence of it starts some indexed trigram (bodies are indexed
// with two padding characters after them), so the trigrams with the query
// as prefix — a range of the chunks_terms vocabulary, read in index order —
// list exactly the messages holding it. The vocabulary also scores them,
// so no text is read but the hits' own, for their snippets: the index
// keeps no positions (migration 0026), one row per trigram and message,
// and a message's term frequency is the number of distinct trigrams that
// start with the query there (see shortContexts). Candidates are then
// filtered and ranked (see rank).
func searchShort(ctx context.Context, q queryer, p *searchPlan) ([]rawHit, error) {
	tf, ok, err := shortContexts(ctx, q, p)
	if err != nil {
		return nil, err
	}
	var found []scored
	if ok {
		found, err = shortCandidates(ctx, q, p, tf)
	} else {
		found, err = scanShort(ctx, q, p)
	}
	if err != nil {
		return nil, err
	}
	hits, err := rankFound(ctx, q, found, p.limit)
	if err != nil {
		return nil, err
	}
	return hits, placeHits(ctx, q, hits)
}

// shortContexts counts, per index key of the searched chat(s), the
// distinct trigrams starting with the folded query: the distinct contexts
// it occurs in — the folded character after a 2-character query, the two
// after a 1-character one, padding at the end of the text included. That
// is a 1–2 character query's term frequency, not its number of
// occurrences, which an index without positions does not keep: 東京
// counts once in "東京と東京と" (東京と twice), twice in "東京と東京が" and
// in "東京と東京" (東京と, then 東京 and the padding). ok is false when the
// vocabulary has more than shortScanCap such rows.
func shortContexts(ctx context.Context, q queryer, p *searchPlan) (map[int64]int, bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT doc FROM chunks_terms WHERE term >= ? AND term < ? LIMIT ?`,
		p.folded, p.folded+"\U0010FFFF", shortScanCap+1)
	if err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	tf := map[int64]int{}
	seen := 0
	for rows.Next() {
		var key int64
		if err := rows.Scan(&key); err != nil {
			return nil, false, fmt.Errorf("search: %w", err)
		}
		if seen++; seen > shortScanCap {
			return nil, false, nil
		}
		if p.chatRowID == 0 || key>>chunkKeyBits == p.chatRowID {
			tf[key]++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("search: %w", err)
	}
	return tf, true, nil
}

// shortCandidates filters the messages that hold the query. The chunks
// index covers the look-up of each (no text is read); messages are joined
// only to bound indexes.
func shortCandidates(ctx context.Context, q queryer, p *searchPlan, tf map[int64]int) ([]scored, error) {
	if len(tf) == 0 {
		return nil, nil
	}
	keys := make([]int64, 0, len(tf))
	for key := range tf {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	list, _ := json.Marshal(keys)
	where, args := p.chunkFilters()
	join := ""
	if p.ranged() {
		rw, ra := p.rangeFilters()
		join, where, args = ` CROSS JOIN messages m ON m.id = c.message_id`, where+rw, append(args, ra...)
	}
	// CROSS JOIN keeps json_each outermost: it has no index to be searched by.
	rows, err := q.QueryContext(ctx, `
		SELECT c.message_id, c.chat_id, c.chars
		FROM json_each(?) j
		CROSS JOIN chunks c INDEXED BY chunks_by_chat
			ON c.chat_id = (j.value >> `+fmt.Sprint(chunkKeyBits)+`) AND c.message_id = (j.value & `+fmt.Sprint(chunkKeyMask)+`)`+join+`
		WHERE true`+where, append([]any{string(list)}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	found := make([]scored, 0, len(keys))
	for rows.Next() {
		var c scored
		if err := rows.Scan(&c.messageID, &c.chatRowID, &c.chars); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		c.tf = tf[c.chatRowID<<chunkKeyBits|c.messageID]
		found = append(found, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return found, nil
}

// scanShort answers a very common 1–2 character query by reading the
// text of the searched messages. It scores them as shortContexts does,
// with the distinct contexts of the query in each (foldedMatcher.contexts),
// so a message scores the same whichever way it was found.
func scanShort(ctx context.Context, q queryer, p *searchPlan) ([]scored, error) {
	where, args := p.filters()
	return readCandidates(ctx, q, p.matcher.contexts, `
		SELECT c.message_id, c.chat_id, c.chars, t.mes
		FROM chunks c JOIN messages m ON m.id = c.message_id
		CROSS JOIN message_swipes t ON t.id = c.swipe_row
		WHERE true`+where+chunkCurrent, args)
}

// readCandidates runs query, which selects the message id, chat id,
// length and text of candidates, and takes tf(text) as each one's term
// frequency. A candidate where it is 0 is left out: the index names
// messages that may hold the query, the text says which do.
func readCandidates(ctx context.Context, q queryer, tf func(string) int, query string, args []any) ([]scored, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var found []scored
	for rows.Next() {
		var c scored
		var body string
		if err := rows.Scan(&c.messageID, &c.chatRowID, &c.chars, &body); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if c.tf = tf(body); c.tf > 0 {
			found = append(found, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return found, nil
}

// scored is a candidate found, with its term frequency, ranked by rank.
type scored struct {
	messageID, chatRowID int64
	chars, tf            int
	score                float64
}

// placeHits fills in the current index, id and role of each hit.
func placeHits(ctx context.Context, q queryer, hits []rawHit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]string, len(hits))
	at := make(map[int64]int, len(hits))
	for i, h := range hits {
		ids[i] = fmt.Sprint(h.messageID)
		at[h.messageID] = i
	}
	rows, err := q.QueryContext(ctx, `SELECT m.id, m.idx, m.uuid, c.role FROM messages m JOIN chunks c ON c.message_id = m.id
		WHERE m.id IN (`+strings.Join(ids, ",")+`)`)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var index int
		var uuid, role string
		if err := rows.Scan(&id, &index, &uuid, &role); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		h := &hits[at[id]]
		h.index, h.id, h.role = index, uuid, role
	}
	return rows.Err()
}
