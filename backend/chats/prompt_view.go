package chats

import (
	"context"
	"fmt"

	"hearth/backend/jsonx"
)

// PromptView is what a generation reads of a chat, from one snapshot: a
// reply is assembled against a single state of the chat even while other
// writes land.
type PromptView struct {
	ChatID   string
	Avatar   string // the owning character ("" for a group chat)
	GroupID  string // the owning group ("" for a character's chat)
	Metadata jsonx.Object
	Revision int64
	Count    int

	ctx context.Context
	q   queryer
	row *chatRow
}

// PromptMessage is the part of a message a prompt reads: the active
// swipe's text, who wrote it, and the extra keys that matter to a prompt
// (type, media, files, image), as raw JSON.
type PromptMessage struct {
	ID       string
	Name     string
	IsUser   bool
	IsSystem bool
	Mes      string
	Type     string
	Media    []byte
	Files    []byte
	Image    string
}

// PromptPage reads messages [start, end) as the prompt sees them. It
// reads only the active swipe and pulls the few extra keys out in SQL: a
// long context reaches hundreds of messages back, and their other swipes,
// swipe_info and reasoning are not part of a prompt.
func (v *PromptView) PromptPage(start, end int) ([]PromptMessage, error) {
	rows, err := v.q.QueryContext(v.ctx, `
		SELECT m.uuid, b.name, b.is_user, b.is_system, s.mes,
			coalesce(json_extract(b.extra, '$.type'), ''), json_extract(b.extra, '$.media'),
			json_extract(b.extra, '$.files'), coalesce(json_extract(b.extra, '$.image'), '')
		FROM messages m
		JOIN message_bodies b ON b.id = m.body_id
		JOIN message_swipes s ON s.body_id = m.body_id AND s.ord = b.swipe_id
		WHERE m.chat_id = ? AND m.idx >= ? AND m.idx < ?
		ORDER BY m.idx`, v.row.id, v.row.gaps.Pos(start), v.row.gaps.Pos(end))
	if err != nil {
		return nil, fmt.Errorf("read messages for a prompt: %w", err)
	}
	defer rows.Close()
	out := make([]PromptMessage, 0, end-start)
	for rows.Next() {
		var m PromptMessage
		var typ, image any
		if err := rows.Scan(&m.ID, &m.Name, &m.IsUser, &m.IsSystem, &m.Mes, &typ, &m.Media, &m.Files, &image); err != nil {
			return nil, fmt.Errorf("read messages for a prompt: %w", err)
		}
		m.Type, _ = typ.(string)
		m.Image, _ = image.(string)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read messages for a prompt: %w", err)
	}
	if len(out) != max(0, end-start) {
		return nil, fmt.Errorf("read messages for a prompt: %d of %d messages", len(out), end-start)
	}
	return out, nil
}

// TurnMessage is what a group turn reads of a message to decide who
// speaks (backend/groups.Message's fields).
type TurnMessage struct {
	ID       string
	Name     string
	IsUser   bool
	IsSystem bool
	// Narrator is extra.type "narrator".
	Narrator bool
	// Avatar is the message's original_avatar ("" when it has none).
	Avatar string
	Mes    string
}

// TurnTail reads the chat's newest messages, newest first, back to and
// including the newest user message, at most limit of them: what a group
// turn drafts from (the pooled strategy looks back to the last user
// message), without reading a long chat whole.
func (v *PromptView) TurnTail(limit int) ([]TurnMessage, error) {
	rows, err := v.q.QueryContext(v.ctx, `
		SELECT m.uuid, b.name, b.is_user, b.is_system, s.mes,
			coalesce(json_extract(b.extra, '$.type'), '') = 'narrator',
			coalesce(json_extract(b.fields, '$.original_avatar'), '')
		FROM messages m
		JOIN message_bodies b ON b.id = m.body_id
		JOIN message_swipes s ON s.body_id = m.body_id AND s.ord = b.swipe_id
		WHERE m.chat_id = ?
		ORDER BY m.idx DESC LIMIT ?`, v.row.id, limit)
	if err != nil {
		return nil, fmt.Errorf("read a group turn's messages: %w", err)
	}
	defer rows.Close()
	var out []TurnMessage
	for rows.Next() {
		var m TurnMessage
		var avatar any
		if err := rows.Scan(&m.ID, &m.Name, &m.IsUser, &m.IsSystem, &m.Mes, &m.Narrator, &avatar); err != nil {
			return nil, fmt.Errorf("read a group turn's messages: %w", err)
		}
		m.Avatar, _ = avatar.(string)
		out = append(out, m)
		if m.IsUser {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read a group turn's messages: %w", err)
	}
	return out, nil
}

// LastSpoken reads the newest messages a character wrote (no user's,
// system or narrator message), newest first, at most limit of them: who
// spoke last before the user did (a group's quiet generation speaks as
// them, as SillyTavern's activateSwipe finds them).
func (v *PromptView) LastSpoken(limit int) ([]TurnMessage, error) {
	rows, err := v.q.QueryContext(v.ctx, `
		SELECT m.uuid, b.name, s.mes, coalesce(json_extract(b.fields, '$.original_avatar'), '')
		FROM messages m
		JOIN message_bodies b ON b.id = m.body_id
		JOIN message_swipes s ON s.body_id = m.body_id AND s.ord = b.swipe_id
		WHERE m.chat_id = ? AND b.is_user = 0 AND b.is_system = 0
			AND coalesce(json_extract(b.extra, '$.type'), '') <> 'narrator'
		ORDER BY m.idx DESC LIMIT ?`, v.row.id, limit)
	if err != nil {
		return nil, fmt.Errorf("read who spoke last: %w", err)
	}
	defer rows.Close()
	var out []TurnMessage
	for rows.Next() {
		var m TurnMessage
		var avatar any
		if err := rows.Scan(&m.ID, &m.Name, &m.Mes, &avatar); err != nil {
			return nil, fmt.Errorf("read who spoke last: %w", err)
		}
		m.Avatar, _ = avatar.(string)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read who spoke last: %w", err)
	}
	return out, nil
}

// UserMessages counts the user's messages (an Author's Note with an
// interval counts them): a scan of the chat, so only asked for when needed.
func (v *PromptView) UserMessages() (int, error) {
	var n int
	err := v.q.QueryRowContext(v.ctx, `SELECT count(*) FROM messages m JOIN message_bodies b ON b.id = m.body_id
		WHERE m.chat_id = ? AND b.is_user = 1`, v.row.id).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count user messages: %w", err)
	}
	return n, nil
}

// ReadForPrompt calls fn with a view of chatID; the view is valid only
// inside fn.
func (s *Service) ReadForPrompt(ctx context.Context, chatID string, fn func(v *PromptView) error) error {
	return s.readSnapshot(ctx, chatID, func(q queryer, c *chatRow) error {
		v := &PromptView{ChatID: c.uuid, Metadata: c.metadata, Revision: c.revision, Count: c.messageCount, ctx: ctx, q: q, row: c}
		switch c.ownerKind {
		case "character":
			v.Avatar = c.owner
		case "group":
			v.GroupID = c.owner
		}
		return fn(v)
	})
}
