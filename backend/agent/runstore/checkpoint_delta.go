package runstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
)

// A checkpoint row holds either a whole manifest (base_seq NULL) or a
// delta against the checkpoint before it: the entries that changed, a
// removed path mapping to null, with base_seq naming the whole manifest
// its chain starts from (migration 0025). A run that writes one file at a
// time over a workspace of M files then stores about one entry per
// checkpoint instead of M.
//
// The writer starts a new whole manifest when the chain, this delta
// included, would cost more bytes than the whole manifest does. So a read
// walks at most the base and a chain no bigger than one manifest, and the
// whole manifests a run stores add up to no more than its deltas did plus
// the first one: N checkpoints of M files store O(N·d + M) bytes for
// deltas of d entries, where whole manifests stored O(N·M).

// deltaRowCost is what a delta row counts against its chain beyond its
// manifest text: about what the row's id, seq, reason, files and time
// take. Counting it ends a chain of empty deltas (a rollback that changed
// nothing) too, so the rows a read walks are bounded as well as its bytes.
const deltaRowCost = 64

// entries is a manifest decoded down to its raw entries: the store keeps
// manifests without knowing their entries' shape ({sha256, bytes} today).
type entries map[string]json.RawMessage

// null is a delta's entry for a path the checkpoint no longer has.
var null = json.RawMessage("null")

func decodeEntries(raw []byte) (entries, error) {
	m := entries{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("a checkpoint manifest does not decode: %w", err)
	}
	return m, nil
}

// deltaOf lists what turns prev into next: next's entries that prev lacks
// or holds with other bytes, and null for prev's paths next lacks.
// Entries compare as compact JSON, so formatting alone is no change.
func deltaOf(prev, next entries) entries {
	d := entries{}
	for p, e := range next {
		if old, ok := prev[p]; !ok || !sameJSON(old, e) {
			d[p] = e
		}
	}
	for p := range prev {
		if _, ok := next[p]; !ok {
			d[p] = null
		}
	}
	return d
}

func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// apply changes m by a delta: a null entry removes its path.
func (m entries) apply(delta entries) {
	for p, e := range delta {
		if bytes.Equal(e, null) {
			delete(m, p)
		} else {
			m[p] = e
		}
	}
}

// chain is a checkpoint rebuilt from its rows: the whole manifest, the
// seq of the whole row it starts from and what its delta rows cost.
type chain struct {
	m    entries
	base int
	cost int
}

// loadChain rebuilds checkpoint seq of runID from the rows base..seq,
// which must be one whole manifest followed by a delta for every seq up
// to seq.
func loadChain(ctx context.Context, q rowsQueryer, runID string, base, seq int) (chain, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, base_seq IS NULL, manifest FROM agent_checkpoints
		WHERE run_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`, runID, base, seq)
	if err != nil {
		return chain{}, fmt.Errorf("read checkpoint %d of run %s: %w", seq, runID, err)
	}
	defer rows.Close()
	c := chain{base: base}
	want := base
	for rows.Next() {
		var at int
		var whole bool
		var raw []byte
		if err := rows.Scan(&at, &whole, &raw); err != nil {
			return chain{}, fmt.Errorf("read checkpoint %d of run %s: %w", seq, runID, err)
		}
		if at != want || whole != (at == base) {
			return chain{}, fmt.Errorf("checkpoint %d of run %s: its delta chain from %d is broken at %d", seq, runID, base, at)
		}
		m, err := decodeEntries(raw)
		if err != nil {
			return chain{}, err
		}
		if whole {
			c.m = m
		} else {
			c.m.apply(m)
			c.cost += len(raw) + deltaRowCost
		}
		want++
	}
	if err := rows.Err(); err != nil {
		return chain{}, fmt.Errorf("read checkpoint %d of run %s: %w", seq, runID, err)
	}
	if want != seq+1 {
		return chain{}, fmt.Errorf("checkpoint %d of run %s: its delta chain from %d ends at %d", seq, runID, base, want-1)
	}
	return c, nil
}

// tip is a run's newest checkpoint as the next save needs it, kept from
// one save to the next so that a run's writes do not rebuild the chain
// each time (at 1,000 files that tripled a save's cost).
type tip struct {
	id    string
	seq   int
	chain chain
}

// maxTips bounds the runs whose tip is kept: one per run going, and runs
// going at once are one per chat. A run beyond it rebuilds its chain from
// the rows, which is only slower.
const maxTips = 16

// tips keeps the newest checkpoint of the runs saved lately. An entry is
// used only when its id is still the run's newest row, so an entry left
// by a transaction that rolled back, or of a run since pruned, is never
// wrong, only unused.
type tips struct {
	mu  sync.Mutex
	run map[string]tip
}

func (t *tips) get(runID, id string) (chain, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tp, ok := t.run[runID]
	return tp.chain, ok && tp.id == id
}

func (t *tips) put(runID string, tp tip) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.run == nil {
		t.run = map[string]tip{}
	}
	if _, ok := t.run[runID]; !ok && len(t.run) >= maxTips {
		for other := range t.run {
			delete(t.run, other)
			break
		}
	}
	t.run[runID] = tp
}

// storedForm decides how a new checkpoint of runID whose whole manifest
// is full is stored: as a delta against the run's newest checkpoint while
// the chain stays cheaper to read than full itself, else whole. It
// returns the text to store, its base_seq (NULL for a whole one) and the
// new checkpoint's chain, seq and all, for the next save.
func (s *Store) storedForm(ctx context.Context, tx rowsQueryer, runID string, full json.RawMessage) (json.RawMessage, sql.NullInt64, tip, error) {
	fail := func(err error) (json.RawMessage, sql.NullInt64, tip, error) {
		return nil, sql.NullInt64{}, tip{}, err
	}
	next, err := decodeEntries(full)
	if err != nil {
		return fail(err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, seq, COALESCE(base_seq, seq) FROM agent_checkpoints
		WHERE run_id = ? ORDER BY seq DESC LIMIT 1`, runID)
	if err != nil {
		return fail(fmt.Errorf("save checkpoint of run %s: %w", runID, err))
	}
	var id string
	var seq, base int
	found := rows.Next()
	if found {
		err = rows.Scan(&id, &seq, &base)
	}
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return fail(fmt.Errorf("save checkpoint of run %s: %w", runID, err))
	}
	whole := tip{seq: seq + 1, chain: chain{m: next, base: seq + 1}}
	if !found {
		return full, sql.NullInt64{}, whole, nil
	}
	prev, ok := s.tips.get(runID, id)
	if !ok {
		if prev, err = loadChain(ctx, tx, runID, base, seq); err != nil {
			return fail(err)
		}
	}
	delta, err := json.Marshal(deltaOf(prev.m, next))
	if err != nil {
		return fail(err)
	}
	cost := prev.cost + len(delta) + deltaRowCost
	if cost > len(full) {
		return full, sql.NullInt64{}, whole, nil
	}
	return delta, sql.NullInt64{Int64: int64(prev.base), Valid: true}, tip{seq: seq + 1, chain: chain{m: next, base: prev.base, cost: cost}}, nil
}
