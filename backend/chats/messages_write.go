package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
)

// defaultNamer names messages that arrive without a name: users get the
// name of the persona in effect in the chat, others the chat character's.
func (s *Service) defaultNamer(ctx context.Context, c *chatRow) func(bool) string {
	var user, char *string
	return func(isUser bool) string {
		if isUser {
			if user == nil {
				n := s.userName(ctx, c.uuid)
				user = &n
			}
			return *user
		}
		if char == nil {
			n := "Assistant"
			if c.ownerKind == "character" {
				if card, err := s.chars.Get(ctx, c.owner); err == nil {
					n = card.Name()
				}
			}
			char = &n
		}
		return *char
	}
}

// addPrepared appends already-validated messages inside m and queues
// MESSAGE_SENT (user) or MESSAGE_RECEIVED (others) for each.
func addPrepared(ctx context.Context, m *mutation, msgs []*StMessage) ([]int, error) {
	out := make([]int, len(msgs))
	for i, msg := range msgs {
		index := m.chat.messageCount
		if _, err := m.appendRow(ctx, msg); err != nil {
			return nil, err
		}
		m.chat.messageCount++
		m.recordAdd(index, msg.mustJSON())
		out[i] = index
		payload := messagePayload(index, msg)
		if msg.IsUser {
			m.emit(events.MessageSent, &payload)
		} else {
			m.emit(events.MessageReceived, &events.MessageReceivedPayload{MessagePayload: payload, Type: "normal"})
		}
	}
	return out, nil
}

// MaxMessagesPerCall bounds addMessages and updateMessages. Each message of
// a call costs the one transaction kilobytes of working memory whatever its
// size, and a message event: 200,000 tiny ones (a few MiB of request) took
// 1.4 GiB and half a minute to add, holding every other write back. Larger
// work goes in several calls, or through importJsonl. deleteMessages needs
// no cap: it cannot name more messages than the chat holds.
const MaxMessagesPerCall = 10000

// CheckMessageCount refuses a call naming more than MaxMessagesPerCall
// messages (what: "messages", "updates"), before anything is decoded.
func CheckMessageCount(n int, what string) error {
	if n > MaxMessagesPerCall {
		return apperr.New(apperr.CodeTooMany, "at most %d %s per call, got %d: split them into several calls", MaxMessagesPerCall, what, n).
			WithDetails(map[string]any{"max": MaxMessagesPerCall, "got": n})
	}
	return nil
}

// AddMessages appends messages (SillyTavern objects) in one transaction and
// returns their indexes.
func (s *Service) AddMessages(ctx context.Context, chatID string, raws []json.RawMessage, opts WriteOptions) ([]int, error) {
	if err := CheckMessageCount(len(raws), "messages"); err != nil {
		return nil, err
	}
	var out []int
	_, err := s.mutate(ctx, chatID, "addMessages", opts, func(m *mutation) error {
		namer := s.defaultNamer(ctx, m.chat)
		now := s.now()
		msgs := make([]*StMessage, len(raws))
		for i, raw := range raws {
			label := "message"
			if len(raws) > 1 {
				label = "messages[" + strconv.Itoa(i) + "]"
			}
			msg, err := decodeNewMessage(raw, label, namer, now)
			if err != nil {
				return err
			}
			msgs[i] = msg
		}
		var err error
		out, err = addPrepared(ctx, m, msgs)
		return err
	})
	return out, err
}

// Update is one entry of updateMessages.
type Update struct {
	Index int
	Patch jsonx.Object
}

// UpdateMessages shallow-merges each patch into its message (SillyTavern
// semantics; `mes` also sets the active swipe), all in one transaction.
func (s *Service) UpdateMessages(ctx context.Context, chatID string, updates []Update, opts WriteOptions) error {
	if err := CheckMessageCount(len(updates), "updates"); err != nil {
		return err
	}
	_, err := s.mutate(ctx, chatID, "updateMessages", opts, func(m *mutation) error {
		now := s.now()
		current := map[int]storedMessage{}
		for i, u := range updates {
			label := "patch"
			if len(updates) > 1 {
				label = "updates[" + strconv.Itoa(i) + "].patch"
			}
			sm, ok := current[u.Index]
			if !ok {
				var err error
				if sm, err = loadAt(ctx, m.tx, m.chat, u.Index); err != nil {
					return err
				}
			}
			next, err := applyStPatch(sm.msg, u.Patch, label, now)
			if err != nil {
				return err
			}
			if err := s.commitRewrite(ctx, m, sm, next); err != nil {
				return err
			}
			current[u.Index] = storedMessage{rowID: sm.rowID, index: sm.index, msg: next}
		}
		return nil
	})
	return err
}

