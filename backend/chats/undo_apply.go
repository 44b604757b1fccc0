package chats

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/wI2L/jsondiff"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
	"hearth/backend/state"
)

// decodeJournalOps decodes a stored operation list with the validation
// every patch gets (a big write's entry may hold more than MaxPatchOps).
// The text is validated once and then split without decoding values: the
// value of an edit's operation is the whole old text of what it replaced.
func decodeJournalOps(stored string) ([]patchOp, error) {
	b := []byte(stored)
	if !json.Valid(b) {
		return nil, apperr.New(apperr.CodePatchInvalid, "not a JSON array of operations: %v", json.Unmarshal(b, new(any)))
	}
	raws, ok := jsonx.SplitEncodedArray(b)
	if !ok {
		return nil, apperr.New(apperr.CodePatchInvalid, "not a JSON array of operations")
	}
	out := make([]patchOp, len(raws))
	for i, raw := range raws {
		members, ok := jsonx.SplitEncoded(raw)
		if !ok {
			return nil, patchInvalid(i, "must be an object with string op and path")
		}
		o := opFields{Value: members["value"]}
		if !stringMember(members, "op", &o.Op) || !stringMember(members, "path", &o.Path) || !stringMember(members, "from", &o.From) {
			return nil, patchInvalid(i, "must be an object with string op and path")
		}
		var err error
		if out[i], err = o.decode(i, raw); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stringMember reads member name of o into *dst as encoding/json would
// into a *string field: absent or null leaves it nil, anything but a string
// is an error (false).
func stringMember(o jsonx.Object, name string, dst **string) bool {
	v, ok := o[name]
	return !ok || json.Unmarshal(v, dst) == nil
}

// applyStep applies ops to the chat inside m, after proving that check
// (their opposite) brings the result back to the chat as it is now: the
// parts of the chat ops reach are exactly as the journaled write left
// them. It reports the paths that drifted when they are not.
func (s *Service) applyStep(ctx context.Context, m *mutation, ops, check []patchOp) (drifted []string, err error) {
	d := newSparseDoc(ctx, m.tx, m.chat)
	switch err := d.apply(ops); {
	case err == errWholeDocument:
		return s.applyWholeStep(ctx, m, ops, check)
	case err != nil:
		return nil, err
	}
	if replacesInPlace(ops, check) {
		drifted, err = d.driftedValues(check)
	} else {
		drifted, err = d.driftedBack(check)
	}
	if err != nil || len(drifted) > 0 {
		return drifted, err
	}
	return nil, s.commitSparse(ctx, m, d, ops, check)
}

// driftedBack applies check to a copy of d and returns where the result
// is not the chat as stored.
func (d *sparseDoc) driftedBack(check []patchOp) ([]string, error) {
	back := d.clone()
	if err := back.apply(check); err != nil {
		return nil, err
	}
	return back.differences()
}

// applyWholeStep is applyStep for operations only the whole document can
// take (a structural chat.patch journals a diff of the whole document).
func (s *Service) applyWholeStep(ctx context.Context, m *mutation, ops, check []patchOp) ([]string, error) {
	old, err := loadRange(ctx, m.tx, m.chat, 0, m.chat.messageCount)
	if err != nil {
		return nil, err
	}
	doc := wholeDoc(m.chat.metadata, old)
	next, err := applyStripped(doc, ops, 0, 0)
	if err != nil {
		return nil, err
	}
	back, err := applyStripped(next, check, 0, 0)
	if err != nil {
		return nil, err
	}
	if !jsonEqualBytes(back, doc) {
		return []string{""}, nil
	}
	return nil, s.patchWhole(ctx, m, ops)
}

func jsonEqualBytes(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return jsonEqual(x, y)
}

// commitSparse stores d in the chat inside m, journaling each change as the
// ordinary writes do: the metadata, the changed messages that stay (at
// their stored index), the removed messages (highest index first), then
// the added ones at their final positions (lowest first). Each path is
// valid against the document the previous operation left.
//
// ops took the chat to d and inverse (checked by the caller) takes d back.
// When d only edits messages in place and each stores as d has it, those
// two are the write's journal entry as they are, and diffing each message
// again (about 0.4 ms of an undo of one edit) is skipped.
func (s *Service) commitSparse(ctx context.Context, m *mutation, d *sparseDoc, ops, inverse []patchOp) error {
	if d.metaPatched {
		if err := setMetadata(m, d.meta); err != nil {
			return err
		}
	}
	indexes := slices.Sorted(maps.Keys(d.patched))
	next := make(map[int]*StMessage, len(indexes))
	encoded := make(map[int][]byte, len(indexes))
	verbatim := !d.metaPatched && d.order == nil
	for _, i := range indexes {
		if d.removed[i] {
			continue
		}
		msg, ok := messageFromEdit(d.loaded[i].msg, d.loadedDoc[i], d.docs[i])
		if !ok {
			var err error
			if msg, err = messageFromPatched(d.loaded[i].msg, d.docs[i], i, s.now); err != nil {
				return err
			}
		}
		next[i], encoded[i] = msg, msg.mustJSON()
		if verbatim {
			stored, ok := jsonx.SplitEncoded(encoded[i])
			verbatim = ok && sameMembers(stored, d.docs[i], false)
		}
	}
	if verbatim {
		return s.rewriteVerbatim(ctx, m, d, indexes, next, encoded, ops, inverse)
	}
	for _, i := range indexes {
		if d.removed[i] {
			continue
		}
		sm := d.loaded[i]
		if _, err := s.rewrite(ctx, m, sm, next[i]); err != nil {
			return err
		}
		if err := followSwipes(ctx, m, sm.rowID, sm.msg, next[i]); err != nil {
			return err
		}
	}
	if err := s.removeStored(ctx, m, d); err != nil {
		return err
	}
	return s.insertAdded(ctx, m, d)
}

// rewriteVerbatim stores the messages d edited in place (next, encoded
// as encoded) and journals ops and inverse as the write's change. A
// message that encodes as stored changes nothing; when none changed,
// neither does the write.
func (s *Service) rewriteVerbatim(ctx context.Context, m *mutation, d *sparseDoc, indexes []int, next map[int]*StMessage, encoded map[int][]byte, ops, inverse []patchOp) error {
	changed := false
	for _, i := range indexes {
		sm := d.loaded[i]
		if string(encoded[i]) == string(sm.json()) {
			continue
		}
		if err := m.rewriteRow(ctx, sm.rowID, sm.msg, next[i]); err != nil {
			return err
		}
		if err := followSwipes(ctx, m, sm.rowID, sm.msg, next[i]); err != nil {
			return err
		}
		m.chat.bytes += int64(len(encoded[i]) - len(sm.json()))
		changed = true
	}
	if !changed {
		return nil
	}
	m.ops = append(m.ops, journalOps(ops)...)
	m.inverse = append(m.inverse, journalOps(inverse))
	m.changed = true
	return nil
}

// journalOps turns checked operations back into the journal's form.
func journalOps(ops []patchOp) jsondiff.Patch {
	out := make(jsondiff.Patch, len(ops))
	for i, op := range ops {
		out[i] = jsondiff.Operation{Type: op.op, Path: joinPointer(op.path)}
		if op.from != nil {
			out[i].From = joinPointer(op.from)
		}
		if op.val != nil {
			out[i].Value = op.val
		}
	}
	return out
}

// removeStored deletes the stored messages d removed.
func (s *Service) removeStored(ctx context.Context, m *mutation, d *sparseDoc) error {
	if len(d.removed) == 0 {
		return nil
	}
	indexes := slices.Sorted(maps.Keys(d.removed))
	if err := d.loadRuns(indexes); err != nil {
		return err
	}
	rowIDs := make([]int64, len(indexes))
	for i, idx := range indexes {
		rowIDs[i] = d.loaded[idx].rowID
	}
	if err := deleteRows(ctx, m.tx, m.chat, rowIDs, indexes); err != nil {
		return err
	}
	for i := len(indexes) - 1; i >= 0; i-- {
		m.recordRemove(indexes[i], d.loaded[indexes[i]].json())
	}
	m.chat.messageCount -= len(indexes)
	m.after.structural = true
	return nil
}

// loadRuns reads the stored messages at indexes (ascending) not read yet,
// one query per run of consecutive indexes.
func (d *sparseDoc) loadRuns(indexes []int) error {
	for i := 0; i < len(indexes); {
		if _, ok := d.loaded[indexes[i]]; ok {
			i++
			continue
		}
		j := i + 1
		for j < len(indexes) && indexes[j] == indexes[j-1]+1 {
			if _, ok := d.loaded[indexes[j]]; ok {
				break
			}
			j++
		}
		got, err := loadRange(d.ctx, d.q, d.chat, indexes[i], indexes[j-1]+1)
		if err != nil {
			return err
		}
		if len(got) != j-i {
			return fmt.Errorf("chat %s: %d rows for indexes %d..%d", d.chat.uuid, len(got), indexes[i], indexes[j-1])
		}
		for _, sm := range got {
			sm.encoded = sm.msg.mustJSON()
			d.loaded[sm.index] = sm
		}
		i = j
	}
	return nil
}

// insertAdded stores the messages d added, each at its final index, under
// the id it had when it was removed if no message holds that id now.
func (s *Service) insertAdded(ctx context.Context, m *mutation, d *sparseDoc) error {
	var indexes []int
	for index, sl := range d.order {
		if sl < 0 {
			indexes = append(indexes, index)
		}
	}
	if len(indexes) == 0 {
		return nil
	}
	msgs := make([]*StMessage, len(indexes))
	ids := make([]string, len(indexes))
	namer := s.defaultNamer(ctx, m.chat)
	for i, index := range indexes {
		o := d.added[-d.order[index]-1].Clone()
		_ = json.Unmarshal(o["id"], &ids[i])
		delete(o, "id")
		var err error
		if msgs[i], err = newMessage(o, fmt.Sprintf("messages[%d]", index), namer, s.now()); err != nil {
			return err
		}
	}
	positions, err := makeRoom(ctx, m, indexes)
	if err != nil {
		return err
	}
	for i, index := range indexes {
		rowID, err := m.insertRow(ctx, positions[i], msgs[i])
		if err != nil {
			return err
		}
		if err := restoreID(ctx, m, rowID, msgs[i], ids[i]); err != nil {
			return err
		}
		m.chat.messageCount++
		m.recordAdd(index, msgs[i].mustJSON())
	}
	m.after.structural = true
	return nil
}

// makeRoom returns free positions for messages about to be inserted at
// indexes (ascending, final). An undone delete finds the gaps its messages
// left (see msgorder), and nothing moves; otherwise the chat's rows are
// renumbered to their indexes and moved up to open the room.
func makeRoom(ctx context.Context, m *mutation, indexes []int) ([]int, error) {
	if positions, left, ok := m.chat.gaps.Place(m.chat.messageCount, indexes); ok {
		return positions, setGaps(ctx, m.tx, m.chat, left)
	}
	if err := densify(ctx, m.tx, m.chat); err != nil {
		return nil, err
	}
	return indexes, openGaps(ctx, m, indexes)
}

// openGaps moves the stored messages of a chat without gaps up so that
// positions (ascending, final indexes of the messages about to be
// inserted) are free. Rows from the first of them on are parked at
// negative positions, then each band between two lands at its final
// index, so (chat_id, idx) stays unique throughout.
func openGaps(ctx context.Context, m *mutation, positions []int) error {
	if positions[0] >= m.chat.messageCount {
		return nil // appended at the end: nothing moves
	}
	if _, err := m.tx.ExecContext(ctx, `UPDATE messages SET idx = -idx - 1 WHERE chat_id = ? AND idx >= ?`, m.chat.id, positions[0]); err != nil {
		return fmt.Errorf("open gaps: %w", err)
	}
	for j, p := range positions {
		// Stored index o lands after gap j when p_j - j <= o < p_(j+1) - (j+1);
		// parked at -o-1, it goes to o + j + 1.
		lo := int64(p - j)
		hi := int64(1 << 62)
		if j+1 < len(positions) {
			hi = int64(positions[j+1] - (j + 1))
		}
		if _, err := m.tx.ExecContext(ctx, `UPDATE messages SET idx = -idx + ? WHERE chat_id = ? AND idx <= ? AND idx > ?`,
			j, m.chat.id, -lo-1, -hi-1); err != nil {
			return fmt.Errorf("open gaps: %w", err)
		}
	}
	return nil
}

// keepRestoredID gives a message that a whole-document undo or redo
// re-inserted its old id back (patchWhole gives new objects fresh ids).
func (m *mutation) keepRestoredID(ctx context.Context, rowID int64, msg *StMessage, id string) error {
	if m.method != methodUndo && m.method != methodRedo {
		return nil
	}
	return restoreID(ctx, m, rowID, msg, id)
}

// restoreID gives a re-inserted message back the id it had, unless some
// message holds it now.
func restoreID(ctx context.Context, m *mutation, rowID int64, msg *StMessage, id string) error {
	if id == "" || id == msg.ID {
		return nil
	}
	var taken bool
	if err := m.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE uuid = ?)`, id).Scan(&taken); err != nil {
		return fmt.Errorf("restore message id: %w", err)
	}
	if taken {
		return nil
	}
	if _, err := m.tx.ExecContext(ctx, `UPDATE messages SET uuid = ? WHERE id = ?`, id, rowID); err != nil {
		return fmt.Errorf("restore message id: %w", err)
	}
	msg.ID = id
	return nil
}

// followSwipes keeps floor-state commits on their own swipes when a step
// takes one swipe out of a message (its commits go, later swipes' shift
// down, as for deleteSwipe) or puts one back in the middle (later swipes'
// commits shift up). The commits a deleted swipe had are not restored.
func followSwipes(ctx context.Context, m *mutation, rowID int64, prev, next *StMessage) error {
	switch len(next.Swipes) - len(prev.Swipes) {
	case -1:
		if k := swipeGap(next, prev); k >= 0 {
			m.after.swipesRemoved = append(m.after.swipesRemoved, state.SwipeRemoval{RowID: rowID, Swipe: k})
		}
	case 1:
		if k := swipeGap(prev, next); k >= 0 && k < len(prev.Swipes) {
			if _, err := m.tx.ExecContext(ctx, `UPDATE floor_commits SET swipe_id = swipe_id + 1 WHERE message_id = ? AND swipe_id >= ?`, rowID, k); err != nil {
				return fmt.Errorf("shift swipe commits: %w", err)
			}
		}
	}
	return nil
}

// swipeGap returns k when long's swipes are short's with one inserted at
// k, or -1. Swipes are told apart by text and send date (but for the
// active swipe, whose swipe_info mirrors the message and may have moved).
func swipeGap(short, long *StMessage) int {
	same := func(i, j int) bool {
		if short.Swipes[i] != long.Swipes[j] {
			return false
		}
		return i == short.SwipeID || j == long.SwipeID ||
			string(short.SwipeInfo[i]["send_date"]) == string(long.SwipeInfo[j]["send_date"])
	}
	k := 0
	for k < len(short.Swipes) && same(k, k) {
		k++
	}
	for i := k; i < len(short.Swipes); i++ {
		if !same(i, i+1) {
			return -1
		}
	}
	return k
}
