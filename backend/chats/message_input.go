package chats

import (
	"encoding/json"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// stickyExtraKeys describe the message rather than one generated variant,
// so they stay on the message when the active swipe changes. Every other
// extra key (reasoning, model, token counts, timings) belongs to its swipe.
var stickyExtraKeys = []string{"hidden", "type", "bookmark_link", "branches", "isSmallSys", "spindle_metadata"}

func isSticky(k string) bool {
	for _, s := range stickyExtraKeys {
		if s == k {
			return true
		}
	}
	return false
}

// swipeTimeKeys are mirrored between the message and its active swipe_info.
var swipeTimeKeys = []string{"send_date", "gen_started", "gen_finished"}

func isoTime(t time.Time) json.RawMessage {
	return jsonx.Raw(t.UTC().Format("2006-01-02T15:04:05.000Z"))
}

func checkIndex(index, length int) error {
	if index < 0 || index >= length {
		return apperr.New(apperr.CodeIndexOutOfRange, "message index %d is out of range (chat has %d messages)", index, length).
			WithDetails(map[string]any{"index": index, "length": length})
	}
	return nil
}

func checkSwipe(swipeID, count int) error {
	if swipeID < 0 || swipeID >= count {
		return apperr.New(apperr.CodeSwipeOutOfRange, "swipe %d is out of range (message has %d swipes)", swipeID, count).
			WithDetails(map[string]any{"swipeId": swipeID, "swipeCount": count})
	}
	return nil
}

func messageNotFound(chatID, messageID string) error {
	return apperr.New(apperr.CodeMessageNotFound, "no message with id %q in chat %s", messageID, chatID).
		WithDetails(map[string]any{"chatId": chatID, "messageId": messageID})
}

func isHidden(extra jsonx.Object) bool {
	v, ok := extra["hidden"]
	return ok && string(v) == "true"
}

// swipeExtra is what the active swipe's swipe_info.extra mirrors of extra.
func swipeExtra(extra jsonx.Object) jsonx.Object {
	out := jsonx.Object{}
	for k, v := range extra {
		if !isSticky(k) {
			out[k] = v
		}
	}
	return out
}

// newSwipeInfo is the swipe_info entry of a swipe created now.
func newSwipeInfo(now time.Time) jsonx.Object {
	return jsonx.Object{"send_date": isoTime(now), "gen_started": []byte("null"), "gen_finished": []byte("null"), "extra": []byte("{}")}
}

// mirrorActive copies the message-level per-swipe data (extra minus sticky
// keys, send/gen times) into the active swipe's swipe_info, so that data
// stays with its swipe when another swipe becomes active.
func mirrorActive(m *StMessage) {
	info := m.SwipeInfo[m.SwipeID].Clone()
	info["extra"], _ = swipeExtra(m.Extra).MarshalJSON()
	for _, k := range swipeTimeKeys {
		if v, ok := m.Fields[k]; ok {
			info[k] = v
		}
	}
	m.SwipeInfo[m.SwipeID] = info
}

// navigate makes swipe `to` active, SillyTavern style: the leaving swipe
// keeps the message's per-swipe data, and the arriving swipe's extra and
// times become the message's, with sticky keys kept.
func navigate(m *StMessage, to int) {
	if to == m.SwipeID {
		return
	}
	mirrorActive(m)
	arriveAt(m, to)
}

// arriveAt makes swipe `to` active and takes its per-swipe data into the
// message, without saving the previous swipe's (navigate does that first;
// a deleted swipe has nothing to save).
func arriveAt(m *StMessage, to int) {
	m.SwipeID = to
	info := m.SwipeInfo[to]
	next := jsonx.Object{}
	if raw, ok := info["extra"]; ok {
		if o, err := jsonx.DecodeObject(raw, "extra"); err == nil {
			next = o
		}
	}
	for _, k := range stickyExtraKeys {
		if v, ok := m.Extra[k]; ok {
			next[k] = v
		} else {
			delete(next, k)
		}
	}
	m.Extra = next
	for _, k := range swipeTimeKeys {
		if v, ok := info[k]; ok && !jsonx.IsNull(v) {
			m.Fields[k] = v
		}
	}
}

// alignSwipeInfo pads swipe_info with fresh entries for new swipes and drops
// entries past the end.
func alignSwipeInfo(m *StMessage, now time.Time) {
	for len(m.SwipeInfo) < len(m.Swipes) {
		m.SwipeInfo = append(m.SwipeInfo, newSwipeInfo(now))
	}
	m.SwipeInfo = m.SwipeInfo[:len(m.Swipes)]
}

// decodeNewMessage turns a caller's message object into a valid StMessage.
// defaultName fills a missing name. Unknown keys are kept, sharing raw's
// bytes: a call's argument or an imported line, which no one changes.
func decodeNewMessage(raw json.RawMessage, label string, defaultName func(isUser bool) string, now time.Time) (*StMessage, error) {
	o, err := jsonx.DecodeObjectShared(raw, label)
	if err != nil {
		return nil, err
	}
	return newMessage(o, label, defaultName, now)
}

// newMessage is decodeNewMessage for a message already split into its
// members. o is read, not changed; the message shares its raw values, and
// the bytes of extra's and swipe_info's members within them.
func newMessage(o jsonx.Object, label string, defaultName func(isUser bool) string, now time.Time) (*StMessage, error) {
	var err error
	m := &StMessage{Extra: jsonx.Object{}, Fields: jsonx.Object{}}
	for k, v := range o {
		if !typedKeys[k] {
			m.Fields[k] = v
		}
	}
	if v, ok := o["is_user"]; ok && !jsonx.IsNull(v) {
		if m.IsUser, err = jsonx.Bool(v, label+".is_user"); err != nil {
			return nil, err
		}
	}
	if v, ok := o["is_system"]; ok && !jsonx.IsNull(v) {
		if m.IsSystem, err = jsonx.Bool(v, label+".is_system"); err != nil {
			return nil, err
		}
	}
	if v, ok := o["name"]; ok && !jsonx.IsNull(v) {
		if m.Name, err = jsonx.String(v, label+".name"); err != nil {
			return nil, err
		}
	} else {
		m.Name = defaultName(m.IsUser)
	}
	if v, ok := o["extra"]; ok && !jsonx.IsNull(v) {
		if m.Extra, err = jsonx.DecodeObjectShared(v, label+".extra"); err != nil {
			return nil, err
		}
	}
	var mes *string
	if v, ok := o["mes"]; ok {
		s, err := jsonx.String(v, label+".mes")
		if err != nil {
			return nil, err
		}
		mes = &s
	}
	if v, ok := o["swipes"]; ok {
		if m.Swipes, err = jsonx.Strings(v, label+".swipes"); err != nil {
			return nil, err
		}
		if len(m.Swipes) == 0 {
			return nil, apperr.Invalid("%s.swipes must not be empty", label)
		}
	} else {
		text := ""
		if mes != nil {
			text = *mes
		}
		m.Swipes = []string{text}
	}
	if v, ok := o["swipe_id"]; ok {
		if m.SwipeID, err = jsonx.Int(v, label+".swipe_id"); err != nil {
			return nil, err
		}
	}
	if err := checkSwipe(m.SwipeID, len(m.Swipes)); err != nil {
		return nil, err
	}
	if mes != nil {
		m.Swipes[m.SwipeID] = *mes
	}
	if _, ok := m.Fields["send_date"]; !ok {
		m.Fields["send_date"] = isoTime(now)
	}
	if v, ok := o["swipe_info"]; ok {
		if m.SwipeInfo, err = jsonx.ObjectsShared(v, label+".swipe_info"); err != nil {
			return nil, err
		}
		if len(m.SwipeInfo) != len(m.Swipes) {
			return nil, apperr.Invalid("%s.swipe_info has %d entries for %d swipes", label, len(m.SwipeInfo), len(m.Swipes))
		}
	} else {
		alignSwipeInfo(m, now)
		mirrorActive(m)
	}
	return m, nil
}

// applyStPatch shallow-merges patch into a copy of cur with SillyTavern
// semantics (Object.assign), keeping the swipe invariants: swipes first,
// then swipe_info, swipe_id (navigation), mes (the active slot), extra.
func applyStPatch(cur *StMessage, patch jsonx.Object, label string, now time.Time) (*StMessage, error) {
	next := cur.Clone()
	var err error
	if v, ok := patch["id"]; ok {
		if id, err := jsonx.String(v, label+".id"); err != nil || id != cur.ID {
			return nil, apperr.Invalid("%s.id is read-only", label)
		}
	}
	if v, ok := patch["swipes"]; ok {
		if next.Swipes, err = jsonx.StrictStrings(v, label+".swipes"); err != nil {
			return nil, err
		}
		if len(next.Swipes) == 0 {
			return nil, apperr.Invalid("%s.swipes must not be empty", label)
		}
		alignSwipeInfo(next, now)
	}
	if v, ok := patch["swipe_info"]; ok {
		if next.SwipeInfo, err = jsonx.Objects(v, label+".swipe_info"); err != nil {
			return nil, err
		}
		if len(next.SwipeInfo) != len(next.Swipes) {
			return nil, apperr.Invalid("%s.swipe_info has %d entries for %d swipes", label, len(next.SwipeInfo), len(next.Swipes))
		}
	}
	if v, ok := patch["swipe_id"]; ok {
		to, err := jsonx.Int(v, label+".swipe_id")
		if err != nil {
			return nil, err
		}
		if err := checkSwipe(to, len(next.Swipes)); err != nil {
			return nil, err
		}
		if _, rewritten := patch["swipes"]; rewritten {
			next.SwipeID = to
		} else {
			navigate(next, to)
		}
	} else if err := checkSwipe(next.SwipeID, len(next.Swipes)); err != nil {
		return nil, err
	}
	if v, ok := patch["mes"]; ok {
		s, err := jsonx.String(v, label+".mes")
		if err != nil {
			return nil, err
		}
		next.Swipes[next.SwipeID] = s
	}
	if v, ok := patch["name"]; ok {
		if next.Name, err = jsonx.String(v, label+".name"); err != nil {
			return nil, err
		}
	}
	if v, ok := patch["is_user"]; ok {
		if next.IsUser, err = jsonx.Bool(v, label+".is_user"); err != nil {
			return nil, err
		}
	}
	if v, ok := patch["is_system"]; ok {
		if next.IsSystem, err = jsonx.Bool(v, label+".is_system"); err != nil {
			return nil, err
		}
	}
	mirror := false
	if v, ok := patch["extra"]; ok {
		if jsonx.IsNull(v) {
			next.Extra = jsonx.Object{}
		} else if next.Extra, err = jsonx.DecodeObject(v, label+".extra"); err != nil {
			return nil, err
		}
		mirror = true
	}
	for k, v := range patch {
		if typedKeys[k] {
			continue
		}
		next.Fields[k] = v
		for _, tk := range swipeTimeKeys {
			mirror = mirror || k == tk
		}
	}
	if mirror {
		mirrorActive(next)
	}
	return next, nil
}
