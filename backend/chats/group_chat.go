package chats

import (
	"context"
	"strings"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// GroupChats is what chats needs of the groups (backend/groups, which
// owns a group's `chat_id` and `chats`): each call runs inside the chat's
// transaction, so a group chat and its group's list land or fail together.
type GroupChats interface {
	// MembersIn returns the group's members' avatar keys in speaking
	// order; group.not_found when there is no such group.
	MembersIn(ctx context.Context, tx *store.Tx, groupID string) ([]string, error)
	// AddChatIn lists fileName among the group's chats, and makes it the
	// group's current chat when open.
	AddChatIn(ctx context.Context, tx *store.Tx, groupID, fileName string, open bool) error
	// RemoveChatIn drops fileName from the group's list (and moves its
	// current chat off it); a group that is gone changes nothing.
	RemoveChatIn(ctx context.Context, tx *store.Tx, groupID, fileName string) error
	// RenameChatIn follows a rename of one of the group's chats.
	RenameChatIn(ctx context.Context, tx *store.Tx, groupID, from, to string) error
}

// defaultAvatar is SillyTavern's default_avatar: the force_avatar of a
// member whose avatar is "none".
const defaultAvatar = "img/ai4.png"

// createGroupChat starts a chat of group groupID, as SillyTavern's
// createNewGroupChat and getGroupChat do: named by the time
// (humanizedDateTime, no prefix) unless opts name it, made the group's
// chat_id and appended to its chats, and seeded with one greeting per
// member in member order (groupGreeting; muted members greet too, as in
// SillyTavern; a member without a greeting or whose card is gone adds
// none). CHAT_CREATED, GROUP_UPDATED and GROUP_CHAT_CREATED follow the
// commit, in that order.
func (s *Service) createGroupChat(ctx context.Context, groupID string, opts CreateOptions) (*Summary, error) {
	if s.hooks.Groups == nil {
		return nil, apperr.New(apperr.CodeGroupNotFound, "no group with id %q", groupID).WithDetails(map[string]any{"groupId": groupID})
	}
	now := s.now()
	name := opts.FileName
	if name == "" {
		name = humanizedDateTime(now)
	}
	name, err := validFileName(name)
	if err != nil {
		return nil, err
	}
	user := s.userName(ctx, "")
	var sum Summary
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		members, err := s.hooks.Groups.MembersIn(ctx, tx, groupID)
		if err != nil {
			return err
		}
		var greetings []*StMessage
		for _, avatar := range members {
			card, err := s.chars.Get(ctx, avatar)
			if apperr.CodeOf(err) == apperr.CodeCharacterNotFound {
				continue
			}
			if err != nil {
				return err
			}
			if m := s.groupGreeting(card, user, now); m != nil {
				greetings = append(greetings, m)
			}
		}
		c, err := s.insertNewChat(ctx, tx, "group", groupID, name, now, greetings)
		if err != nil {
			return err
		}
		sum = c.summary
		s.announceCreated(tx, c.row, sum)
		if err := s.hooks.Groups.AddChatIn(ctx, tx, groupID, name, true); err != nil {
			return err
		}
		payload := &events.GroupChatPayload{ChatRevision: events.ChatRevision{ChatID: c.row.uuid, Revision: c.row.revision}, GroupID: groupID, FileName: name}
		tx.AfterCommit(func() { s.bus.Publish(events.Event{Type: events.GroupChatCreated, Payload: payload}) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &sum, nil
}

// groupGreeting is a member's first message in a new group chat, as
// SillyTavern's getFirstCharacterMessage writes it: one of first_mes and
// the alternate greetings that are not empty, picked at random (no
// swipes), trimmed, {{char}} and {{user}} resolved for the member; name,
// original_avatar (the avatar key) and force_avatar (SillyTavern's
// thumbnail URL of the avatar) name the speaker. Nil when the card has no
// greeting. SillyTavern's random extra.gen_id is not written: nothing
// reads it back.
func (s *Service) groupGreeting(card *characters.Card, user string, now time.Time) *StMessage {
	var texts []string
	for _, t := range append([]string{card.FirstMes()}, card.AlternateGreetings()...) {
		if t != "" {
			texts = append(texts, t)
		}
	}
	if len(texts) == 0 {
		return nil
	}
	text := resolveMacros(strings.TrimSpace(texts[s.pick(len(texts))]), card.Name(), user)
	if text == "" {
		return nil
	}
	m := &StMessage{Name: card.Name(), Swipes: []string{text}, Extra: jsonx.Object{}, Fields: jsonx.Object{
		"send_date":       isoTime(now),
		"original_avatar": jsonx.Raw(card.Avatar),
		"force_avatar":    jsonx.Raw(thumbnailURL(card.Avatar)),
	}}
	alignSwipeInfo(m, now)
	mirrorActive(m)
	return m
}

// thumbnailURL is SillyTavern's getThumbnailUrl('avatar', avatar), or its
// default avatar for "none".
func thumbnailURL(avatar string) string {
	if avatar == "none" {
		return defaultAvatar
	}
	return "/thumbnail?type=avatar&file=" + encodeURIComponent(avatar)
}

// encodeURIComponent escapes s as JavaScript's function does: everything
// but ASCII letters, digits and - _ . ! ~ * ' ( ) as UTF-8 %XX.
func encodeURIComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
