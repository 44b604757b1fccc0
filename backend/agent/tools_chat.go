package agent

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"hearth/backend/agent/skills"
	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/search"
)

// Bounds of chat.read_messages (AGENT.md §5).
const (
	maxReadMessages     = 20
	maxMessageChars     = 8000
	maxReadMessageChars = 20_000
	maxSearchHits       = 50
)

func (r *run) chatSearch(args json.RawMessage) (any, error) {
	var a struct {
		Query        string  `json:"query"`
		Limit        *int    `json:"limit"`
		Role         *string `json:"role"`
		StartMessage *int    `json:"start_message"`
		EndMessage   *int    `json:"end_message"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if a.Limit == nil || *a.Limit > maxSearchHits {
		n := 20
		if a.Limit != nil {
			n = maxSearchHits
		}
		a.Limit = &n
	}
	hits, err := r.svc.d.Search.Search(r.ctx, r.chatID, a.Query, search.Options{Limit: a.Limit, Role: a.Role, Start: a.StartMessage, End: a.EndMessage})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(hits))
	for i, h := range hits {
		out[i] = map[string]any{"index": h.Index, "role": h.Role, "snippet": h.Snippet}
	}
	return map[string]any{"hits": out}, nil
}

func (r *run) chatReadMessages(args json.RawMessage) (any, error) {
	var a struct {
		Messages []struct {
			Index     int `json:"index"`
			StartChar int `json:"start_char"`
			MaxChars  int `json:"max_chars"`
		} `json:"messages"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if len(a.Messages) == 0 || len(a.Messages) > maxReadMessages {
		return nil, apperr.Invalid("name 1 to %d messages", maxReadMessages)
	}
	budget := maxReadMessageChars
	out := make([]map[string]any, 0, len(a.Messages))
	for _, m := range a.Messages {
		if m.Index < 0 || m.StartChar < 0 {
			return nil, apperr.Invalid("index and start_char cannot be negative")
		}
		// Capped so an index of math.MaxInt reads as past the end (no
		// such message) rather than wrapping to a negative end.
		end := min(m.Index, math.MaxInt-1) + 1
		msgs, err := r.svc.d.Chats.Messages(r.ctx, r.chatID, &chats.Range{Start: &m.Index, End: &end})
		if err != nil {
			return nil, err
		}
		if len(msgs) == 0 {
			out = append(out, map[string]any{"index": m.Index, "error": "no message " + strconv.Itoa(m.Index)})
			continue
		}
		limit := m.MaxChars
		if limit <= 0 || limit > maxMessageChars {
			limit = maxMessageChars
		}
		limit = min(limit, budget)
		text, total := window(msgs[0].Content, m.StartChar, limit)
		budget -= utf8.RuneCountInString(text)
		out = append(out, map[string]any{
			"index": m.Index, "role": msgs[0].Role, "name": msgs[0].Name, "text": text,
			"start_char": m.StartChar, "total_chars": total, "more": m.StartChar+utf8.RuneCountInString(text) < total,
		})
		if budget <= 0 {
			break
		}
	}
	return map[string]any{"messages": out}, nil
}

// window returns up to n runes of s from rune start, and s's rune count.
func window(s string, start, n int) (string, int) {
	runes := []rune(s)
	if start >= len(runes) {
		return "", len(runes)
	}
	end := min(len(runes), start+n)
	return string(runes[start:end]), len(runes)
}

func (r *run) worldInfoRead(args json.RawMessage) (any, error) {
	var a struct {
		Entries []struct {
			Ref       string `json:"ref"`
			StartChar int    `json:"start_char"`
			MaxChars  int    `json:"max_chars"`
		} `json:"entries"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	var entries []ActivationEntry
	if r.snapshot.WorldInfoActivation != nil {
		entries = r.snapshot.WorldInfoActivation.Entries
	}
	if len(a.Entries) == 0 {
		list := make([]map[string]any, len(entries))
		for i, e := range entries {
			list[i] = map[string]any{"ref": activationRef(i, e), "world": e.World, "displayName": e.DisplayName,
				"constant": e.Constant, "position": e.Position, "chars": utf8.RuneCountInString(e.Content)}
		}
		return map[string]any{"entries": list}, nil
	}
	if len(a.Entries) > maxReadMessages {
		return nil, apperr.Invalid("name at most %d entries", maxReadMessages)
	}
	// The same budget as reading messages: the model names entries, and a
	// lorebook's entries may be long.
	budget := maxReadMessageChars
	out := make([]map[string]any, 0, len(a.Entries))
	for _, want := range a.Entries {
		if want.StartChar < 0 {
			return nil, apperr.Invalid("start_char cannot be negative")
		}
		if budget <= 0 {
			break
		}
		i, err := strconv.Atoi(strings.SplitN(want.Ref, ":", 2)[0])
		if err != nil || i < 0 || i >= len(entries) || activationRef(i, entries[i]) != want.Ref {
			out = append(out, map[string]any{"ref": want.Ref, "error": "no activated entry " + cut(want.Ref, 80)})
			continue
		}
		limit := want.MaxChars
		if limit <= 0 || limit > maxMessageChars {
			limit = maxMessageChars
		}
		text, total := window(entries[i].Content, want.StartChar, min(limit, budget))
		budget -= utf8.RuneCountInString(text)
		out = append(out, map[string]any{"ref": want.Ref, "displayName": entries[i].DisplayName, "text": text,
			"start_char": want.StartChar, "total_chars": total, "more": want.StartChar+utf8.RuneCountInString(text) < total})
	}
	return map[string]any{"entries": out}, nil
}

// skillFilter is the profile's view of the skill library.
func (r *run) skillFilter() skills.Filter {
	return skills.Filter{Visible: r.prof.Skills.Visible, Deny: r.prof.Skills.Deny}
}

func (r *run) skillList(args json.RawMessage) (any, error) {
	if err := decode(args, &struct{}{}); err != nil {
		return nil, err
	}
	list, _, err := r.svc.d.Skills.List(r.skillFilter())
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(list))
	for i, s := range list {
		out[i] = map[string]any{"name": s.Name, "description": s.Description}
	}
	return map[string]any{"skills": out}, nil
}

func (r *run) skillSearch(args json.RawMessage) (any, error) {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	hits, err := r.svc.d.Skills.Search(a.Query, r.skillFilter(), a.Limit)
	if err != nil {
		return nil, err
	}
	return map[string]any{"hits": hits}, nil
}

func (r *run) skillRead(args json.RawMessage) (any, error) {
	var a struct {
		Name      string `json:"name"`
		StartChar int    `json:"start_char"`
		MaxChars  int    `json:"max_chars"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	t, err := r.svc.d.Skills.ReadWithin(r.budget, a.Name, r.skillFilter(), a.StartChar, a.MaxChars)
	if err != nil {
		return nil, err
	}
	return t, nil
}
