package state

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"hearth/backend/events"
	"hearth/backend/jsonx"
)

// settleAll brings the floor states in todo in line with their logs after
// a change: key by key when it can (replaying, for each key noted, the
// active commits touching that key alone), else by a whole replay — for an
// entangled namespace, one without a stored value or commits, and whenever
// a key's commits no longer apply (the whole replay then cuts the log).
// Reads are batched over the namespaces: a change often touches many.
func settleAll(ctx context.Context, q queryer, chat int64, chatID string, names []string, todo todoList) ([]events.Event, error) {
	metas, err := settleMetas(ctx, q, chat, names)
	if err != nil {
		return nil, err
	}
	var pairs [][2]string
	for _, ns := range names {
		m, w := metas[ns], todo[ns]
		if m == nil || m.whole(w) || len(w.keys) == 0 {
			continue
		}
		for k := range w.keys {
			pairs = append(pairs, [2]string{ns, k})
		}
	}
	ops, broken, err := keyOps(ctx, q, chat, pairs)
	if err != nil {
		return nil, err
	}
	var evs []events.Event
	for _, ns := range names {
		m, w := metas[ns], todo[ns]
		switch {
		case m == nil:
			continue // no floor state (any more): nothing to settle
		case m.whole(w):
			ev, err := replay(ctx, q, chat, chatID, ns)
			if err != nil {
				return nil, err
			}
			evs = append(evs, ev...)
			continue
		case len(w.keys) == 0:
			continue // the log changed, but no key its commits touched
		}
		value, ok := replayKeys(m.st.value, w.keys, ops[ns])
		if !ok || broken[ns] {
			ev, err := replay(ctx, q, chat, chatID, ns)
			if err != nil {
				return nil, err
			}
			evs = append(evs, ev...)
			continue
		}
		if bytes.Equal(value, m.st.value) {
			continue
		}
		rev, err := writeStored(ctx, q, chat, ns, value, m.st)
		if err != nil {
			return nil, err
		}
		evs = append(evs, changed(chatID, ns, rev, false))
	}
	return evs, nil
}

// settleMeta is what settling needs to know of a floor state first.
type settleMeta struct {
	entangled, hasCommits bool
	st                    stored
}

// whole reports whether the namespace must be replayed whole.
func (m *settleMeta) whole(w *work) bool {
	return w.whole || m.entangled || !m.hasCommits || !m.st.exists()
}

func settleMetas(ctx context.Context, q queryer, chat int64, names []string) (map[string]*settleMeta, error) {
	arg, _ := json.Marshal(names)
	rows, err := q.QueryContext(ctx, `SELECT s.ns, s.entangled,
			EXISTS (SELECT 1 FROM floor_commits c WHERE c.chat_id = s.chat_id AND c.ns = s.ns), cs.value, coalesce(cs.revision, 0)
		FROM json_each(?) j CROSS JOIN floor_states s ON s.chat_id = ? AND s.ns = j.value
		LEFT JOIN chat_state cs ON cs.chat_id = s.chat_id AND cs.ns = s.ns`, string(arg), chat)
	if err != nil {
		return nil, fmt.Errorf("settle floor states: %w", err)
	}
	defer rows.Close()
	out := map[string]*settleMeta{}
	for rows.Next() {
		var ns string
		var value sql.NullString
		m := &settleMeta{}
		if err := rows.Scan(&ns, &m.entangled, &m.hasCommits, &value, &m.st.revision); err != nil {
			return nil, fmt.Errorf("settle floor states: %w", err)
		}
		if value.Valid {
			m.st.value = []byte(value.String)
		}
		out[ns] = m
	}
	return out, rows.Err()
}

