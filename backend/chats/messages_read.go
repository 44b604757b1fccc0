package chats

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"

	"hearth/backend/apperr"
)

// Range selects messages by whole-chat index. Exactly one form is used:
// {start, end} (end exclusive), {tail}, or {before, limit}. Bounds past the
// end of the chat read up to the end, like Array.prototype.slice; negative
// numbers and start > end are errors.
type Range struct {
	Start  *int `json:"start"`
	End    *int `json:"end"`
	Tail   *int `json:"tail"`
	Before *int `json:"before"`
	Limit  *int `json:"limit"`
}

// bounds resolves r against a chat of length n.
func (r *Range) bounds(n int) (int, int, error) {
	if r == nil {
		return 0, n, nil
	}
	forms := 0
	if r.Start != nil || r.End != nil {
		forms++
	}
	if r.Tail != nil {
		forms++
	}
	if r.Before != nil || r.Limit != nil {
		forms++
	}
	if forms > 1 {
		return 0, 0, apperr.Invalid("range takes one of {start, end}, {tail} or {before, limit}")
	}
	nonNeg := func(p *int, name string) error {
		if p != nil && *p < 0 {
			return apperr.New(apperr.CodeIndexOutOfRange, "range.%s must not be negative (got %d)", name, *p).
				WithDetails(map[string]any{name: *p, "length": n})
		}
		return nil
	}
	for _, f := range []struct {
		p    *int
		name string
	}{{r.Start, "start"}, {r.End, "end"}, {r.Tail, "tail"}, {r.Before, "before"}, {r.Limit, "limit"}} {
		if err := nonNeg(f.p, f.name); err != nil {
			return 0, 0, err
		}
	}
	switch {
	case r.Tail != nil:
		return max(0, n-*r.Tail), n, nil
	case r.Before != nil || r.Limit != nil:
		if r.Before == nil || r.Limit == nil {
			return 0, 0, apperr.Invalid("range {before, limit} needs both")
		}
		end := min(*r.Before, n)
		return max(0, end-*r.Limit), end, nil
	default:
		// A reversed range is refused as given, before either end is cut
		// to the chat's length, so the answer does not depend on how long
		// the chat is (chat.search's start and end do the same).
		if r.Start != nil && r.End != nil && *r.Start > *r.End {
			return 0, 0, apperr.Invalid("range.start (%d) is after range.end (%d)", *r.Start, *r.End).
				WithDetails(map[string]any{"start": *r.Start, "end": *r.End})
		}
		start, end := 0, n
		if r.Start != nil {
			start = min(*r.Start, n)
		}
		if r.End != nil {
			end = min(*r.End, n)
		}
		return start, end, nil
	}
}

// readSnapshot runs fn in a read transaction so the chat row and its
// messages come from one consistent snapshot.
func (s *Service) readSnapshot(ctx context.Context, chatID string, fn func(q queryer, c *chatRow) error) error {
	tx, err := s.db.Reader().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	c, err := loadChat(ctx, tx, chatID)
	if err != nil {
		return err
	}
	return fn(tx, c)
}

// StMessages returns SillyTavern message objects of a chat in r.
func (s *Service) StMessages(ctx context.Context, chatID string, r *Range) ([]*StMessage, error) {
	var out []*StMessage
	err := s.readSnapshot(ctx, chatID, func(q queryer, c *chatRow) error {
		start, end, err := r.bounds(c.messageCount)
		if err != nil {
			return err
		}
		got, err := loadRange(ctx, q, c, start, end)
		if err != nil {
			return err
		}
		out = make([]*StMessage, len(got))
		for i, sm := range got {
			out[i] = sm.msg
		}
		return nil
	})
	return out, err
}

// StMessagesJSON is StMessages already encoded as a JSON array, built
// straight from the stored rows: the whole-chat read path.
func (s *Service) StMessagesJSON(ctx context.Context, chatID string, r *Range) (json.RawMessage, error) {
	var out []byte
	err := s.readSnapshot(ctx, chatID, func(q queryer, c *chatRow) error {
		start, end, err := r.bounds(c.messageCount)
		if err != nil {
			return err
		}
		// Most of a chat's bytes are its message rows; size the buffer once.
		buf := make([]byte, 0, int64(float64(c.bytes)*float64(end-start)/float64(max(1, c.messageCount)))+64)
		out, err = appendRangeJSON(ctx, q, c, start, end, buf, nil)
		return err
	})
	return out, err
}

// WriteStMessagesJSON writes StMessagesJSON's array to w in pieces of
// about spillAt bytes, inside one read snapshot: a transport that sends a
// result as it is made never holds a whole chat in memory. An unknown chat
// or a bad range fails before anything is written.
func (s *Service) WriteStMessagesJSON(ctx context.Context, chatID string, r *Range, w io.Writer) error {
	return s.readSnapshot(ctx, chatID, func(q queryer, c *chatRow) error {
		start, end, err := r.bounds(c.messageCount)
		if err != nil {
			return err
		}
		spill := func(b []byte) ([]byte, error) {
			_, err := w.Write(b)
			return b[:0], err
		}
		b, err := appendRangeJSON(ctx, q, c, start, end, make([]byte, 0, spillAt+spillAt/4), spill)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
}

// Messages returns the id-based (Spindle) view of a chat's messages in r.
func (s *Service) Messages(ctx context.Context, chatID string, r *Range) ([]*ChatMessage, error) {
	st, err := s.StMessages(ctx, chatID, r)
	if err != nil {
		return nil, err
	}
	out := make([]*ChatMessage, len(st))
	for i, m := range st {
		out[i] = toChatMessage(m)
	}
	return out, nil
}

// Count returns the number of messages in a chat.
func (s *Service) Count(ctx context.Context, chatID string) (int, error) {
	c, err := loadChat(ctx, s.db.Reader(), chatID)
	if err != nil {
		return 0, err
	}
	return c.messageCount, nil
}
