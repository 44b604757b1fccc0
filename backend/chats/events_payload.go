package chats

import "hearth/backend/events"

// messagePayload is the common body of message events: the whole-chat
// index, the stable id, and the message in both shapes (Spindle's
// ChatMessage as `message`, SillyTavern's object as `stMessage`). mutate
// stamps chatId and revision.
func messagePayload(index int, m *StMessage) events.MessagePayload {
	return events.MessagePayload{
		Index:     index,
		ID:        m.ID,
		Message:   toChatMessage(m),
		StMessage: m.Clone(),
	}
}
