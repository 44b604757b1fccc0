package chats

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// The index's rowid is chat_id << chunkKeyBits | message_id (migration
// 0003), so a chat is the rowid range [chat << bits, (chat+1) << bits).
const (
	chunkKeyBits = 37
	chunkKeyMask = 1<<chunkKeyBits - 1
)

// ftsPhrase quotes a query as one FTS5 string: everything inside is
// literal text (no operators, columns, prefixes or NEAR groups), and the
// trigram tokenizer turns it into the consecutive trigrams of a substring.
func ftsPhrase(q string) string { return `"` + strings.ReplaceAll(q, `"`, `""`) + `"` }

// searchIndex answers a query of 3+ characters from the trigram index.
// ORDER BY rank lets FTS5 hand rows over best first (its BM25), so the
// joins and filters stop at limit. The rank column itself is not read:
// reading it on this cursor would run bm25 again, with a second count of
// the query's matches in every chat (a third of the search's time). The
// hits are scored here instead (bm25TF: the same order, since the count
// only scales every score of a one-phrase query alike), and kept in score
// order should the two ever disagree.
func searchIndex(ctx context.Context, q queryer, p *searchPlan) ([]hit, error) {
	where, args := p.filters()
	args = append([]any{ftsPhrase(p.query)}, args...)
	scope := ""
	if p.chatRowID != 0 {
		scope = ` AND f.rowid >= ? AND f.rowid < ?`
		args = append([]any{args[0], p.chatRowID << chunkKeyBits, (p.chatRowID + 1) << chunkKeyBits}, args[1:]...)
	}
	args = append(args, p.limit)
	rows, err := q.QueryContext(ctx, `
		SELECT c.message_id, c.chat_id, m.idx, m.uuid, c.role, c.chars, c.body
		FROM chunks_fts f
		JOIN chunks c ON c.message_id = (f.rowid & `+fmt.Sprint(chunkKeyMask)+`) AND c.chat_id = (f.rowid >> `+fmt.Sprint(chunkKeyBits)+`)
		JOIN messages m ON m.id = c.message_id
		WHERE chunks_fts MATCH ?`+scope+where+`
		ORDER BY f.rank LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var out []hit
	var chars []int
	for rows.Next() {
		var h hit
		var n int
		if err := rows.Scan(&h.messageID, &h.chatRowID, &h.index, &h.id, &h.role, &n, &h.body); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		h.haveBody = true
		out = append(out, h)
		chars = append(chars, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, scoreHits(ctx, q, p, out, chars)
}

// scoreHits scores the hits FTS5 ranked (their texts and lengths in
// hand) with bm25TF, then sorts them by score, stably: FTS5's order stays
// where the scores agree with it.
func scoreHits(ctx context.Context, q queryer, p *searchPlan, hits []hit, chars []int) error {
	if len(hits) == 0 {
		return nil
	}
	avg, err := indexAverage(ctx, q)
	if err != nil {
		return err
	}
	if avg <= 0 {
		avg = meanLength(chars)
	}
	for i := range hits {
		// The index found the phrase there: it counts at least once.
		hits[i].score = bm25TF(max(1, p.matcher.count(hits[i].body)), chars[i], avg)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	return nil
}

// searchChatIndex answers a query of 3+ characters in one chat. FTS5's
// bm25 would first count the query's matches in every chat (its inverse
// document frequency, which ranks nothing in a one-phrase query), so a
// search of one chat would cost what all chats hold. The chat's matches
// are ranked here instead, as a short query's are (see rank).
func searchChatIndex(ctx context.Context, q queryer, p *searchPlan) ([]hit, error) {
	where, args := p.chunkFilters()
	join := ""
	if p.ranged() {
		rw, ra := p.rangeFilters()
		join, where, args = ` CROSS JOIN messages m ON m.id = c.message_id`, where+rw, append(args, ra...)
	}
	args = append([]any{ftsPhrase(p.query), p.chatRowID << chunkKeyBits, (p.chatRowID + 1) << chunkKeyBits}, args...)
	found, err := countOccurrences(ctx, q, p, `
		SELECT c.message_id, c.chat_id, c.chars, c.body
		FROM chunks_fts f
		CROSS JOIN chunks c ON c.message_id = (f.rowid & `+fmt.Sprint(chunkKeyMask)+`) AND c.chat_id = (f.rowid >> `+fmt.Sprint(chunkKeyBits)+`)`+join+`
		WHERE chunks_fts MATCH ? AND f.rowid >= ? AND f.rowid < ?`+where, args, true)
	if err != nil {
		return nil, err
	}
	hits, err := rankFound(ctx, q, found, p.limit)
	if err != nil {
		return nil, err
	}
	return hits, placeHits(ctx, q, hits)
}
