package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
)

// BM25's constants, as FTS5's bm25 uses them.
const bm25K1, bm25B = 1.2, 0.75

// bm25TF is the term-frequency part of BM25: a term frequency tf in a
// message of chars characters, against a mean length avg. tf is the
// query's occurrences in the text for 3+ characters, its distinct
// contexts for 1–2 (shortContexts). Every search reports it as the score. The other factor, the inverse document frequency, is the
// same for every hit of a one-phrase query, so it ranks nothing.
func bm25TF(tf, chars int, avg float64) float64 {
	f := float64(tf)
	return f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(chars)/avg))
}

// indexAverage is the mean length of the indexed messages, in trigrams
// (a message's length in characters: bodies are indexed with two padding
// characters), read from the averages record FTS5 keeps for bm25: row 1
// of chunks_fts_data, a varint row count then a varint token total. Each
// search uses it, so a message scores the same in a search of one chat and
// of all. It is 0 when the record is empty or unreadable (the caller falls
// back to its own candidates' mean).
func indexAverage(ctx context.Context, q queryer) (float64, error) {
	var block []byte
	err := q.QueryRowContext(ctx, `SELECT block FROM chunks_fts_data WHERE id = 1`).Scan(&block)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("search: %w", err)
	}
	rowCount, n := sqliteVarint(block)
	if n == 0 || rowCount <= 0 {
		return 0, nil
	}
	total, m := sqliteVarint(block[n:])
	if m == 0 || total <= 0 {
		return 0, nil
	}
	return float64(total) / float64(rowCount), nil
}

// sqliteVarint decodes SQLite's varint (1–9 bytes, big-endian, seven bits
// a byte with the high bit set on all but the last, and all eight bits of a
// ninth) and returns it with its length, or 0, 0 when b ends inside it.
func sqliteVarint(b []byte) (int64, int) {
	var v uint64
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return int64(v<<8 | uint64(b[i])), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return int64(v), i + 1
		}
	}
	return 0, 0
}

// meanLength is the mean of lengths, at least 1 (a divisor).
func meanLength(lengths []int) float64 {
	sum := 0
	for _, n := range lengths {
		sum += n
	}
	return math.Max(1, float64(sum)/float64(max(1, len(lengths))))
}

// rankFound scores the candidates a search found in their text (see rank)
// against the index's mean length.
func rankFound(ctx context.Context, q queryer, found []scored, limit int) ([]rawHit, error) {
	if len(found) == 0 {
		return nil, nil
	}
	avg, err := indexAverage(ctx, q)
	if err != nil {
		return nil, err
	}
	return rank(found, limit, avg), nil
}

// rank scores candidates with bm25TF, against avg (or, when avg is not
// positive, the candidates' mean length), and keeps the best limit (ties:
// older chat, then older message, first).
func rank(found []scored, limit int, avg float64) []rawHit {
	if len(found) == 0 {
		return nil
	}
	if avg <= 0 {
		chars := make([]int, len(found))
		for i, c := range found {
			chars[i] = c.chars
		}
		avg = meanLength(chars)
	}
	for i := range found {
		found[i].score = bm25TF(found[i].tf, found[i].chars, avg)
	}
	sort.Slice(found, func(i, j int) bool {
		a, c := found[i], found[j]
		if a.score != c.score {
			return a.score > c.score
		}
		if a.chatRowID != c.chatRowID {
			return a.chatRowID < c.chatRowID
		}
		return a.messageID < c.messageID
	})
	out := make([]rawHit, 0, min(limit, len(found)))
	for _, c := range found[:min(limit, len(found))] {
		out = append(out, rawHit{messageID: c.messageID, chatRowID: c.chatRowID, score: c.score})
	}
	return out
}
