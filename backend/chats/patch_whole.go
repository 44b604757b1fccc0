package chats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// patchWhole applies ops that restructure the message array (insert,
// remove, move, replace whole messages) to the full document, then
// reconciles the result with the stored rows: messages keep their id (and
// row) when the patched document still carries it; new objects become new
// messages; missing ones are deleted.
func (s *Service) patchWhole(ctx context.Context, m *mutation, ops []patchOp) error {
	old, err := loadRange(ctx, m.tx, m.chat, 0, m.chat.messageCount)
	if err != nil {
		return err
	}
	oldDoc := wholeDoc(m.chat.metadata, old)
	raws := make([]json.RawMessage, len(ops))
	for i, op := range ops {
		raws[i] = op.raw
	}
	patchJSON, _ := json.Marshal(raws)
	p, err := jsonpatch.DecodePatch(patchJSON)
	if err != nil {
		return apperr.New(apperr.CodePatchInvalid, "patch: %v", err)
	}
	newDoc, err := jsonx.ApplyPatch(oldDoc, p, patchOptions)
	var tooBig *jsonpatch.AccumulatedCopySizeError
	if errors.As(err, &tooBig) {
		// Not worth finding the op: replaying them one by one would copy
		// as much again.
		return apperr.New(apperr.CodePatchInvalid, "patch: the copies add more than %d MiB", jsonx.MaxCopyBytes>>20)
	}
	if err != nil {
		return explainPatchFailure(oldDoc, ops, err)
	}
	var doc struct {
		Metadata json.RawMessage   `json:"metadata"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(newDoc, &doc); err != nil || doc.Messages == nil {
		return apperr.New(apperr.CodePatchInvalid, "the patched document must keep metadata as an object and messages as an array")
	}
	meta, err := jsonx.DecodeObject(doc.Metadata, "metadata")
	if err != nil {
		return apperr.New(apperr.CodePatchInvalid, "metadata must stay an object")
	}
	if err := jsonx.LimitDepth(jsonx.Depth(doc.Metadata), jsonx.ObjectDepth(m.chat.metadata), "chat metadata"); err != nil {
		return err
	}

	byID := make(map[string]storedMessage, len(old))
	for _, sm := range old {
		byID[sm.msg.ID] = sm
	}
	type slot struct {
		old *storedMessage
		msg *StMessage
		id  string // the id a new object carried (kept by undo and redo)
	}
	final := make([]slot, len(doc.Messages))
	namer := s.defaultNamer(ctx, m.chat)
	for i, raw := range doc.Messages {
		o, err := jsonx.DecodeObject(raw, fmt.Sprintf("messages[%d]", i))
		if err != nil {
			return apperr.New(apperr.CodePatchInvalid, "messages[%d] must be an object", i)
		}
		var id string
		_ = json.Unmarshal(o["id"], &id)
		if sm, ok := byID[id]; ok {
			delete(byID, id)
			msg, err := messageFromPatched(sm.msg, o, i, s.now)
			if err != nil {
				return err
			}
			final[i] = slot{old: &sm, msg: msg}
			continue
		}
		delete(o, "id")
		clean, _ := o.MarshalJSON()
		msg, err := decodeNewMessage(clean, fmt.Sprintf("messages[%d]", i), namer, s.now())
		if err != nil {
			return err
		}
		final[i] = slot{msg: msg, id: id}
	}

	gone := make([]any, 0, len(byID))
	for _, sm := range byID {
		gone = append(gone, sm.rowID)
	}
	for len(gone) > 0 {
		batch := gone[:min(len(gone), 500)]
		gone = gone[len(batch):]
		ph := strings.TrimSuffix(strings.Repeat("?,", len(batch)), ",")
		if _, err := m.tx.ExecContext(ctx, `DELETE FROM messages WHERE id IN (`+ph+`)`, batch...); err != nil {
			return fmt.Errorf("patch: delete messages: %w", err)
		}
	}
	// Rows may be gone or in a new order: floor states need settling.
	m.after.structural = true
	// Park every surviving row at a negative position, then place each at
	// its index, so (chat_id, idx) stays unique throughout.
	if _, err := m.tx.ExecContext(ctx, `UPDATE messages SET idx = -idx - 1 WHERE chat_id = ?`, m.chat.id); err != nil {
		return fmt.Errorf("patch: park messages: %w", err)
	}
	// Placed anew, positions are indexes: no gaps.
	if err := setGaps(ctx, m.tx, m.chat, nil); err != nil {
		return err
	}
	var bytes int64
	for i, sl := range final {
		if sl.old == nil {
			rowID, err := m.insertRow(ctx, i, sl.msg)
			if err != nil {
				return err
			}
			if err := m.keepRestoredID(ctx, rowID, sl.msg, sl.id); err != nil {
				return err
			}
		} else {
			if _, err := m.tx.ExecContext(ctx, `UPDATE messages SET idx = ? WHERE id = ?`, i, sl.old.rowID); err != nil {
				return fmt.Errorf("patch: place message: %w", err)
			}
			if err := m.rewriteRow(ctx, sl.old.rowID, sl.old.msg, sl.msg); err != nil {
				return err
			}
		}
		bytes += int64(len(sl.msg.mustJSON()) + 1)
	}

	msgs := make([]storedMessage, len(final))
	for i, sl := range final {
		msgs[i] = storedMessage{index: i, msg: sl.msg}
	}
	after := wholeDoc(meta, msgs)
	if string(after) == string(oldDoc) {
		return nil
	}
	fwd, back, err := jsonx.DiffBoth(oldDoc, after)
	if err != nil {
		return fmt.Errorf("patch: diff: %w", err)
	}
	m.ops = append(m.ops, fwd...)
	m.inverse = append(m.inverse, back)
	m.chat.metadata = meta
	m.chat.messageCount = len(final)
	m.chat.bytes = bytes
	m.changed = true
	return nil
}

// wholeDoc renders the chat document { metadata, messages }.
func wholeDoc(meta jsonx.Object, msgs []storedMessage) []byte {
	var b strings.Builder
	metaJSON, _ := meta.MarshalJSON()
	b.WriteString(`{"metadata":`)
	b.Write(metaJSON)
	b.WriteString(`,"messages":[`)
	for i, sm := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(sm.msg.mustJSON())
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// explainPatchFailure finds the first failing op to report it precisely.
func explainPatchFailure(doc []byte, ops []patchOp, cause error) error {
	for i, op := range ops {
		next, err := applyOne(doc, op, 0, i)
		if err != nil {
			return err
		}
		doc = next
	}
	return apperr.New(apperr.CodePatchInvalid, "patch: %v", cause)
}
