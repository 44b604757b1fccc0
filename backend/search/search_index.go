package search

import (
	"context"
	"fmt"
	"strings"
)

// The index's rowid is chat_id << chunkKeyBits | message_id (migration
// 0003), so a chat is the rowid range [chat << bits, (chat+1) << bits).
const (
	chunkKeyBits = 37
	chunkKeyMask = 1<<chunkKeyBits - 1
)

// ftsPhrase quotes a query as one FTS5 string: everything inside is
// literal text (no operators, columns, prefixes or NEAR groups).
func ftsPhrase(q string) string { return `"` + strings.ReplaceAll(q, `"`, `""`) + `"` }

// ftsMaxTrigrams bounds the trigrams a query asks the index for. A
// pasted paragraph of a thousand characters would otherwise read a
// thousand posting lists; a few dozen spread over it already leave few
// candidates, whose text is checked anyway.
const ftsMaxTrigrams = 32

// ftsTrigrams renders a query of 3+ characters as the FTS5 query for the
// messages holding each of its distinct trigrams (case-folded, as the
// tokenizer folds them), each quoted as one string and joined by AND. The
// index keeps no positions (migration 0026), so FTS5 cannot match them in
// sequence: the messages it names are candidates, whose text the caller
// checks for the query itself. Past ftsMaxTrigrams distinct trigrams, an
// evenly spread selection of them, the first and last included.
func ftsTrigrams(q string) string {
	r := []rune(q)
	seen := map[string]bool{}
	var parts []string
	for i := 0; i+3 <= len(r); i++ {
		t := string(r[i : i+3])
		if k := foldString(t); !seen[k] {
			seen[k] = true
			parts = append(parts, ftsPhrase(t))
		}
	}
	if n := len(parts); n > ftsMaxTrigrams {
		picked := make([]string, ftsMaxTrigrams)
		for i := range picked {
			picked[i] = parts[i*(n-1)/(ftsMaxTrigrams-1)]
		}
		parts = picked
	}
	return strings.Join(parts, " AND ")
}

// searchIndex answers a query of 3+ characters, in one chat or all. The
// index names the messages holding every trigram of the query; the chunks
// index covers their filters (no text read for a message filtered out),
// and the text of the others, read by their chunk's swipe_row, is checked
// for the case-folded query and its occurrences counted (foldedMatcher.count).
// They are ranked here (rank): each hit's score needs its own count, which
// FTS5 without positions does not keep.
func searchIndex(ctx context.Context, q queryer, p *searchPlan) ([]rawHit, error) {
	where, args := p.chunkFilters()
	join := ""
	if p.ranged() {
		rw, ra := p.rangeFilters()
		join, where, args = ` CROSS JOIN messages m ON m.id = c.message_id`, where+rw, append(args, ra...)
	}
	scope, head := "", []any{ftsTrigrams(p.query)}
	if p.chatRowID != 0 {
		lo, hi := keyRange(p.chatRowID)
		scope, head = ` AND f.rowid >= ? AND f.rowid < ?`, append(head, lo, hi)
	}
	found, err := readCandidates(ctx, q, p.matcher.count, `
		SELECT c.message_id, c.chat_id, c.chars, t.mes
		FROM chunks_fts f
		CROSS JOIN chunks c INDEXED BY chunks_by_chat
			ON c.chat_id = (f.rowid >> `+fmt.Sprint(chunkKeyBits)+`) AND c.message_id = (f.rowid & `+fmt.Sprint(chunkKeyMask)+`)`+join+`
		CROSS JOIN message_swipes t ON t.id = c.swipe_row
		WHERE chunks_fts MATCH ?`+scope+where+chunkCurrent, append(head, args...))
	if err != nil {
		return nil, err
	}
	hits, err := rankFound(ctx, q, found, p.limit)
	if err != nil {
		return nil, err
	}
	return hits, placeHits(ctx, q, hits)
}

// chunkCurrent leaves out of a search the messages queued for a chunk
// rebuild (chunks_pending) when it reads. A search rebuilds its chats'
// queue first, but a write can queue more before the search's read begins:
// such a chunk's swipe_row may name a swipe that no longer holds the
// message's text (another swipe now active, or the row removed and its
// rowid taken by another message's new swipe). The search then misses that
// message, as it misses text its index has not caught up with, and never
// shows text the message does not hold.
const chunkCurrent = ` AND c.message_id NOT IN (SELECT message_id FROM chunks_pending)`
