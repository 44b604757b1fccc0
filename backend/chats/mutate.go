package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/wI2L/jsondiff"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// WriteOptions are the options every chat write accepts.
type WriteOptions struct {
	// Silent suppresses the write's events (the change is still committed).
	Silent bool `json:"silent"`
	// IfRevision, when set, makes the write fail with chat.conflict unless the
	// chat is at exactly this revision.
	IfRevision *int64 `json:"ifRevision"`
}

// The change journal keeps, per chat, at most journalKeep revisions and
// journalMaxBytes of operations (always at least the newest entry), so bulk
// imports do not keep a second copy of a chat forever.
const (
	journalKeep     = 1000
	journalMaxBytes = 4 << 20
)

// mutation collects what one write transaction changed: the journal ops, the
// events to publish after commit, and counters for the chats row.
type mutation struct {
	tx      *store.Tx
	chat    *chatRow
	method  string
	ops     jsondiff.Patch
	inverse []jsondiff.Patch // one group per change; applied in reverse order
	events  []queued
	changed bool
	// after is what the write did to message rows, for the derived data
	// (floor states, search chunks) settled before the commit.
	after afterWrite
}

// mutate runs fn as one transaction against chatID. If fn records no
// change, nothing is written and no event is sent. Otherwise the revision is
// bumped, the journal appended and the events published after commit, each
// carrying chatId and the new revision.
func (s *Service) mutate(ctx context.Context, chatID, method string, opts WriteOptions, fn func(m *mutation) error) (int64, error) {
	var rev int64
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		var err error
		rev, err = s.mutateIn(ctx, tx, chatID, method, opts, fn)
		return err
	})
	return rev, err
}

// mutateIn is mutate inside a transaction the caller owns (a write that
// changes two chats at once, such as a branch marking its source).
func (s *Service) mutateIn(ctx context.Context, tx *store.Tx, chatID, method string, opts WriteOptions, fn func(m *mutation) error) (int64, error) {
	chat, err := loadChat(ctx, tx, chatID)
	if err != nil {
		return 0, err
	}
	if opts.IfRevision != nil && *opts.IfRevision != chat.revision {
		return 0, apperr.New(apperr.CodeChatConflict, "chat is at revision %d, not %d", chat.revision, *opts.IfRevision).
			WithDetails(map[string]any{"chatId": chatID, "currentRevision": chat.revision, "expectedRevision": *opts.IfRevision})
	}
	m := &mutation{tx: tx, chat: chat, method: method}
	if err := fn(m); err != nil {
		return 0, err
	}
	if !m.changed {
		return chat.revision, nil
	}
	if err := s.settle(ctx, m, opts.Silent); err != nil {
		return 0, err
	}
	chat.revision++
	chat.updatedAt = s.now().UnixMilli()
	meta, _ := chat.metadata.MarshalJSON()
	if _, err := tx.ExecContext(ctx, `UPDATE chats SET revision = ?, message_count = ?, bytes = ?, metadata = ?, updated_at = ?,
		change_seq = (SELECT MAX(change_seq) + 1 FROM chats) WHERE id = ?`,
		chat.revision, chat.messageCount, chat.bytes, string(meta), chat.updatedAt, chat.id); err != nil {
		return 0, fmt.Errorf("bump revision: %w", err)
	}
	if err := m.appendJournal(ctx, s.now().UnixMilli()); err != nil {
		return 0, err
	}
	if opts.Silent {
		return chat.revision, nil
	}
	evs := make([]events.Event, len(m.events))
	for i, q := range m.events {
		q.payload.SetChat(chat.uuid, chat.revision)
		evs[i] = events.Event{Type: q.typ, Payload: q.payload}
	}
	tx.AfterCommit(func() {
		for _, e := range evs {
			s.bus.Publish(e)
		}
	})
	return chat.revision, nil
}

// chatPayload is the payload of a chat write's event: a pointer to a
// payload struct holding events.ChatRevision, which mutate stamps once
// the write's revision is known.
type chatPayload interface {
	SetChat(chatID string, revision int64)
}

// queued is an event a mutation publishes after commit.
type queued struct {
	typ     string
	payload chatPayload
}

// emit queues an event for after commit; mutate fills chatId and revision.
func (m *mutation) emit(typ string, payload chatPayload) {
	m.events = append(m.events, queued{typ, payload})
}

// emitFirst is emit for an event that goes out before those queued so far
// (CHAT_PATCHED: a window applies its operations before the events that
// follow from them).
func (m *mutation) emitFirst(typ string, payload chatPayload) {
	m.events = append([]queued{{typ, payload}}, m.events...)
}