// commitRewrite stores next over sm and journals it; an identical message
// records nothing. It queues MESSAGE_EDITED and MESSAGE_UPDATED.
func (s *Service) commitRewrite(ctx context.Context, m *mutation, sm storedMessage, next *StMessage) error {
	changed, err := s.rewrite(ctx, m, sm, next)
	if err != nil || !changed {
		return err
	}
	edited, updated := messagePayload(sm.index, next), messagePayload(sm.index, next)
	m.emit(events.MessageEdited, &edited)
	m.emit(events.MessageUpdated, &updated)
	return nil
}

// rewrite stores next over sm and journals the diff, reporting whether
// anything changed.
func (s *Service) rewrite(ctx context.Context, m *mutation, sm storedMessage, next *StMessage) (bool, error) {
	changed, err := m.recordReplace(sm.index, sm.json(), next.mustJSON())
	if err != nil || !changed {
		return false, err
	}
	if err := m.rewriteRow(ctx, sm.rowID, sm.msg, next); err != nil {
		return false, err
	}
	return true, nil
}

// DeleteOptions select a single swipe to delete instead of the message.
type DeleteOptions struct {
	WriteOptions
	Swipe *int
}

// DeleteMessages removes messages by index (indexes refer to the chat before
// the call) and returns them in the order asked. With opts.Swipe, only that
// swipe of the single given message goes.
func (s *Service) DeleteMessages(ctx context.Context, chatID string, indexes []int, opts DeleteOptions) ([]*StMessage, error) {
	if opts.Swipe != nil {
		if len(indexes) != 1 {
			return nil, apperr.Invalid("the swipe option takes exactly one message index")
		}
		msg, _, err := s.DeleteSwipe(ctx, chatID, indexes[0], *opts.Swipe, opts.WriteOptions)
		if err != nil {
			return nil, err
		}
		return []*StMessage{msg}, nil
	}
	seen := map[int]bool{}
	for _, i := range indexes {
		if seen[i] {
			return nil, apperr.Invalid("index %d is listed twice", i)
		}
		seen[i] = true
	}
	var out []*StMessage
	_, err := s.mutate(ctx, chatID, "deleteMessages", opts.WriteOptions, func(m *mutation) error {
		var err error
		out, err = deleteIndexes(ctx, m, indexes)
		return err
	})
	return out, err
}

// deleteIndexes removes the messages at indexes inside m, queues one
// MESSAGE_DELETED with the new length, and returns the removed messages in
// the order given.
// loadGap is how many messages between two wanted ones loadIndexes reads
// rather than start another query: a query costs about as much as
// decoding a few messages.
const loadGap = 8

// loadIndexes reads the messages at sorted, distinct, in-range indexes,
// a run of nearby ones per query (deleting thousands of messages must not
// cost a query each).
func loadIndexes(ctx context.Context, q queryer, chat *chatRow, sorted []int) (map[int]storedMessage, error) {
	out := make(map[int]storedMessage, len(sorted))
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j]-sorted[j-1] <= loadGap {
			j++
		}
		first, end := sorted[i], sorted[j-1]+1
		got, err := loadRange(ctx, q, chat, first, end)
		if err != nil {
			return nil, err
		}
		if len(got) != end-first {
			return nil, fmt.Errorf("chat %s: %d rows at indexes %d to %d", chat.uuid, len(got), first, end-1)
		}
		// Indexes are dense: the row at idx is got[idx-first].
		for _, idx := range sorted[i:j] {
			out[idx] = got[idx-first]
		}
		i = j
	}
	return out, nil
}

func deleteIndexes(ctx context.Context, m *mutation, indexes []int) ([]*StMessage, error) {
	if len(indexes) == 0 {
		return []*StMessage{}, nil
	}
	for _, i := range indexes {
		if err := checkIndex(i, m.chat.messageCount); err != nil {
			return nil, err
		}
	}
	sorted := append([]int(nil), indexes...)
	sort.Ints(sorted)
	byIndex, err := loadIndexes(ctx, m.tx, m.chat, sorted)
	if err != nil {
		return nil, err
	}
	rowIDs := make([]int64, len(sorted))
	for i, idx := range sorted {
		rowIDs[i] = byIndex[idx].rowID
	}
	if err := deleteRows(ctx, m.tx, m.chat, rowIDs, sorted); err != nil {
		return nil, err
	}
	m.after.structural = true
	// Journal removals from the highest index down so every path is valid
	// against the document as the previous op left it.
	for i := len(sorted) - 1; i >= 0; i-- {
		m.recordRemove(sorted[i], byIndex[sorted[i]].msg.mustJSON())
	}
	m.chat.messageCount -= len(sorted)
	out := make([]*StMessage, len(indexes))
	deleted := make([]events.DeletedMessage, len(sorted))
	for i, idx := range indexes {
		out[i] = byIndex[idx].msg
	}
	for i, idx := range sorted {
		deleted[i] = events.DeletedMessage{Index: idx, ID: byIndex[idx].msg.ID}
	}
	m.emit(events.MessageDeleted, &events.MessageDeletedPayload{Length: m.chat.messageCount, Deleted: deleted})
	return out, nil
}
