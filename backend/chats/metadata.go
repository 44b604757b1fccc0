package chats

import (
	"context"

	"hearth/backend/events"
	"hearth/backend/jsonx"
)

// Metadata returns a chat's metadata object.
func (s *Service) Metadata(ctx context.Context, chatID string) (jsonx.Object, error) {
	c, err := loadChat(ctx, s.db.Reader(), chatID)
	if err != nil {
		return nil, err
	}
	return c.metadata, nil
}

// SaveMetadata merges with into the chat's metadata ({...metadata, ...with});
// a key set to null is removed. It returns the chat revision after the call
// (unchanged when nothing changed).
func (s *Service) SaveMetadata(ctx context.Context, chatID string, with jsonx.Object, opts WriteOptions) (int64, error) {
	return s.mutate(ctx, chatID, "saveMetadata", opts, func(m *mutation) error {
		next := m.chat.metadata.Clone()
		for k, v := range with {
			if jsonx.IsNull(v) {
				delete(next, k)
			} else {
				next[k] = v
			}
		}
		return setMetadata(m, next)
	})
}

// setMetadata replaces the chat's metadata inside m, journaling the diff
// and queueing CHAT_METADATA_UPDATED when anything changed.
func setMetadata(m *mutation, next jsonx.Object) error {
	before, _ := m.chat.metadata.MarshalJSON()
	after, _ := next.MarshalJSON()
	if err := jsonx.LimitDepth(jsonx.Depth(after), jsonx.Depth(before), "chat metadata"); err != nil {
		return err
	}
	changed, err := m.recordMetadata(before, after)
	if err != nil || !changed {
		return err
	}
	m.chat.metadata = next
	m.emit(events.ChatMetadataUpdated, map[string]any{"metadata": next})
	return nil
}
