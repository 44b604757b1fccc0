package chats

import (
	"encoding/json"
	"strings"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// decodeJsonlMessage turns one message line of a chat file into a valid
// StMessage with the same rules as a new message from the API
// (decodeNewMessage: missing swipes, swipe_id and swipe_info are derived,
// mes wins over its swipe slot, unknown keys kept, id dropped).
//
// One shape is accepted here that the API refuses: a swipe_info that does
// not line up with swipes, or has null entries. SillyTavern writes both —
// a greeting with alternate greetings starts with swipe_info [], and
// swipe_info[i] = {...} on a shorter array leaves null holes — so a file
// straight from it must import. Such a swipe_info is rebuilt the way a
// message without one is, then every entry the file did give (an object
// at an index that has a swipe) is put back in its place.
func decodeJsonlMessage(n int, line []byte, defaultName func(isUser bool) string, now time.Time) (*StMessage, error) {
	raw := json.RawMessage(line)
	m, err := decodeNewMessage(raw, "message", defaultName, now)
	if err == nil {
		return m, nil
	}
	if apperr.CodeOf(err) != apperr.CodeInvalidArgument {
		return nil, atLine(n, err)
	}
	o, given, ok := ragged(raw)
	if !ok {
		return nil, atLine(n, err)
	}
	delete(o, "swipe_info")
	m, err = decodeNewMessage(mustObjectJSON(o), "message", defaultName, now)
	if err != nil {
		return nil, atLine(n, err)
	}
	for i, entry := range given {
		if i >= len(m.SwipeInfo) || jsonx.IsNull(entry) {
			continue
		}
		info, err := jsonx.DecodeObject(entry, "message.swipe_info[]")
		if err != nil {
			return nil, atLine(n, err)
		}
		m.SwipeInfo[i] = info
	}
	return m, nil
}

// ragged reports whether a message object's swipe_info is an array that
// does not line up with its swipes (a different length, or null entries),
// returning the object and the entries. Anything else about the message
// is left for decodeNewMessage to judge.
func ragged(raw json.RawMessage) (jsonx.Object, []json.RawMessage, bool) {
	o, err := jsonx.DecodeObject(raw, "message")
	if err != nil {
		return nil, nil, false
	}
	var entries []json.RawMessage
	if v, ok := o["swipe_info"]; !ok || json.Unmarshal(v, &entries) != nil || entries == nil {
		return nil, nil, false
	}
	swipes := 1
	if v, ok := o["swipes"]; ok {
		list, err := jsonx.Strings(v, "swipes")
		if err != nil || len(list) == 0 {
			return nil, nil, false
		}
		swipes = len(list)
	}
	if len(entries) != swipes {
		return o, entries, true
	}
	for _, e := range entries {
		if strings.TrimSpace(string(e)) == "null" {
			return o, entries, true
		}
	}
	return nil, nil, false
}
