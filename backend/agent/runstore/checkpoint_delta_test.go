package runstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"hearth/backend/store"
)

// entry is a manifest entry as the workspace writes it.
type entry struct {
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

func fakeSHA(rng *rand.Rand) string {
	return fmt.Sprintf("%016x%016x%016x%016x", rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64())
}

// TestCheckpointStorageIsLinear: a run of n checkpoints over a workspace
// of m files, one file changing (now and then one added, removed, or
// nothing changing at all) per checkpoint, stores O(n + m) manifest bytes,
// not the n·m that whole manifests take; and every checkpoint still reads
// back as the whole manifest it was saved with, first and latest too.
func TestCheckpointStorageIsLinear(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	run, other := f.newRun(t, "chat-1"), f.newRun(t, "chat-1")
	const m, n = 300, 300
	rng := rand.New(rand.NewPCG(7, 11))
	files := map[string]entry{}
	for i := range m {
		files[fmt.Sprintf("scratch/notes/file-%04d.md", i)] = entry{SHA256: fakeSHA(rng), Bytes: rng.Int64N(1 << 20)}
	}
	var ids []string
	var want []json.RawMessage
	// The biggest delta a checkpoint here can need: one changed entry.
	oneDelta := len(fmt.Sprintf(`{"scratch/notes/file-0000.md":{"sha256":"%064d","bytes":1048576}}`, 0)) + deltaRowCost
	naive, biggestFull := 0, 0
	for i := range n {
		switch {
		case i == 0:
		case i%50 == 0: // a rollback to where the workspace already is
		case i%37 == 0:
			files[fmt.Sprintf("output/new-%d.md", i)] = entry{SHA256: fakeSHA(rng), Bytes: 3}
		case i%41 == 0:
			delete(files, fmt.Sprintf("scratch/notes/file-%04d.md", i%m))
		default:
			p := fmt.Sprintf("scratch/notes/file-%04d.md", rng.IntN(m))
			if _, ok := files[p]; ok {
				files[p] = entry{SHA256: fakeSHA(rng), Bytes: rng.Int64N(1 << 20)}
			}
		}
		full, err := json.Marshal(files)
		if err != nil {
			t.Fatal(err)
		}
		naive, biggestFull = naive+len(full), max(biggestFull, len(full))
		cp, err := f.s.SaveCheckpoint(f.ctx, run.ID, "write", full, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids, want = append(ids, cp.ID), append(want, full)
		// Another run's checkpoints in between start chains of their own.
		if i%10 == 0 {
			if _, err := f.s.SaveCheckpoint(f.ctx, other.ID, "write", json.RawMessage(fmt.Sprintf(`{"output/x.md":{"sha256":"%d","bytes":1}}`, i)), nil); err != nil {
				t.Fatal(err)
			}
		}
	}

	var rows, stored, whole int
	if err := f.db.Reader().QueryRowContext(f.ctx, `SELECT COUNT(*), SUM(length(manifest)), COUNT(*) FILTER (WHERE base_seq IS NULL)
		FROM agent_checkpoints WHERE run_id = ?`, run.ID).Scan(&rows, &stored, &whole); err != nil {
		t.Fatal(err)
	}
	// Whole manifests after the first add up to no more than the deltas
	// before them, and a delta here is one entry.
	bound := 2*biggestFull + 2*n*oneDelta
	if rows != n || stored > bound {
		t.Fatalf("%d checkpoints of %d files stored %d rows, %d manifest bytes; want %d rows and at most %d (whole manifests: %d bytes)",
			n, m, rows, stored, n, bound, naive)
	}
	t.Logf("%d checkpoints of %d files: %d manifest bytes in %d rows (%d whole); whole manifests would take %d", n, m, stored, rows, whole, naive)
	if naive < 10*bound {
		t.Fatalf("the test is too small to tell: whole manifests take %d bytes, the bound is %d", naive, bound)
	}
	if whole < 2 {
		t.Fatalf("%d whole manifests: the chains never restarted, so the test does not cover a restart", whole)
	}

	for i, id := range ids {
		cp, err := f.s.Checkpoint(f.ctx, run.ID, id)
		if err != nil {
			t.Fatalf("checkpoint %d: %v", i+1, err)
		}
		if cp.Seq != i+1 || string(cp.Manifest) != string(want[i]) {
			t.Fatalf("checkpoint %d reads back as seq %d with a manifest of %d bytes; want %d bytes as saved", i+1, cp.Seq, len(cp.Manifest), len(want[i]))
		}
	}
	first, err := f.s.FirstCheckpoint(f.ctx, run.ID)
	if err != nil || string(first.Manifest) != string(want[0]) {
		t.Fatalf("FirstCheckpoint = %v, %v", first.ID, err)
	}
	latest, err := f.s.LatestCheckpoint(f.ctx, run.ID)
	if err != nil || latest.ID != ids[n-1] || string(latest.Manifest) != string(want[n-1]) {
		t.Fatalf("LatestCheckpoint = %v, %v", latest.ID, err)
	}
	o, err := f.s.LatestCheckpoint(f.ctx, other.ID)
	if err != nil || string(o.Manifest) != fmt.Sprintf(`{"output/x.md":{"sha256":"%d","bytes":1}}`, n-10) {
		t.Fatalf("the other run's latest = %s, %v", o.Manifest, err)
	}

	// Every blob any checkpoint names is still found by the sweep's query.
	refs, err := f.s.ReferencedBlobs(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, raw := range want {
		var m map[string]entry
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		for p, e := range m {
			if !refs[e.SHA256] {
				t.Fatalf("checkpoint %d names %s for %s, which ReferencedBlobs misses", i+1, e.SHA256, p)
			}
		}
	}
	if refs[""] {
		t.Fatal(`ReferencedBlobs holds "" (a delta's removed path)`)
	}
}

// TestCheckpointDeltaAfterRollback: a checkpoint saved in a transaction
// that rolls back leaves nothing the next save builds on, remembered or
// stored: the next checkpoint reads back as saved, and so does the one
// after it (a delta against it).
func TestCheckpointDeltaAfterRollback(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	run := f.newRun(t, "chat-1")
	big := map[string]entry{}
	for i := range 50 {
		big[fmt.Sprintf("scratch/n%02d.md", i)] = entry{SHA256: fmt.Sprintf("%064d", i), Bytes: int64(i)}
	}
	save := func(m map[string]entry) Checkpoint {
		t.Helper()
		raw, _ := json.Marshal(m)
		cp, err := f.s.SaveCheckpoint(f.ctx, run.ID, "write", raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cp
	}
	save(big)
	big["scratch/n01.md"] = entry{SHA256: fmt.Sprintf("%064d", 101), Bytes: 101}
	save(big)

	lost := map[string]entry{"output/never.md": {SHA256: fmt.Sprintf("%064d", 999), Bytes: 1}}
	rawLost, _ := json.Marshal(lost)
	boom := errors.New("rolled back")
	err := f.db.InTx(f.ctx, func(tx *store.Tx) error {
		if _, err := f.s.SaveCheckpointTx(f.ctx, tx, run.ID, "write", rawLost, nil); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}

	var want []json.RawMessage
	var ids []string
	for i := range 2 {
		big[fmt.Sprintf("scratch/n%02d.md", 10+i)] = entry{SHA256: fmt.Sprintf("%064d", 200+i), Bytes: 2}
		raw, _ := json.Marshal(big)
		want, ids = append(want, raw), append(ids, save(big).ID)
	}
	for i, id := range ids {
		cp, err := f.s.Checkpoint(f.ctx, run.ID, id)
		if err != nil || cp.Seq != 3+i || string(cp.Manifest) != string(want[i]) {
			t.Fatalf("checkpoint %d after the rollback: seq %d, %s, %v", 3+i, cp.Seq, cp.Manifest, err)
		}
	}
	var deltas int
	if err := f.db.Reader().QueryRowContext(f.ctx, `SELECT COUNT(*) FROM agent_checkpoints WHERE run_id = ? AND base_seq IS NOT NULL`, run.ID).Scan(&deltas); err != nil || deltas != 3 {
		t.Fatalf("%d delta rows (%v); want 3: every save after the first is one", deltas, err)
	}
}
