package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/internal/msgorder"
)

// Search limits (HOST-ABI §3.6; docs/API.md "Search").
const (
	searchDefaultLimit = 20
	searchMaxLimit     = 200
	// searchMaxQuery caps a query in characters: a literal substring longer
	// than a page is not a search, and each character is a trigram to match.
	searchMaxQuery = 1000
)

// Roles a search can filter on (ChatMessage.role).
var searchRoles = map[string]bool{"user": true, "assistant": true, "system": true}

// Options narrow a search. Nil pointers take the defaults.
type Options struct {
	// Limit is how many hits to return at most, 1–200 (default 20).
	Limit *int
	// Role keeps only messages of this role: user, assistant or system.
	Role *string
	// Start and End bound the message index (End exclusive), like a
	// getMessages range; only for a search of one chat.
	Start, End *int
	// IncludeHidden also finds retrieval-hidden messages (extra.hidden).
	IncludeHidden bool
}

// Hit is one message found, best first.
type Hit struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
	Role  string `json:"role"`
	// Snippet is plain text around the first match, about 100 characters,
	// whitespace runs collapsed, with … where it was cut.
	Snippet string `json:"snippet"`
	// Score is the relevance (BM25); higher is better. Only comparable
	// between hits of one search.
	Score float64 `json:"score"`
	// The chat of the hit, set by a search across all chats.
	ChatID   string  `json:"chatId,omitempty"`
	FileName string  `json:"fileName,omitempty"`
	Avatar   *string `json:"avatar,omitempty"`
	GroupID  *string `json:"groupId,omitempty"`
}

// searchPlan is a validated search.
type searchPlan struct {
	query         string // normalized: what the user typed, trimmed
	folded        string // query case-folded like the index
	runes         int    // characters in query
	matcher       *foldedMatcher
	chatRowID     int64         // 0: every chat
	start, end    int           // index bounds; end < 0: none
	gaps          msgorder.Gaps // a search of one chat: its gaps (bounds become positions)
	role          string
	includeHidden bool
	limit         int
}

// rawHit is a message found, before its snippet is cut.
type rawHit struct {
	messageID, chatRowID int64
	index                int
	id, role             string
	score                float64
	body                 string
}

// Search finds the messages of one chat whose active text contains query
// as a literal substring (case-insensitive, any script), best first.
func (s *Service) Search(ctx context.Context, chatID, query string, opts Options) ([]Hit, error) {
	p, err := newSearchPlan(query, opts)
	if err != nil {
		return nil, err
	}
	if p.chatRowID, err = chatRowID(ctx, s.db.Reader(), chatID); err != nil {
		return nil, err
	}
	return s.search(ctx, p)
}

// SearchAll is Search across every chat; each hit also names its chat.
func (s *Service) SearchAll(ctx context.Context, query string, opts Options) ([]Hit, error) {
	if opts.Start != nil || opts.End != nil {
		return nil, apperr.Invalid("start and end bound message indexes of one chat: give a chatId to use them")
	}
	p, err := newSearchPlan(query, opts)
	if err != nil {
		return nil, err
	}
	return s.search(ctx, p)
}

