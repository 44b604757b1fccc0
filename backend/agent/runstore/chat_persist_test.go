package runstore

import (
	"encoding/json"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/store"
)

func TestChatPersist(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m1 := json.RawMessage(`{"persist/notes.md":{"sha256":"aa","bytes":2}}`)
	m2 := json.RawMessage(`{"persist/notes.md":{"sha256":"bb","bytes":4}}`)

	manifest, runID, err := f.s.ChatPersist(f.ctx, "parent")
	if err != nil || manifest != nil || runID != "" {
		t.Fatalf("no state yet: %s, %q, %v", manifest, runID, err)
	}
	r1, r2 := f.newRun(t, "parent"), f.newRun(t, "parent")
	f.setStatus(t, r1.ID, StatusCompleted)
	if err := f.s.SetChatPersist(f.ctx, "parent", r1.ID, m1, "msg-1"); err != nil {
		t.Fatal(err)
	}
	f.clock.set(1_700_000_001_000)
	f.setStatus(t, r2.ID, StatusCompleted)
	if err := f.s.SetChatPersist(f.ctx, "parent", r2.ID, m2, "msg-3"); err != nil {
		t.Fatal(err)
	}
	manifest, runID, err = f.s.ChatPersist(f.ctx, "parent")
	if err != nil || string(manifest) != string(m2) || runID != r2.ID {
		t.Fatalf("after two sets: %s, %q, %v", manifest, runID, err)
	}

	// Every run keeps the state it left and where, newest first.
	var points []PersistPoint
	err = f.db.InTx(f.ctx, func(tx *store.Tx) error {
		points, err = f.s.PersistPointsTx(f.ctx, tx, "parent", 10)
		return err
	})
	if err != nil || len(points) != 2 || points[0].RunID != r2.ID || points[0].At != "msg-3" || string(points[1].Manifest) != string(m1) {
		t.Fatalf("points: %+v, %v", points, err)
	}

	// A fork gets a state as its own and as what it inherited; the
	// source's later runs do not reach it.
	err = f.db.InTx(f.ctx, func(tx *store.Tx) error { return f.s.ForkChatPersistTx(f.ctx, tx, "branch", points[1]) })
	if err != nil {
		t.Fatal(err)
	}
	r3 := f.newRun(t, "branch")
	if err := f.s.SetChatPersist(f.ctx, "branch", r3.ID, m2, "msg-9"); err != nil {
		t.Fatal(err)
	}
	err = f.db.InTx(f.ctx, func(tx *store.Tx) error {
		p, ok, err := f.s.InheritedTx(f.ctx, tx, "branch")
		if err != nil || !ok || p.RunID != r1.ID || string(p.Manifest) != string(m1) {
			t.Errorf("inherited: %+v %v %v", p, ok, err)
		}
		if _, ok, err := f.s.InheritedTx(f.ctx, tx, "parent"); ok || err != nil {
			t.Errorf("a chat never forked inherited something (%v, %v)", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if manifest, runID, _ := f.s.ChatPersist(f.ctx, "branch"); string(manifest) != string(m2) || runID != r3.ID {
		t.Fatalf("the branch's own run: %s, %q", manifest, runID)
	}

	for name, call := range map[string]func() error{
		"set, manifest not an object": func() error { return f.s.SetChatPersist(f.ctx, "parent", r1.ID, json.RawMessage(`[]`), "") },
		"set, no chat":                func() error { return f.s.SetChatPersist(f.ctx, "", r1.ID, json.RawMessage(`{}`), "") },
		"set, no run":                 func() error { return f.s.SetChatPersist(f.ctx, "parent", "", json.RawMessage(`{}`), "") },
		"get, control char":           func() error { _, _, err := f.s.ChatPersist(f.ctx, "c\x00"); return err },
		"fork, no target": func() error {
			return f.db.InTx(f.ctx, func(tx *store.Tx) error { return f.s.ForkChatPersistTx(f.ctx, tx, "", points[0]) })
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			wantCode(t, call(), apperr.CodeInvalidArgument)
		})
	}
	// A run of another chat cannot set this one's state.
	wantCode(t, f.s.SetChatPersist(f.ctx, "other", r1.ID, m1, ""), CodeRunNotFound)
}

func TestRetention(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := json.RawMessage(`{"persist/a.md":{"sha256":"cc","bytes":1}}`)
	var ids []string
	for i := range 5 {
		f.clock.set(1_700_000_000_000 + int64(i)*1000)
		r := f.newRun(t, "chat")
		if i < 4 {
			f.setStatus(t, r.ID, StatusCompleted)
		}
		ids = append(ids, r.ID)
	}
	if _, err := f.s.SaveCheckpoint(f.ctx, ids[0], "initial", json.RawMessage(`{"output/a.md":{"sha256":"dd","bytes":1}}`), json.RawMessage(`[]`)); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetChatPersist(f.ctx, "chat", ids[3], m, ""); err != nil {
		t.Fatal(err)
	}
	other := f.newRun(t, "other")

	refs, err := f.s.ReferencedBlobs(f.ctx)
	if err != nil || !refs["cc"] || !refs["dd"] || len(refs) != 2 {
		t.Fatalf("referenced: %v, %v", refs, err)
	}

	// Keep two ended runs: the two oldest ended go; the live one stays.
	pruned, err := f.s.PruneChat(f.ctx, "chat", 2)
	if err != nil || len(pruned) != 2 || pruned[0] != ids[1] || pruned[1] != ids[0] {
		t.Fatalf("pruned %v (%v); runs %v", pruned, err, ids)
	}
	for i, id := range ids {
		_, err := f.s.Get(f.ctx, id)
		if gone := apperr.CodeOf(err) == CodeRunNotFound; gone != (i < 2) {
			t.Errorf("run %d gone = %v", i, gone)
		}
	}
	if evs, _, err := f.s.Events(f.ctx, ids[0], 0, nil, 10); apperr.CodeOf(err) != CodeRunNotFound || len(evs) != 0 {
		t.Errorf("a pruned run's events: %v, %v", evs, err)
	}
	if refs, _ := f.s.ReferencedBlobs(f.ctx); refs["dd"] {
		t.Error("a pruned run's checkpoint still names its blob")
	}

	chats, err := f.s.ChatIDs(f.ctx)
	if err != nil || len(chats) != 2 {
		t.Fatalf("chat ids %v, %v", chats, err)
	}
	gone, err := f.s.DeleteChat(f.ctx, "chat")
	if err != nil || len(gone) != 3 {
		t.Fatalf("deleted %v, %v", gone, err)
	}
	if manifest, _, _ := f.s.ChatPersist(f.ctx, "chat"); manifest != nil {
		t.Error("a forgotten chat kept its persist/ state")
	}
	known, err := f.s.RunIDs(f.ctx)
	if err != nil || len(known) != 1 || !known[other.ID] {
		t.Fatalf("runs left %v, %v", known, err)
	}
	wantCode(t, func() error { _, err := f.s.DeleteChat(f.ctx, ""); return err }(), apperr.CodeInvalidArgument)
}
