package chats

import (
	"context"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/state"
)

// SwipeTarget says where Swipe goes: an absolute swipe or one step.
type SwipeTarget struct {
	To        *int   `json:"to"`
	Direction string `json:"direction"`
}

// Swipe changes the active swipe of message index and returns it. Swiping
// right past the last swipe is generation's job, so it is out of range here.
func (s *Service) Swipe(ctx context.Context, chatID string, index int, target SwipeTarget, opts WriteOptions) (int, error) {
	if (target.To == nil) == (target.Direction == "") {
		return 0, apperr.Invalid("swipe takes { to } or { direction: 'left' | 'right' }")
	}
	if target.Direction != "" && target.Direction != "left" && target.Direction != "right" {
		return 0, apperr.Invalid("direction must be 'left' or 'right', got %q", target.Direction)
	}
	var swipeID int
	_, err := s.mutate(ctx, chatID, "swipe", opts, func(m *mutation) error {
		sm, err := loadAt(ctx, m.tx, m.chat, index)
		if err != nil {
			return err
		}
		prev := sm.msg.SwipeID
		to := prev
		switch {
		case target.To != nil:
			to = *target.To
		case target.Direction == "left":
			to = prev - 1
		default:
			to = prev + 1
		}
		if err := checkSwipe(to, len(sm.msg.Swipes)); err != nil {
			if target.Direction == "right" {
				err.(*apperr.Error).Message += "; a new swipe comes from api.generate.start({ type: 'swipe' })"
			}
			return err
		}
		swipeID = to
		next := sm.msg.Clone()
		navigate(next, to)
		changed, err := s.rewrite(ctx, m, sm, next)
		if err != nil || !changed {
			return err
		}
		m.emit(events.MessageSwiped, &events.MessageSwipedPayload{MessagePayload: messagePayload(index, next),
			SwipeID: to, PreviousSwipeID: prev, Action: "navigated"})
		return nil
	})
	return swipeID, err
}

// AddSwipe appends a swipe with content to message index, optionally making
// it active, and returns its swipe id.
func (s *Service) AddSwipe(ctx context.Context, chatID string, index int, content string, sel bool, opts WriteOptions) (int, error) {
	var swipeID int
	_, err := s.mutate(ctx, chatID, "addSwipe", opts, func(m *mutation) error {
		sm, err := loadAt(ctx, m.tx, m.chat, index)
		if err != nil {
			return err
		}
		next := sm.msg.Clone()
		prev := next.SwipeID
		next.Swipes = append(next.Swipes, content)
		alignSwipeInfo(next, s.now())
		swipeID = len(next.Swipes) - 1
		if sel {
			navigate(next, swipeID)
		}
		if _, err := s.rewrite(ctx, m, sm, next); err != nil {
			return err
		}
		m.emit(events.MessageSwiped, &events.MessageSwipedPayload{MessagePayload: messagePayload(index, next),
			SwipeID: swipeID, PreviousSwipeID: prev, Action: "added"})
		return nil
	})
	return swipeID, err
}

// DeleteSwipe removes swipe swipeID of message index; the last remaining
// swipe cannot go (swipe.last_swipe). It returns the message as it was
// before and the new active swipe id.
func (s *Service) DeleteSwipe(ctx context.Context, chatID string, index, swipeID int, opts WriteOptions) (*StMessage, int, error) {
	var before *StMessage
	var newID int
	_, err := s.mutate(ctx, chatID, "deleteSwipe", opts, func(m *mutation) error {
		sm, err := loadAt(ctx, m.tx, m.chat, index)
		if err != nil {
			return err
		}
		before = sm.msg
		if err := checkSwipe(swipeID, len(sm.msg.Swipes)); err != nil {
			return err
		}
		if len(sm.msg.Swipes) == 1 {
			return apperr.New(apperr.CodeLastSwipe, "message %d has only one swipe; delete the message instead", index).
				WithDetails(map[string]any{"index": index})
		}
		next := removeSwipe(sm.msg, swipeID)
		newID = next.SwipeID
		m.after.swipesRemoved = append(m.after.swipesRemoved, state.SwipeRemoval{RowID: sm.rowID, Swipe: swipeID})
		if _, err := s.rewrite(ctx, m, sm, next); err != nil {
			return err
		}
		m.emit(events.MessageSwipeDeleted, &events.MessageSwipeDeletedPayload{MessagePayload: messagePayload(index, next),
			MessageID: index, SwipeID: swipeID, NewSwipeID: newID})
		return nil
	})
	return before, newID, err
}

// removeSwipe returns a copy of msg without swipe id. The active swipe
// stays the same swipe when it can; when it was the one removed, the swipe
// now in its place (or the new last one) becomes active with its own data.
func removeSwipe(msg *StMessage, id int) *StMessage {
	next := msg.Clone()
	active := next.SwipeID
	mirrorActive(next)
	next.Swipes = append(next.Swipes[:id], next.Swipes[id+1:]...)
	next.SwipeInfo = append(next.SwipeInfo[:id], next.SwipeInfo[id+1:]...)
	switch {
	case id < active:
		next.SwipeID = active - 1
	case id == active:
		arriveAt(next, min(id, len(next.Swipes)-1))
	}
	return next
}
