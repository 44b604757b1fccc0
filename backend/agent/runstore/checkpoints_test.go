package runstore

import (
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/store"
)

func TestCheckpointsArePerRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.newRun(t, "chat-1"), f.newRun(t, "chat-1")
	manifest := func(sha string) json.RawMessage {
		return json.RawMessage(`{"output/main.md":{"sha256":"` + sha + `","bytes":3}}`)
	}
	var aIDs []string
	for i, sha := range []string{"s1", "s2", "s3"} {
		f.clock.set(1_700_000_000_000 + int64(i))
		var files json.RawMessage
		if i > 0 {
			files = json.RawMessage(`["output/main.md"]`)
		}
		cp, err := f.s.SaveCheckpoint(f.ctx, a.ID, "write_file", manifest(sha), files)
		if err != nil {
			t.Fatal(err)
		}
		if cp.Seq != i+1 || !regexp.MustCompile(`^cp_[0-9a-f]{32}$`).MatchString(cp.ID) {
			t.Fatalf("checkpoint %d = %+v", i, cp)
		}
		aIDs = append(aIDs, cp.ID)
	}
	cpB, err := f.s.SaveCheckpoint(f.ctx, b.ID, "initial", json.RawMessage(`{}`), nil)
	if err != nil || cpB.Seq != 1 || string(cpB.Files) != "[]" {
		t.Fatalf("other run's first checkpoint = %+v, %v", cpB, err)
	}

	got, err := f.s.Checkpoint(f.ctx, a.ID, aIDs[1])
	if err != nil || got.Seq != 2 || string(got.Manifest) != string(manifest("s2")) || string(got.Files) != `["output/main.md"]` {
		t.Fatalf("Checkpoint = %+v, %v", got, err)
	}
	first, err := f.s.FirstCheckpoint(f.ctx, a.ID)
	if err != nil || first.ID != aIDs[0] || first.Manifest == nil {
		t.Fatalf("FirstCheckpoint = %+v, %v", first, err)
	}
	latest, err := f.s.LatestCheckpoint(f.ctx, a.ID)
	if err != nil || latest.ID != aIDs[2] {
		t.Fatalf("LatestCheckpoint = %+v, %v", latest, err)
	}
	list, err := f.s.Checkpoints(f.ctx, a.ID)
	if err != nil || len(list) != 3 {
		t.Fatalf("Checkpoints = %+v, %v", list, err)
	}
	for i, cp := range list {
		if cp.ID != aIDs[i] || cp.Manifest != nil || cp.Seq != i+1 || cp.CreatedMs != 1_700_000_000_000+int64(i) {
			t.Errorf("listed checkpoint %d = %+v", i, cp)
		}
	}

	none := f.newRun(t, "chat-2")
	for _, tc := range []struct {
		name string
		call func() error
		code string
	}{
		{"other run's id", func() error { _, err := f.s.Checkpoint(f.ctx, b.ID, aIDs[0]); return err }, CodeCheckpointNotFound},
		{"unknown id", func() error { _, err := f.s.Checkpoint(f.ctx, a.ID, "cp_nope"); return err }, CodeCheckpointNotFound},
		{"unknown run", func() error { _, err := f.s.Checkpoint(f.ctx, "run_nope", aIDs[0]); return err }, CodeRunNotFound},
		{"bad id", func() error { _, err := f.s.Checkpoint(f.ctx, a.ID, "cp\n"); return err }, apperr.CodeInvalidArgument},
		{"first of a run without any", func() error { _, err := f.s.FirstCheckpoint(f.ctx, none.ID); return err }, CodeCheckpointNotFound},
		{"latest of an unknown run", func() error { _, err := f.s.LatestCheckpoint(f.ctx, "run_nope"); return err }, CodeRunNotFound},
		{"list of an unknown run", func() error { _, err := f.s.Checkpoints(f.ctx, "run_nope"); return err }, CodeRunNotFound},
		{"save on an unknown run", func() error {
			_, err := f.s.SaveCheckpoint(f.ctx, "run_nope", "x", json.RawMessage(`{}`), nil)
			return err
		}, CodeRunNotFound},
		{"manifest not an object", func() error {
			_, err := f.s.SaveCheckpoint(f.ctx, a.ID, "x", json.RawMessage(`[]`), nil)
			return err
		}, apperr.CodeInvalidArgument},
		{"files not an array", func() error {
			_, err := f.s.SaveCheckpoint(f.ctx, a.ID, "x", json.RawMessage(`{}`), json.RawMessage(`"a"`))
			return err
		}, apperr.CodeInvalidArgument},
		{"no reason", func() error {
			_, err := f.s.SaveCheckpoint(f.ctx, a.ID, "", json.RawMessage(`{}`), nil)
			return err
		}, apperr.CodeInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantCode(t, tc.call(), tc.code)
		})
	}
	list, err = f.s.Checkpoints(f.ctx, none.ID)
	if err != nil || list == nil || len(list) != 0 {
		t.Fatalf("Checkpoints of a run without any = %v, %v", list, err)
	}
}

func TestSaveCheckpointTxWithItsEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.newRun(t, "chat-1")
	f.setStatus(t, r.ID, StatusCompleted)
	// A rollback of a completed run: the checkpoint and its event in one
	// transaction; a failure after both leaves neither.
	boom := errors.New("later step failed")
	for _, fail := range []bool{true, false} {
		err := f.db.InTx(f.ctx, func(tx *store.Tx) error {
			cp, err := f.s.SaveCheckpointTx(f.ctx, tx, r.ID, "rollback", json.RawMessage(`{}`), nil)
			if err != nil {
				return err
			}
			_, _, err = f.s.AppendTx(f.ctx, tx, r.ID, EventInput{Type: "checkpoint_created",
				Payload: map[string]any{"checkpointId": cp.ID, "reason": cp.Reason, "files": cp.Files}}, Change{AllowTerminal: true})
			if err != nil {
				return err
			}
			if fail {
				return boom
			}
			return nil
		})
		if fail != errors.Is(err, boom) || (!fail && err != nil) {
			t.Fatalf("fail=%v: %v", fail, err)
		}
	}
	list, err := f.s.Checkpoints(f.ctx, r.ID)
	if err != nil || len(list) != 1 || list[0].Seq != 1 {
		t.Fatalf("Checkpoints = %+v, %v", list, err)
	}
	events, _, err := f.s.Events(f.ctx, r.ID, 2, nil, 0)
	if err != nil || len(events) != 1 || events[0].Seq != 3 || events[0].Type != "checkpoint_created" {
		t.Fatalf("events after status = %+v, %v", events, err)
	}
}
