package chats

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"hearth/backend/jsonx"
)

// ChatMessage is the id-based (Lumiverse Spindle) view of a message.
type ChatMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	Name       string          `json:"name"`
	Extra      jsonx.Object    `json:"extra"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	SwipeID    int             `json:"swipe_id"`
	Swipes     []string        `json:"swipes"`
	SwipeDates []int64         `json:"swipe_dates"`
}

// roleOf maps SillyTavern flags to a chat role: users are "user", narrator
// messages "system", everything else "assistant".
func roleOf(m *StMessage) string {
	if m.IsUser {
		return "user"
	}
	var t string
	if json.Unmarshal(m.Extra["type"], &t) == nil && t == "narrator" {
		return "system"
	}
	return "assistant"
}

func toChatMessage(m *StMessage) *ChatMessage {
	extra := m.Extra.Clone()
	meta := extra["spindle_metadata"]
	delete(extra, "spindle_metadata")
	fallback := parseDate(m.Fields["send_date"])
	dates := make([]int64, len(m.Swipes))
	for i := range dates {
		if d := parseDate(m.SwipeInfo[i]["send_date"]); d != 0 {
			dates[i] = d
		} else {
			dates[i] = fallback
		}
	}
	return &ChatMessage{
		ID: m.ID, Role: roleOf(m), Content: m.Mes(), Name: m.Name, Extra: extra, Metadata: meta,
		SwipeID: m.SwipeID, Swipes: append([]string(nil), m.Swipes...), SwipeDates: dates,
	}
}

// dateLayouts are the send_date spellings found in SillyTavern chats.
var dateLayouts = []string{
	time.RFC3339Nano,
	"January 2, 2006 3:04pm",
	"January 2, 2006 3:04 PM",
	"January 2, 2006 15:04",
	"2006-01-02 15:04:05",
	"2006-01-02@15h04m05s",
}

// parseDate reads a send_date (ISO string, SillyTavern's humanized form, or
// epoch ms/s number) as unix seconds; 0 when absent or unreadable.
func parseDate(raw json.RawMessage) int64 {
	if jsonx.IsNull(raw) {
		return 0
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var f float64
		if json.Unmarshal(raw, &f) != nil {
			return 0
		}
		if f > 1e12 {
			return int64(f / 1000)
		}
		return int64(f)
	}
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Unix()
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n > 1e12 {
			return n / 1000
		}
		return n
	}
	return 0
}
