package state

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/events"
	"hearth/backend/jsonx"
)

// emptyState is the value replay starts from.
var emptyState = []byte(`{}`)

// materialize applies the active commits of rows, in log order, to {}. When
// one fails to apply it returns the value before it and that commit's
// position in rows; failAt is -1 when all applied.
func materialize(rows []logRow) (value []byte, failAt int, err error) {
	// Fast path: one patch made of every active commit, applied once.
	var all bytes.Buffer
	all.WriteByte('[')
	n := 0
	for _, r := range rows {
		if !r.active {
			continue
		}
		inner := bytes.TrimSpace(r.Ops)
		inner = bytes.TrimSpace(inner[1 : len(inner)-1])
		if len(inner) == 0 {
			continue
		}
		if n > 0 {
			all.WriteByte(',')
		}
		all.Write(inner)
		n++
	}
	all.WriteByte(']')
	if n == 0 {
		return emptyState, -1, nil
	}
	if p, err := jsonpatch.DecodePatch(all.Bytes()); err == nil {
		if out, err := jsonx.ApplyPatch(emptyState, p, nil); err == nil && isObject(out) {
			return out, -1, nil
		}
	}
	// Slow path: find the first commit that does not apply.
	value = emptyState
	for i, r := range rows {
		if !r.active {
			continue
		}
		next, ok := applyOps(value, r.Ops)
		if !ok {
			return value, i, nil
		}
		value = next
	}
	return nil, -1, fmt.Errorf("floor replay: the combined patch failed but every commit applied")
}

// applyOps applies one commit's operations; the result must stay an object.
func applyOps(doc []byte, ops json.RawMessage) ([]byte, bool) {
	p, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return nil, false
	}
	out, err := jsonx.ApplyPatch(doc, p, nil)
	if err != nil || !isObject(out) {
		return nil, false
	}
	return out, true
}

func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// replay recomputes a floor state's materialized value from its log. A
// commit that no longer applies cuts the log there: it and every later
// commit move to "<ns>__orphans". It returns the CHAT_STATE_CHANGED events
// of what changed.
func replay(ctx context.Context, q queryer, chat int64, chatID, ns string) ([]events.Event, error) {
	rows, err := replayRows(ctx, q, chat, ns)
	if err != nil {
		return nil, err
	}
	var value []byte // nil: the log is empty
	var evs []events.Event
	if len(rows) > 0 {
		v, failAt, err := materialize(rows)
		if err != nil {
			return nil, err
		}
		if failAt >= 0 {
			ev, err := orphan(ctx, q, chat, chatID, ns, rows[failAt:])
			if err != nil {
				return nil, err
			}
			evs = append(evs, ev)
			if failAt == 0 {
				v = nil
			}
		}
		if v != nil {
			if v, err = canonical(v); err != nil {
				return nil, err
			}
		}
		value = v
	}
	st, err := readStored(ctx, q, chat, ns)
	if err != nil {
		return nil, err
	}
	if sameJSON(st.value, value) {
		return evs, nil
	}
	rev, err := writeStored(ctx, q, chat, ns, value, st)
	if err != nil {
		return nil, err
	}
	return append(evs, changed(chatID, ns, rev, value == nil)), nil
}

// maxOrphans bounds the commits kept in one "<ns>__orphans" (newest kept).
const maxOrphans = 5000

// orphan removes tail from the log and appends it to "<ns>__orphans", so a
// broken chain is cut but never silently lost.
func orphan(ctx context.Context, q queryer, chat int64, chatID, ns string, tail []logRow) (events.Event, error) {
	name := ns + OrphanSuffix
	st, err := readStored(ctx, q, chat, name)
	if err != nil {
		return events.Event{}, err
	}
	kept := Log{Version: 1}
	if st.exists() {
		_ = json.Unmarshal(st.value, &kept)
		kept.Version = 1
	}
	gaps, err := chatGaps(ctx, q, chat)
	if err != nil {
		return events.Event{}, err
	}
	for _, r := range tail {
		var pos int
		if err := q.QueryRowContext(ctx, `SELECT idx FROM messages WHERE id = ?`, r.messageID).Scan(&pos); err != nil {
			return events.Event{}, fmt.Errorf("orphan floor commit %d: %w", r.Seq, err)
		}
		r.Floor = gaps.Index(pos)
		kept.Commits = append(kept.Commits, r.Commit)
	}
	if over := len(kept.Commits) - maxOrphans; over > 0 {
		kept.Commits = kept.Commits[over:]
	}
	raw, err := json.Marshal(kept)
	if err != nil {
		return events.Event{}, fmt.Errorf("encode orphans %s: %w", ns, err)
	}
	rev, err := writeStored(ctx, q, chat, name, raw, st)
	if err != nil {
		return events.Event{}, err
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM floor_commits WHERE chat_id = ? AND ns = ? AND seq >= ?`, chat, ns, tail[0].Seq); err != nil {
		return events.Event{}, fmt.Errorf("cut floor log %s: %w", ns, err)
	}
	if err := bumpLog(ctx, q, chat, ns); err != nil {
		return events.Event{}, err
	}
	return changed(chatID, name, rev, false), nil
}

// sameJSON compares two stored values (nil = absent). Values are stored as
// replay builds them, so equal states have equal bytes.
func sameJSON(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return bytes.Equal(a, b)
}
