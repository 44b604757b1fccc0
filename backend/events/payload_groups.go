package events

import "hearth/backend/apperr"

// The payloads of group events (backend/groups, HOST-ABI §5.1).

// GroupPayload is GROUP_CREATED's and GROUP_UPDATED's: the group after the
// change, as groups.get answers it.
type GroupPayload struct {
	GroupID string `json:"groupId"`
	Group   any    `json:"group" ts:"Group"`
}

// GroupDeletedPayload is GROUP_DELETED's.
type GroupDeletedPayload struct {
	GroupID     string `json:"groupId"`
	DeleteChats bool   `json:"deleteChats"`
}

// GroupChatPayload is GROUP_CHAT_CREATED's and GROUP_CHAT_DELETED's: the
// chat, its revision (when it went, for a delete), its group and its file
// name (what SillyTavern passes GROUP_CHAT_DELETED's listeners, its group
// chats being known by file name).
type GroupChatPayload struct {
	ChatRevision
	GroupID  string `json:"groupId"`
	FileName string `json:"fileName"`
}

// GroupWrapperPayload is GROUP_WRAPPER_STARTED's and GROUP_WRAPPER_FINISHED's:
// SillyTavern's { selected_group, type }, and the chat of the turn.
type GroupWrapperPayload struct {
	ChatID        string `json:"chatId"`
	SelectedGroup string `json:"selected_group"`
	Type          string `json:"type" ts:"GenerationType"`
}

// GroupMemberDraftedPayload is GROUP_MEMBER_DRAFTED's: the member about to
// reply, by avatar key (SillyTavern passes its listeners the member's
// index in its characters list; the window maps the key onto it).
type GroupMemberDraftedPayload struct {
	ChatID  string `json:"chatId"`
	GroupID string `json:"groupId"`
	Avatar  string `json:"avatar"`
	Type    string `json:"type" ts:"GenerationType"`
}

// GroupAutoModePayload is GROUP_AUTO_MODE_CHANGED's: the chat's auto mode
// after the change (groups.autoMode's fields), and why it changed — "set"
// (groups.setAutoMode), or why it went off by itself: "user_message" (a
// user's message was added to the chat), "failed" (a turn failed; Error is
// its error, the failed generation's GENERATION_ENDED came before),
// "deleted" (the chat or its group went). A window's toggle follows it.
type GroupAutoModePayload struct {
	ChatID       string        `json:"chatId"`
	GroupID      string        `json:"groupId"`
	On           bool          `json:"on"`
	DelaySeconds int           `json:"delaySeconds"`
	Reason       string        `json:"reason" ts:"'set' | 'user_message' | 'failed' | 'deleted'"`
	Error        *apperr.Error `json:"error,omitempty"`
}