func (m *mutation) appendJournal(ctx context.Context, now int64) error {
	inverse := jsondiff.Patch{}
	for i := len(m.inverse) - 1; i >= 0; i-- {
		inverse = append(inverse, m.inverse[i]...)
	}
	ops := m.ops
	if ops == nil {
		ops = jsondiff.Patch{}
	}
	opsJSON, err := encodePatch(ops)
	if err != nil {
		return fmt.Errorf("encode journal ops: %w", err)
	}
	invJSON, err := encodePatch(inverse)
	if err != nil {
		return fmt.Errorf("encode journal inverse: %w", err)
	}
	size := len(opsJSON) + len(invJSON)
	if _, err := m.tx.ExecContext(ctx, `INSERT INTO chat_journal (chat_id, revision, method, ops, inverse, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		m.chat.id, m.chat.revision, m.method, string(opsJSON), string(invJSON), size, now); err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	// Pruning scans the chat's journal; do it now and then, and whenever a
	// big entry may have pushed it over the byte cap.
	if m.chat.revision%50 == 0 || size > journalMaxBytes/16 {
		return m.pruneJournal(ctx)
	}
	return nil
}

// pruneJournal drops the entries past the journal's caps. One walk of the
// (revision, size) index, newest first, finds the first entry past either
// cap: a window over running totals did the same in SQL, but cost
// milliseconds where the walk costs under one.
func (m *mutation) pruneJournal(ctx context.Context) error {
	rows, err := m.tx.QueryContext(ctx, `SELECT revision, size FROM chat_journal WHERE chat_id = ? ORDER BY revision DESC`, m.chat.id)
	if err != nil {
		return fmt.Errorf("prune journal: %w", err)
	}
	defer rows.Close()
	var cutoff, total int64
	for n := 1; rows.Next(); n++ {
		var rev, size int64
		if err := rows.Scan(&rev, &size); err != nil {
			return fmt.Errorf("prune journal: %w", err)
		}
		total += size
		// The newest entry stays whatever its size.
		if n > journalKeep || (n > 1 && total > journalMaxBytes) {
			cutoff = rev
			break
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("prune journal: %w", err)
	}
	rows.Close()
	if cutoff == 0 {
		return nil
	}
	if _, err := m.tx.ExecContext(ctx, `DELETE FROM chat_journal WHERE chat_id = ? AND revision <= ?`, m.chat.id, cutoff); err != nil {
		return fmt.Errorf("prune journal: %w", err)
	}
	return nil
}

func messagePath(index int) string { return "/messages/" + strconv.Itoa(index) }

// recordAdd journals the insertion of msg at index.
func (m *mutation) recordAdd(index int, msgJSON []byte) {
	path := messagePath(index)
	m.ops = append(m.ops, jsondiff.Operation{Type: jsondiff.OperationAdd, Path: path, Value: json.RawMessage(msgJSON)})
	m.inverse = append(m.inverse, jsondiff.Patch{{Type: jsondiff.OperationRemove, Path: path}})
	m.chat.bytes += int64(len(msgJSON) + 1)
	m.changed = true
}

// recordRemove journals the removal of the message at index.
func (m *mutation) recordRemove(index int, oldJSON []byte) {
	path := messagePath(index)
	m.ops = append(m.ops, jsondiff.Operation{Type: jsondiff.OperationRemove, Path: path})
	m.inverse = append(m.inverse, jsondiff.Patch{{Type: jsondiff.OperationAdd, Path: path, Value: json.RawMessage(oldJSON)}})
	m.chat.bytes -= int64(len(oldJSON) + 1)
	m.changed = true
}

// recordReplace journals the change of message index from old to new as a
// minimal RFC 6902 diff. It reports whether anything differed.
func (m *mutation) recordReplace(index int, oldJSON, newJSON []byte) (bool, error) {
	return m.recordDiff(messagePath(index), oldJSON, newJSON, int64(len(newJSON)-len(oldJSON)))
}

// recordMetadata journals a metadata change.
func (m *mutation) recordMetadata(oldJSON, newJSON []byte) (bool, error) {
	return m.recordDiff("/metadata", oldJSON, newJSON, int64(len(newJSON)-len(oldJSON)))
}

func (m *mutation) recordDiff(prefix string, oldJSON, newJSON []byte, sizeDelta int64) (bool, error) {
	if string(oldJSON) == string(newJSON) {
		return false, nil
	}
	fwd, back, err := jsonx.DiffBoth(oldJSON, newJSON)
	if err != nil {
		return false, fmt.Errorf("diff %s: %w", prefix, err)
	}
	if len(fwd) == 0 {
		return false, nil
	}
	m.ops = append(m.ops, prefixed(prefix, fwd)...)
	m.inverse = append(m.inverse, prefixed(prefix, back))
	m.chat.bytes += sizeDelta
	m.changed = true
	return true, nil
}

func prefixed(prefix string, p jsondiff.Patch) jsondiff.Patch {
	out := make(jsondiff.Patch, len(p))
	for i, op := range p {
		op.Path = prefix + op.Path
		if op.From != "" {
			op.From = prefix + op.From
		}
		out[i] = op
	}
	return out
}
