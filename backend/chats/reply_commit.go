package chats

import (
	"context"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// Reply kinds: how a generated reply lands in the chat.
const (
	ReplyNew      = "new"      // a new message at the end
	ReplySwipe    = "swipe"    // a new swipe of Target, made active
	ReplyContinue = "continue" // appended to Target's active swipe
	ReplyReplace  = "replace"  // Target removed, a new message at the end
	// ReplyRewrite replaces the text of Target's swipe Swipe (an agent
	// run's later commit in "replace" mode rewrites the reply it made).
	ReplyRewrite = "rewrite"
)

// Reply is a generated reply to commit.
type Reply struct {
	Kind string
	// Target is the message a swipe, continue, replace or rewrite is for,
	// by id: indexes shift while a reply streams.
	Target string
	// Swipe, when set, is the swipe of Target a continue or rewrite
	// changes (else the active one); it must exist.
	Swipe *int
	// Name names a new message (the character's name).
	Name string
	// Speaker, in a group chat, is the avatar key of the member a new
	// message is by: it then carries original_avatar and force_avatar as
	// the group's greetings do (groupGreeting).
	Speaker string
	Text    string
	// Extra is merged into the message's extra and belongs to the new (or
	// continued) swipe: api, model, reasoning, token counts.
	Extra jsonx.Object
	// Started and Finished are gen_started and gen_finished.
	Started, Finished time.Time
	// Type is the generation type MESSAGE_RECEIVED reports.
	Type string
	// Settle, when set, runs in the reply's transaction once the reply is
	// placed, with where it landed: what must hold exactly when the reply
	// does (a generation's record saying it ended there) commits with it,
	// so no crash leaves one without the other. An error rolls the reply
	// back.
	Settle func(ctx context.Context, tx *store.Tx, at Committed) error
}

// settle runs r.Settle, if any, in m's transaction.
func (r Reply) settle(ctx context.Context, m *mutation, at Committed) error {
	if r.Settle == nil {
		return nil
	}
	return r.Settle(ctx, m.tx, at)
}

// Committed says where a reply landed.
type Committed struct {
	ID      string `json:"id"`
	Index   int    `json:"index"`
	SwipeID int    `json:"swipeId"`
	// Revision is the chat's revision after the reply: its change journal
	// entry, which RevertRevisions takes back.
	Revision int64 `json:"revision"`
}

// CommitReply writes a generated reply through the message pipeline, in
// one transaction: the revision, the journal (so chat.undo takes it back),
// floor state and events as for any other write. A swipe or continue whose
// target is gone fails with message.not_found and changes nothing; the
// caller still holds the text. r.Settle runs in the same transaction.
func (s *Service) CommitReply(ctx context.Context, chatID string, r Reply) (*Committed, error) {
	if r.Kind != ReplyNew && r.Target == "" {
		return nil, apperr.Invalid("a %s reply needs its target message", r.Kind)
	}
	var out Committed
	rev, err := s.mutate(ctx, chatID, "commitReply", WriteOptions{}, func(m *mutation) error {
		switch r.Kind {
		case ReplyNew, ReplyReplace:
			if r.Kind == ReplyReplace {
				sm, err := loadByID(ctx, m.tx, m.chat, r.Target)
				if err == nil {
					if _, err := deleteIndexes(ctx, m, []int{sm.index}); err != nil {
						return err
					}
				} else if apperr.As(err) == nil || apperr.As(err).Code != apperr.CodeMessageNotFound {
					return err
				}
			}
			msg := &StMessage{Name: r.Name, Swipes: []string{r.Text}, Extra: jsonx.Object{}, Fields: jsonx.Object{}}
			if r.Speaker != "" {
				msg.Fields["original_avatar"] = jsonx.Raw(r.Speaker)
				msg.Fields["force_avatar"] = jsonx.Raw(thumbnailURL(r.Speaker))
			}
			stamp(msg, r)
			alignSwipeInfo(msg, r.Finished)
			mirrorActive(msg)
			idx, err := addReply(ctx, m, msg, r.Type)
			if err != nil {
				return err
			}
			out = Committed{ID: msg.ID, Index: idx}
			return r.settle(ctx, m, out)
		case ReplySwipe, ReplyContinue, ReplyRewrite:
			sm, err := loadByID(ctx, m.tx, m.chat, r.Target)
			if err != nil {
				return err
			}
			next := sm.msg.Clone()
			if r.Kind == ReplySwipe {
				prev := next.SwipeID
				next.Swipes = append(next.Swipes, r.Text)
				alignSwipeInfo(next, r.Finished)
				navigate(next, len(next.Swipes)-1)
				stamp(next, r)
				mirrorActive(next)
				if _, err := s.rewrite(ctx, m, sm, next); err != nil {
					return err
				}
				m.emit(events.MessageSwiped, &events.MessageSwipedPayload{MessagePayload: messagePayload(sm.index, next),
					SwipeID: next.SwipeID, PreviousSwipeID: prev, Action: "generated"})
			} else {
				at := next.SwipeID
				if r.Swipe != nil {
					if *r.Swipe < 0 || *r.Swipe >= len(next.Swipes) {
						return apperr.New(apperr.CodeMessageNotFound, "message %s has no swipe %d", r.Target, *r.Swipe)
					}
					at = *r.Swipe
				}
				if r.Kind == ReplyRewrite {
					next.Swipes[at] = r.Text
				} else {
					next.Swipes[at] += r.Text
				}
				if at != next.SwipeID {
					navigate(next, at)
				}
				stamp(next, r)
				mirrorActive(next)
				if _, err := s.rewrite(ctx, m, sm, next); err != nil {
					return err
				}
				p := messagePayload(sm.index, next)
				m.emit(events.MessageUpdated, &p)
			}
			out = Committed{ID: next.ID, Index: sm.index, SwipeID: next.SwipeID}
			return r.settle(ctx, m, out)
		default:
			return apperr.Invalid("unknown reply kind %q", r.Kind)
		}
	})
	if err != nil {
		return nil, err
	}
	out.Revision = rev
	return &out, nil
}

// stamp sets the reply's times and extra on msg's active swipe.
func stamp(msg *StMessage, r Reply) {
	msg.Fields["gen_started"] = isoTime(r.Started)
	msg.Fields["gen_finished"] = isoTime(r.Finished)
	if r.Kind != ReplyContinue && r.Kind != ReplyRewrite {
		msg.Fields["send_date"] = isoTime(r.Finished)
	}
	for k, v := range r.Extra {
		msg.Extra[k] = v
	}
}

// addReply appends msg and queues MESSAGE_RECEIVED with the generation type.
func addReply(ctx context.Context, m *mutation, msg *StMessage, typ string) (int, error) {
	index := m.chat.messageCount
	if _, err := m.appendRow(ctx, msg); err != nil {
		return 0, err
	}
	m.chat.messageCount++
	m.recordAdd(index, msg.mustJSON())
	m.emit(events.MessageReceived, &events.MessageReceivedPayload{MessagePayload: messagePayload(index, msg), Type: typ})
	return index, nil
}