// chatRowID reads the row id of the chat with the public id chatID.
func chatRowID(ctx context.Context, q queryer, chatID string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM chats WHERE uuid = ?`, chatID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, apperr.New(apperr.CodeChatNotFound, "no chat with id %q", chatID).WithDetails(map[string]any{"chatId": chatID})
	}
	if err != nil {
		return 0, fmt.Errorf("search: read chat %s: %w", chatID, err)
	}
	return id, nil
}

// normalizeQuery trims the query and drops the characters that cannot
// match text: NUL, which the tokenizer skips, and the index's padding.
func normalizeQuery(query string) (string, error) {
	q := strings.Map(func(r rune) rune {
		if r == 0 || r == chunkPad {
			return -1
		}
		return r
	}, strings.ToValidUTF8(query, "\uFFFD"))
	q = strings.TrimFunc(q, unicode.IsSpace)
	if q == "" {
		return "", apperr.Invalid("query must not be empty")
	}
	if n := utf8.RuneCountInString(q); n > searchMaxQuery {
		return "", apperr.Invalid("query is %d characters long; the most is %d", n, searchMaxQuery).
			WithDetails(map[string]any{"length": n, "max": searchMaxQuery})
	}
	return q, nil
}

func newSearchPlan(query string, opts Options) (*searchPlan, error) {
	q, err := normalizeQuery(query)
	if err != nil {
		return nil, err
	}
	p := &searchPlan{query: q, folded: foldString(q), runes: utf8.RuneCountInString(q), end: -1,
		includeHidden: opts.IncludeHidden, limit: searchDefaultLimit}
	p.matcher = newFoldedMatcher(p.folded)
	if opts.Limit != nil {
		if *opts.Limit < 1 || *opts.Limit > searchMaxLimit {
			return nil, apperr.Invalid("limit must be an integer from 1 to %d (got %d)", searchMaxLimit, *opts.Limit)
		}
		p.limit = *opts.Limit
	}
	if opts.Role != nil {
		if !searchRoles[*opts.Role] {
			return nil, apperr.Invalid("role must be 'user', 'assistant' or 'system' (got %q)", *opts.Role)
		}
		p.role = *opts.Role
	}
	if opts.Start != nil {
		if *opts.Start < 0 {
			return nil, apperr.Invalid("start must not be negative (got %d)", *opts.Start)
		}
		p.start = *opts.Start
	}
	if opts.End != nil {
		if *opts.End < 0 {
			return nil, apperr.Invalid("end must not be negative (got %d)", *opts.End)
		}
		p.end = *opts.End
		if p.start > p.end {
			return nil, apperr.Invalid("start (%d) is after end (%d)", p.start, p.end)
		}
	}
	return p, nil
}

// search brings the chunks it reads up to date, then answers from one
// read snapshot: trigram index for queries of 3+ characters, the trigram
// vocabulary for 1–2 characters.
func (s *Service) search(ctx context.Context, p *searchPlan) ([]Hit, error) {
	if err := flushChunks(ctx, s.db, p.chatRowID); err != nil {
		return nil, err
	}
	tx, err := s.db.Reader().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("begin search: %w", err)
	}
	defer tx.Rollback()
	// One chat's gaps bound its range and place its hits; a search of
	// all chats reads the gaps of the chats it hit, once it has them.
	var gaps map[int64]msgorder.Gaps
	if p.chatRowID != 0 {
		if gaps, err = chatGaps(ctx, tx, []int64{p.chatRowID}); err != nil {
			return nil, err
		}
		p.gaps = gaps[p.chatRowID]
	}
	var hits []rawHit
	switch {
	case p.runes < 3:
		hits, err = searchShort(ctx, tx, p)
	default:
		hits, err = searchIndex(ctx, tx, p)
	}
	if err != nil {
		return nil, err
	}
	if err := loadBodies(ctx, tx, hits); err != nil {
		return nil, err
	}
	if gaps == nil {
		if gaps, err = chatGaps(ctx, tx, hitChats(hits)); err != nil {
			return nil, err
		}
	}
	for i := range hits {
		hits[i].index = gaps[hits[i].chatRowID].Index(hits[i].index)
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = Hit{Index: h.index, ID: h.id, Role: h.role, Score: h.score, Snippet: snippet(h.body, p.matcher)}
	}
	if p.chatRowID == 0 {
		if err := nameChats(ctx, tx, hits, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// filters renders the plan's row filters over chunks c and, when ranged,
// messages m.
func (p *searchPlan) filters() (string, []any) {
	where, args := p.chunkFilters()
	rw, ra := p.rangeFilters()
	return where + rw, append(args, ra...)
}

// ranged reports whether the plan bounds message indexes.
func (p *searchPlan) ranged() bool { return p.start > 0 || p.end >= 0 }

// chunkFilters renders the filters the chunks table alone answers.
func (p *searchPlan) chunkFilters() (string, []any) {
	var b strings.Builder
	var args []any
	if p.chatRowID != 0 {
		b.WriteString(` AND c.chat_id = ?`)
		args = append(args, p.chatRowID)
	}
	if !p.includeHidden {
		b.WriteString(` AND c.hidden = 0`)
	}
	if p.role != "" {
		b.WriteString(` AND c.role = ?`)
		args = append(args, p.role)
	}
	return b.String(), args
}

// rangeFilters renders the message index bounds over messages m.
func (p *searchPlan) rangeFilters() (string, []any) {
	var b strings.Builder
	var args []any
	if p.start > 0 {
		b.WriteString(` AND m.idx >= ?`)
		args = append(args, p.gaps.Pos(p.start))
	}
	if p.end >= 0 {
		b.WriteString(` AND m.idx < ?`)
		args = append(args, p.gaps.Pos(p.end))
	}
	return b.String(), args
}

// hitChats lists the chats of hits, each once.
func hitChats(hits []rawHit) []int64 {
	var ids []int64
	seen := map[int64]bool{}
	for _, h := range hits {
		if !seen[h.chatRowID] {
			seen[h.chatRowID] = true
			ids = append(ids, h.chatRowID)
		}
	}
	return ids
}

// chatGaps reads the gaps of chats (by row id) that have any.
func chatGaps(ctx context.Context, q queryer, ids []int64) (map[int64]msgorder.Gaps, error) {
	out := map[int64]msgorder.Gaps{}
	if len(ids) == 0 {
		return out, nil
	}
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = fmt.Sprint(id)
	}
	rows, err := q.QueryContext(ctx, `SELECT id, idx_gaps FROM chats WHERE id IN (`+strings.Join(list, ",")+`) AND idx_gaps != x''`)
	if err != nil {
		return nil, fmt.Errorf("search: read chats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var raw []byte
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, fmt.Errorf("search: read chats: %w", err)
		}
		if out[id], err = msgorder.Decode(raw); err != nil {
			return nil, fmt.Errorf("search: chat %d: %w", id, err)
		}
	}
	return out, rows.Err()
}

// loadBodies reads the text of the hits, for their snippets.
func loadBodies(ctx context.Context, q queryer, hits []rawHit) error {
	if len(hits) == 0 {
		return nil
	}
	need := make([]string, len(hits))
	at := make(map[int64]int, len(hits))
	for i, h := range hits {
		need[i] = fmt.Sprint(h.messageID)
		at[h.messageID] = i
	}
	rows, err := q.QueryContext(ctx, `SELECT message_id, body FROM chunk_source WHERE message_id IN (`+strings.Join(need, ",")+`)`)
	if err != nil {
		return fmt.Errorf("search: read text: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var body string
		if err := rows.Scan(&id, &body); err != nil {
			return fmt.Errorf("search: read text: %w", err)
		}
		hits[at[id]].body = body
	}
	return rows.Err()
}

// nameChats fills in the chat of each hit of a search across all chats.
func nameChats(ctx context.Context, q queryer, hits []rawHit, out []Hit) error {
	ids := map[int64]bool{}
	var list []string
	for _, h := range hits {
		if !ids[h.chatRowID] {
			ids[h.chatRowID] = true
			list = append(list, fmt.Sprint(h.chatRowID))
		}
	}
	if len(list) == 0 {
		return nil
	}
	sort.Strings(list)
	rows, err := q.QueryContext(ctx, `SELECT id, uuid, file_name, owner_kind, owner FROM chats WHERE id IN (`+strings.Join(list, ",")+`)`)
	if err != nil {
		return fmt.Errorf("search: read chats: %w", err)
	}
	defer rows.Close()
	type chatName struct{ uuid, fileName, kind, owner string }
	names := map[int64]chatName{}
	for rows.Next() {
		var id int64
		var c chatName
		if err := rows.Scan(&id, &c.uuid, &c.fileName, &c.kind, &c.owner); err != nil {
			return fmt.Errorf("search: read chats: %w", err)
		}
		names[id] = c
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: read chats: %w", err)
	}
	for i, h := range hits {
		c := names[h.chatRowID]
		out[i].ChatID, out[i].FileName = c.uuid, c.fileName
		owner := c.owner
		if c.kind == "group" {
			out[i].GroupID = &owner
		} else {
			out[i].Avatar = &owner
		}
	}
	return nil
}