// keyOps reads, for each (namespace, key) pair, the operations on that key
// of the active commits touching it, in log order. broken names the
// namespaces with a commit whose operations could not be read.
func keyOps(ctx context.Context, q queryer, chat int64, pairs [][2]string) (out map[string]map[string][]json.RawMessage, broken map[string]bool, err error) {
	out, broken = map[string]map[string][]json.RawMessage{}, map[string]bool{}
	if len(pairs) == 0 {
		return out, broken, nil
	}
	arg, _ := json.Marshal(pairs)
	// A commit touches a key as its first (its own row) or a later one
	// (floor_commit_keys). The planner would rather read every commit of
	// the namespace through the primary key (it holds every column) than
	// look the key's few up through floor_commits_by_key: told which.
	rows, err := q.QueryContext(ctx, `WITH want (ns, key) AS (
			SELECT json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]') FROM json_each(?1) j),
		hits AS (
			SELECT w.ns, w.key, fc.seq, fc.ops, fc.message_id, fc.swipe_id FROM want w
			CROSS JOIN floor_commits fc INDEXED BY floor_commits_by_key ON fc.chat_id = ?2 AND fc.ns = w.ns AND fc.key = w.key
			UNION ALL
			SELECT w.ns, w.key, fc.seq, fc.ops, fc.message_id, fc.swipe_id FROM want w
			CROSS JOIN floor_commit_keys fk ON fk.chat_id = ?2 AND fk.ns = w.ns AND fk.key = w.key
			JOIN floor_commits fc ON fc.chat_id = fk.chat_id AND fc.ns = fk.ns AND fc.seq = fk.seq)
		SELECT h.ns, h.key, h.ops FROM hits h
		JOIN messages m ON m.id = h.message_id
		JOIN message_bodies b ON b.id = m.body_id AND b.swipe_id = h.swipe_id
		ORDER BY h.ns, h.key, h.seq`, string(arg), chat)
	if err != nil {
		return nil, nil, fmt.Errorf("settle floor states: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ns, key, raw string
		if err := rows.Scan(&ns, &key, &raw); err != nil {
			return nil, nil, fmt.Errorf("settle floor states: %w", err)
		}
		byKey := out[ns]
		if byKey == nil {
			byKey = map[string][]json.RawMessage{}
			out[ns] = byKey
		}
		mine, ok := opsOnKey([]byte(raw), key)
		if !ok {
			broken[ns] = true
			continue
		}
		byKey[key] = append(byKey[key], mine...)
	}
	return out, broken, rows.Err()
}

// replayKeys recomputes the given keys of value from their operations and
// returns the new value (canonical). ok is false when a key's operations
// do not apply: only a whole replay may cut the log.
func replayKeys(value []byte, keys map[string]bool, ops map[string][]json.RawMessage) ([]byte, bool) {
	members, ok := objectEntries(value)
	if !ok {
		return nil, false
	}
	list := make([]string, 0, len(keys))
	gone := map[string]bool{}
	for k := range keys {
		list = append(list, k)
		gone[unescapeKey(k)] = true
	}
	sort.Strings(list)
	out := members[:0]
	for _, m := range members {
		if !gone[m.key] {
			out = append(out, m)
		}
	}
	for _, key := range list {
		if len(ops[key]) == 0 {
			continue
		}
		part, ok := applyList(ops[key])
		if !ok {
			return nil, false
		}
		got, ok := objectEntries(part)
		if !ok {
			return nil, false
		}
		out = append(out, got...)
	}
	return writeObject(out), true
}

// opsOnKey returns a commit's operations on key (its pointer segment).
func opsOnKey(ops []byte, key string) ([]json.RawMessage, bool) {
	var list []json.RawMessage
	if err := json.Unmarshal(ops, &list); err != nil {
		return nil, false
	}
	out := list[:0]
	for _, op := range list {
		var o struct {
			Path *string `json:"path"`
		}
		if err := json.Unmarshal(op, &o); err != nil {
			return nil, false
		}
		if k, ok := topKey(o.Path); ok && k == key {
			out = append(out, op)
		}
	}
	return out, true
}

// applyList applies operations, in order, to {}; the result must stay an
// object.
func applyList(ops []json.RawMessage) ([]byte, bool) {
	raw, err := json.Marshal(ops)
	if err != nil {
		return nil, false
	}
	p, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, false
	}
	out, err := jsonx.ApplyPatch(emptyState, p, nil)
	if err != nil || !isObject(out) {
		return nil, false
	}
	return out, true
}
