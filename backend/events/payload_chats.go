package events

// The payloads of message and chat events. Fields typed any hold a value of
// a domain package (chats imports events, not the other way round); their
// `ts` tag names the TypeScript type clients see.

// ChatRevision is the chat a write's event is about and the chat's revision
// after the write.
type ChatRevision struct {
	ChatID   string `json:"chatId"`
	Revision int64  `json:"revision"`
}

// SetChat stamps chat and revision: a chat write queues its events before
// it knows the revision it commits at.
func (c *ChatRevision) SetChat(chatID string, revision int64) {
	c.ChatID, c.Revision = chatID, revision
}

// MessagePayload is the common body of message events: the whole-chat
// index, the stable id, and the message in both shapes (Spindle's
// ChatMessage as message, SillyTavern's object as stMessage).
type MessagePayload struct {
	ChatRevision
	Index     int    `json:"index"`
	ID        string `json:"id"`
	Message   any    `json:"message" ts:"ChatMessage"`
	StMessage any    `json:"stMessage" ts:"StMessage"`
}

// MessageReceivedPayload is MESSAGE_RECEIVED's: Type is the generation
// type that produced the message ("normal" for one added by a call).
type MessageReceivedPayload struct {
	MessagePayload
	Type string `json:"type"`
}

// MessageSwipedPayload is MESSAGE_SWIPED's.
type MessageSwipedPayload struct {
	MessagePayload
	SwipeID         int    `json:"swipeId"`
	PreviousSwipeID int    `json:"previousSwipeId"`
	Action          string `json:"action" ts:"'navigated' | 'added' | 'generated'"`
}

// MessageSwipeDeletedPayload is MESSAGE_SWIPE_DELETED's: MessageID is the
// message's index, as SillyTavern passes it.
type MessageSwipeDeletedPayload struct {
	MessagePayload
	MessageID  int `json:"messageId"`
	SwipeID    int `json:"swipeId"`
	NewSwipeID int `json:"newSwipeId"`
}

// SwipeEditedPayload is SWIPE_EDITED's.
type SwipeEditedPayload struct {
	MessagePayload
	PreviousSwipeID int `json:"previousSwipeId"`
}

// MessageDeletedPayload is MESSAGE_DELETED's: Length is the message count
// after the deletion, Deleted the messages gone, by index as they were.
type MessageDeletedPayload struct {
	ChatRevision
	Length  int              `json:"length"`
	Deleted []DeletedMessage `json:"deleted"`
}

// DeletedMessage is one message of MESSAGE_DELETED.
type DeletedMessage struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
}

// ChatChangedPayload is CHAT_CHANGED's (fired by each window).
type ChatChangedPayload struct {
	ChatID string `json:"chatId,omitempty"`
}

// ChatCreatedPayload is CHAT_CREATED's.
type ChatCreatedPayload struct {
	ChatRevision
	Chat any `json:"chat" ts:"ChatSummary"`
}

// ChatDeletedPayload is CHAT_DELETED's: one of Avatar (a character's chat)
// and GroupID (a group's) is set.
type ChatDeletedPayload struct {
	ChatRevision
	FileName string  `json:"fileName"`
	Avatar   *string `json:"avatar,omitempty"`
	GroupID  *string `json:"groupId,omitempty"`
}

// ChatRenamedPayload is CHAT_RENAMED's.
type ChatRenamedPayload struct {
	ChatRevision
	OldFileName string `json:"oldFileName"`
	FileName    string `json:"fileName"`
}

// ChatMetadataUpdatedPayload is CHAT_METADATA_UPDATED's: the whole
// metadata after the change.
type ChatMetadataUpdatedPayload struct {
	ChatRevision
	Metadata any `json:"metadata" ts:"Record<string, unknown>"`
}

// ChatPatchedPayload is CHAT_PATCHED's: the operations applied and the
// message count after. An undo or redo adds Method (what it took back or
// did again) and UndoneRevision or RedoneRevision; a revert adds Method
// "revert" and RevertedRevisions.
type ChatPatchedPayload struct {
	ChatRevision
	Ops               any     `json:"ops" ts:"JsonPatchOp[]"`
	Length            int     `json:"length"`
	Method            string  `json:"method,omitempty"`
	UndoneRevision    *int64  `json:"undoneRevision,omitempty"`
	RedoneRevision    *int64  `json:"redoneRevision,omitempty"`
	RevertedRevisions []int64 `json:"revertedRevisions,omitempty"`
}

// ChatBranchCreatedPayload is CHAT_BRANCH_CREATED's: the new chat
// (ChatRevision), where it was made from, and whether it is a checkpoint
// or a branch.
type ChatBranchCreatedPayload struct {
	ChatRevision
	SourceChatID string `json:"sourceChatId"`
	Index        int    `json:"index"`
	Kind         string `json:"kind" ts:"'checkpoint' | 'branch'"`
	FileName     string `json:"fileName"`
}

// ChatStateChangedPayload is CHAT_STATE_CHANGED's: Revision is the
// namespace's, not the chat's; Deleted is there (true) only when the
// namespace was deleted.
type ChatStateChangedPayload struct {
	ChatID    string `json:"chatId"`
	Namespace string `json:"namespace"`
	Revision  int64  `json:"revision"`
	Deleted   bool   `json:"deleted,omitempty"`
}
