package chats

// messagePayload is the common body of message events: the whole-chat
// index, the stable id, and the message in both shapes (Spindle's
// ChatMessage as `message`, SillyTavern's object as `stMessage`).
func messagePayload(index int, m *StMessage) map[string]any {
	return map[string]any{
		"index":     index,
		"id":        m.ID,
		"message":   toChatMessage(m),
		"stMessage": m.Clone(),
	}
}
