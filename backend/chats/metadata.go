package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
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
	return s.mutate(ctx, chatID, "saveMetadata", opts, mergeMetadata(with))
}

// SaveMetadataIn is SaveMetadata inside a transaction the caller owns, for
// a domain that keeps a chat's metadata in step with its own rows (a
// persona lock checked and written at once). The revision bump, journal
// entry and CHAT_METADATA_UPDATED are the same; the event goes out when
// tx commits.
func (s *Service) SaveMetadataIn(ctx context.Context, tx *store.Tx, chatID string, with jsonx.Object, opts WriteOptions) (int64, error) {
	return s.mutateIn(ctx, tx, chatID, "saveMetadata", opts, mergeMetadata(with))
}

// metadataKey is a metadata key ReplaceMetadataValueIn can look up by path.
var metadataKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// ClearMetadataValueIn removes key from the metadata of every chat where it
// holds the string value, each as a saveMetadata write inside tx (so a
// deleted persona takes its chat locks with it, atomically). It returns the
// ids of the chats it changed.
func (s *Service) ClearMetadataValueIn(ctx context.Context, tx *store.Tx, key, value string) ([]string, error) {
	return s.ReplaceMetadataValueIn(ctx, tx, key, value, json.RawMessage("null"))
}

// ReplaceMetadataValueIn sets key to with (null removes it) in the
// metadata of every chat where it holds the string value, each as a
// saveMetadata write inside tx (so a renamed lorebook stays bound to its
// chats, atomically). It returns the ids of the chats it changed.
func (s *Service) ReplaceMetadataValueIn(ctx context.Context, tx *store.Tx, key, value string, with json.RawMessage) ([]string, error) {
	if !metadataKey.MatchString(key) {
		return nil, fmt.Errorf("change chat metadata: bad key %q", key)
	}
	rows, err := tx.QueryContext(ctx, `SELECT uuid FROM chats WHERE json_type(metadata, ?) = 'text' AND json_extract(metadata, ?) = ?`,
		"$."+key, "$."+key, value)
	if err != nil {
		return nil, fmt.Errorf("change chat metadata %s: %w", key, err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("change chat metadata %s: %w", key, err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("change chat metadata %s: %w", key, err)
	}
	change := mergeMetadata(jsonx.Object{key: with})
	for _, id := range ids {
		if _, err := s.mutateIn(ctx, tx, id, "saveMetadata", WriteOptions{}, change); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// mergeMetadata is the change {...metadata, ...with}, null removing a key.
func mergeMetadata(with jsonx.Object) func(m *mutation) error {
	return func(m *mutation) error {
		next := m.chat.metadata.Clone()
		for k, v := range with {
			if jsonx.IsNull(v) {
				delete(next, k)
			} else {
				next[k] = v
			}
		}
		return setMetadata(m, next)
	}
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
	m.emit(events.ChatMetadataUpdated, &events.ChatMetadataUpdatedPayload{Metadata: next})
	return nil
}
