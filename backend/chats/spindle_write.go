package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
)

// AppendInput is appendMessage's message.
type AppendInput struct {
	Role     string          `json:"role"`
	Content  *string         `json:"content"`
	Metadata json.RawMessage `json:"metadata"`
	Name     *string         `json:"name"`
	Extra    json.RawMessage `json:"extra"`
}

// Appended is appendMessage's result.
type Appended struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
}

// AppendMessage adds a message from a role (Spindle semantics): user
// messages carry the persona's name, assistant messages the character's,
// system messages are narrator messages named "System".
func (s *Service) AppendMessage(ctx context.Context, chatID string, in AppendInput, opts WriteOptions) (*Appended, error) {
	if in.Content == nil {
		return nil, apperr.Invalid("content is required and must be a string")
	}
	extra := jsonx.Object{}
	if !jsonx.IsNull(in.Extra) {
		var err error
		if extra, err = jsonx.DecodeObject(in.Extra, "extra"); err != nil {
			return nil, err
		}
	}
	if err := checkAppendType(in.Role, extra); err != nil {
		return nil, err
	}
	if !jsonx.IsNull(in.Metadata) {
		meta, err := jsonx.DecodeObject(in.Metadata, "metadata")
		if err != nil {
			return nil, err
		}
		extra["spindle_metadata"], _ = meta.MarshalJSON()
	}
	var out Appended
	_, err := s.mutate(ctx, chatID, "appendMessage", opts, func(m *mutation) error {
		msg := &StMessage{Swipes: []string{*in.Content}, Extra: extra, Fields: jsonx.Object{"send_date": isoTime(s.now())}}
		namer := s.defaultNamer(ctx, m.chat)
		switch in.Role {
		case "user":
			msg.IsUser, msg.Name = true, namer(true)
		case "assistant":
			msg.Name = namer(false)
		case "system":
			msg.Name = "System"
			msg.Extra["type"] = jsonx.Raw("narrator")
		default:
			return apperr.Invalid("role must be 'user', 'assistant' or 'system', got %q", in.Role)
		}
		if in.Name != nil {
			msg.Name = *in.Name
		}
		alignSwipeInfo(msg, s.now())
		mirrorActive(msg)
		idx, err := addPrepared(ctx, m, []*StMessage{msg})
		if err != nil {
			return err
		}
		out = Appended{ID: msg.ID, Index: idx[0]}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// checkAppendType refuses an extra.type that contradicts role: the role is
// read back from is_user and extra.type (narrator is system), so an
// assistant or user message typed narrator would not read back as what was
// asked, and a system message's type is narrator, not the caller's.
func checkAppendType(role string, extra jsonx.Object) error {
	raw, ok := extra["type"]
	if !ok {
		return nil
	}
	var t string
	narrator := json.Unmarshal(raw, &t) == nil && t == "narrator"
	if narrator == (role == "system") {
		return nil
	}
	if len(raw) > 40 {
		raw = append(raw[:40:40], "…"...)
	}
	return apperr.Invalid("extra.type %s contradicts role %q (role 'system' is what makes a narrator message)", raw, role).
		WithDetails(map[string]any{"field": "extra.type"})
}

// spindlePatchKeys are the keys updateMessage understands.
var spindlePatchKeys = map[string]bool{
	"content": true, "metadata": true, "swipes": true, "swipe_id": true, "swipe_dates": true,
	"reasoning": true, "skipChunkRebuild": true,
}

// UpdateMessage edits a message by id with Spindle's precedence rules:
// content wins over swipes; swipes alone re-derive the content; swipe_id
// alone navigates; swipe_dates auto-align when swipes are rewritten;
// reasoning text and duration are independent; metadata replaces as a whole.
func (s *Service) UpdateMessage(ctx context.Context, chatID, messageID string, patch jsonx.Object) error {
	if err := checkSpindlePatch(patch); err != nil {
		return err
	}
	_, err := s.mutate(ctx, chatID, "updateMessage", WriteOptions{}, func(m *mutation) error {
		sm, err := loadByID(ctx, m.tx, m.chat, messageID)
		if err != nil {
			return err
		}
		next, err := applySpindlePatch(sm.msg, patch, s.now())
		if err != nil {
			return err
		}
		if raw, ok := patch["skipChunkRebuild"]; ok {
			m.after.skipChunks, _ = jsonx.Bool(raw, "skipChunkRebuild") // validated by checkSpindlePatch
		}
		changed, err := s.rewrite(ctx, m, sm, next)
		if err != nil || !changed {
			return err
		}
		edited := messagePayload(sm.index, next)
		m.emit(events.MessageEdited, &edited)
		_, sw := patch["swipes"]
		_, id := patch["swipe_id"]
		_, dates := patch["swipe_dates"]
		if sw || id || dates {
			m.emit(events.SwipeEdited, &events.SwipeEditedPayload{MessagePayload: messagePayload(sm.index, next), PreviousSwipeID: sm.msg.SwipeID})
		}
		return nil
	})
	return err
}

func checkSpindlePatch(patch jsonx.Object) error {
	for k := range patch {
		if !spindlePatchKeys[k] {
			return apperr.Invalid("unknown updateMessage field %q (allowed: content, metadata, swipes, swipe_id, swipe_dates, reasoning, skipChunkRebuild)", k)
		}
	}
	if v, ok := patch["skipChunkRebuild"]; ok {
		if _, err := jsonx.Bool(v, "skipChunkRebuild"); err != nil {
			return err
		}
	}
	return nil
}

// applySpindlePatch returns cur with patch applied, or the validation error
// that leaves the message untouched.
func applySpindlePatch(cur *StMessage, patch jsonx.Object, now time.Time) (*StMessage, error) {
	next := cur.Clone()
	rawSwipes, hasSwipes := patch["swipes"]
	rawDates, hasDates := patch["swipe_dates"]
	to := next.SwipeID
	if raw, ok := patch["swipe_id"]; ok {
		var err error
		if to, err = jsonx.Int(raw, "swipe_id"); err != nil {
			return nil, err
		}
	}
	if hasSwipes {
		ss, err := jsonx.StrictStrings(rawSwipes, "swipes")
		if err != nil {
			return nil, err
		}
		if len(ss) == 0 {
			return nil, apperr.Invalid("swipes must not be empty")
		}
		if to != next.SwipeID && next.SwipeID < len(ss) {
			// The leaving swipe survives the rewrite: it keeps its
			// per-swipe data, as navigate would save it.
			mirrorActive(next)
		}
		next.Swipes = ss
		alignSwipeInfo(next, now)
	}
	var dates []json.RawMessage
	if hasDates {
		var nums []json.RawMessage
		if err := json.Unmarshal(rawDates, &nums); err != nil || jsonx.IsNull(rawDates) {
			return nil, apperr.Invalid("swipe_dates must be an array of numbers (unix seconds)")
		}
		if len(nums) != len(next.Swipes) {
			return nil, apperr.Invalid("swipes has %d entries but swipe_dates has %d", len(next.Swipes), len(nums)).
				WithDetails(map[string]any{"swipes": len(next.Swipes), "swipe_dates": len(nums)})
		}
		alignSwipeInfo(next, now)
		dates = make([]json.RawMessage, len(nums))
		for i, n := range nums {
			ms, err := swipeDateMillis(n, i)
			if err != nil {
				return nil, err
			}
			dates[i] = isoTime(time.UnixMilli(ms))
		}
	}
	if err := checkSwipe(to, len(next.Swipes)); err != nil {
		return nil, err
	}
	if to != next.SwipeID {
		// The active swipe's data was saved above (or went with its
		// swipe when the rewrite dropped it); the arriving swipe's
		// becomes the message's.
		if hasSwipes {
			arriveAt(next, to)
		} else {
			navigate(next, to)
		}
	}
	for i, d := range dates {
		// Dates go in after navigation, so the leaving swipe's saved date
		// does not overwrite its given one; the active swipe's date is
		// also the message's, which the swipe_info mirror reads from.
		info := next.SwipeInfo[i].Clone()
		info["send_date"] = d
		next.SwipeInfo[i] = info
		if i == next.SwipeID {
			next.Fields["send_date"] = d
		}
	}
	if raw, ok := patch["content"]; ok {
		text, err := jsonx.String(raw, "content")
		if err != nil {
			return nil, err
		}
		next.Swipes[next.SwipeID] = text
	}
	touchedExtra := false
	if raw, ok := patch["metadata"]; ok {
		if jsonx.IsNull(raw) {
			delete(next.Extra, "spindle_metadata")
		} else {
			meta, err := jsonx.DecodeObject(raw, "metadata")
			if err != nil {
				return nil, err
			}
			next.Extra["spindle_metadata"], _ = meta.MarshalJSON()
		}
	}
	if raw, ok := patch["reasoning"]; ok {
		r, err := jsonx.DecodeObject(raw, "reasoning")
		if err != nil {
			return nil, err
		}
		for k := range r {
			if k != "text" && k != "duration" {
				return nil, apperr.Invalid("unknown reasoning field %q (allowed: text, duration)", k).
					WithDetails(map[string]any{"field": "reasoning." + k})
			}
		}
		if v, ok := r["text"]; ok {
			if jsonx.IsNull(v) {
				delete(next.Extra, "reasoning")
			} else if _, err := jsonx.String(v, "reasoning.text"); err != nil {
				return nil, err
			} else {
				next.Extra["reasoning"] = v
			}
		}
		if v, ok := r["duration"]; ok {
			if jsonx.IsNull(v) {
				delete(next.Extra, "reasoning_duration")
			} else if d, err := jsonx.Number(v, "reasoning.duration"); err != nil {
				return nil, err
			} else if d < 0 {
				return nil, apperr.Invalid("reasoning.duration must not be negative, got %s", v).
					WithDetails(map[string]any{"field": "reasoning.duration"})
			} else {
				next.Extra["reasoning_duration"] = v
			}
		}
		touchedExtra = true
	}
	if touchedExtra {
		// Only the extra: mirroring the times too would rewrite a swipe
		// date the caller never asked to change.
		info := next.SwipeInfo[next.SwipeID].Clone()
		info["extra"], _ = swipeExtra(next.Extra).MarshalJSON()
		next.SwipeInfo[next.SwipeID] = info
	}
	return next, nil
}

// maxSwipeDate is the latest swipe date in unix seconds,
// 9999-12-31T23:59:59Z: send_date is stored as an ISO string with a
// four-digit year, and later years (JavaScript Date reaches 275760) would
// not read back.
const maxSwipeDate = 253402300799

// swipeDateMillis reads swipe_dates[i], a JSON number of unix seconds
// from 0 to maxSwipeDate (fractions kept to the millisecond). A quoted
// number, null or anything else is refused, not coerced.
func swipeDateMillis(raw json.RawMessage, i int) (int64, error) {
	var secs float64
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) || json.Unmarshal(raw, &secs) != nil {
		return 0, apperr.Invalid("swipe_dates[%d] must be a number (unix seconds), got %s", i, raw).
			WithDetails(map[string]any{"field": fmt.Sprintf("swipe_dates[%d]", i)})
	}
	if math.IsNaN(secs) || secs < 0 || secs > maxSwipeDate {
		return 0, apperr.Invalid("swipe_dates[%d] must be between 0 and %.0f unix seconds, got %s", i, float64(maxSwipeDate), raw).
			WithDetails(map[string]any{"field": fmt.Sprintf("swipe_dates[%d]", i), "min": 0, "max": maxSwipeDate})
	}
	return int64(math.Round(secs * 1000)), nil
}

// DeleteMessage removes a message by id.
func (s *Service) DeleteMessage(ctx context.Context, chatID, messageID string) error {
	_, err := s.mutate(ctx, chatID, "deleteMessage", WriteOptions{}, func(m *mutation) error {
		sm, err := loadByID(ctx, m.tx, m.chat, messageID)
		if err != nil {
			return err
		}
		_, err = deleteIndexes(ctx, m, []int{sm.index})
		return err
	})
	return err
}

// MaxHiddenBatch caps setMessagesHidden so one transaction stays bounded.
const MaxHiddenBatch = 500

// SetMessagesHidden sets extra.hidden (retrieval-hidden, still in prompts)
// on messages by id, in one transaction. Messages already in that state
// are left alone; each changed message emits MESSAGE_EDITED.
func (s *Service) SetMessagesHidden(ctx context.Context, chatID string, ids []string, hidden bool) error {
	if len(ids) > MaxHiddenBatch {
		return apperr.New(apperr.CodeTooMany, "at most %d message ids per call, got %d", MaxHiddenBatch, len(ids)).
			WithDetails(map[string]any{"max": MaxHiddenBatch, "got": len(ids)})
	}
	_, err := s.mutate(ctx, chatID, "setMessagesHidden", WriteOptions{}, func(m *mutation) error {
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			sm, err := loadByID(ctx, m.tx, m.chat, id)
			if err != nil {
				return err
			}
			if isHidden(sm.msg.Extra) == hidden {
				continue
			}
			next := sm.msg.Clone()
			if hidden {
				next.Extra["hidden"] = jsonx.Raw(true)
			} else {
				delete(next.Extra, "hidden")
			}
			changed, err := s.rewrite(ctx, m, sm, next)
			if err != nil {
				return err
			}
			if changed {
				p := messagePayload(sm.index, next)
				m.emit(events.MessageEdited, &p)
			}
		}
		return nil
	})
	return err
}

// IsMessageHidden reads a message's retrieval-hidden flag.
func (s *Service) IsMessageHidden(ctx context.Context, chatID, messageID string) (bool, error) {
	var hidden bool
	err := s.readSnapshot(ctx, chatID, func(q queryer, c *chatRow) error {
		sm, err := loadByID(ctx, q, c, messageID)
		if err != nil {
			return err
		}
		hidden = isHidden(sm.msg.Extra)
		return nil
	})
	return hidden, err
}
