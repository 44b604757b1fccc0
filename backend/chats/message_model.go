package chats

import (
	"hearth/backend/jsonx"
)

// Object is a JSON object with raw values; see jsonx.Object.
type Object = jsonx.Object

// StMessage is a SillyTavern chat message as Hearth stores it: the fields it
// reasons about are typed, everything else rides along in Fields.
type StMessage struct {
	ID        string
	Name      string
	IsUser    bool
	IsSystem  bool
	SwipeID   int
	Swipes    []string
	SwipeInfo []Object // aligned with Swipes
	Extra     Object
	Fields    Object // send_date, gen_started, title, force_avatar, unknown keys…
}

// Mes is the active swipe's text; StMessage keeps mes === swipes[swipe_id].
func (m *StMessage) Mes() string { return m.Swipes[m.SwipeID] }

// Clone deep-copies m so a candidate edit never aliases stored state.
func (m *StMessage) Clone() *StMessage {
	c := *m
	c.Swipes = append([]string(nil), m.Swipes...)
	c.SwipeInfo = make([]Object, len(m.SwipeInfo))
	for i, info := range m.SwipeInfo {
		c.SwipeInfo[i] = info.Clone()
	}
	c.Extra = m.Extra.Clone()
	c.Fields = m.Fields.Clone()
	return &c
}

// depth is how deeply m nests, as jsonx.Depth would count the message a
// caller sends: the unknown keys sit in the message object, extra one level
// down. Each swipe_info entry holds a copy of its swipe's extra one level
// down (mirrorActive), inside the swipe_info array: those two levels are
// Hearth's own and not counted, so a message whose extra is at the limit
// can still be stored.
func (m *StMessage) depth() int {
	inside := max(1, jsonx.ValuesDepth(m.Fields), jsonx.ObjectDepth(m.Extra))
	for _, info := range m.SwipeInfo {
		inside = max(inside, jsonx.ObjectDepth(info)-1)
	}
	return 1 + inside
}

// typedKeys are the top-level keys owned by StMessage's typed fields;
// every other key lives in Fields.
var typedKeys = map[string]bool{
	"id": true, "name": true, "is_user": true, "is_system": true, "mes": true,
	"swipe_id": true, "swipes": true, "swipe_info": true, "extra": true,
}

// MarshalJSON writes the SillyTavern object (see appendMessageJSON).
func (m *StMessage) MarshalJSON() ([]byte, error) {
	infos := make([][]byte, len(m.SwipeInfo))
	size := 256
	for i, info := range m.SwipeInfo {
		infos[i], _ = info.MarshalJSON()
		size += len(infos[i]) + len(m.Swipes[i])
	}
	extra, _ := m.Extra.MarshalJSON()
	fields, _ := m.Fields.MarshalJSON()
	buf := make([]byte, 0, size+len(extra)+len(fields))
	return appendMessageJSON(buf, m.ID, m.Name, m.IsUser, m.IsSystem, m.SwipeID, m.Swipes, infos, extra, fields), nil
}

// mustJSON encodes m; StMessage encoding cannot fail.
func (m *StMessage) mustJSON() []byte {
	b, _ := m.MarshalJSON()
	return b
}
