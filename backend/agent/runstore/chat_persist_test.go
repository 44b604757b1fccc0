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
	if err := f.s.SetChatPersist(f.ctx, "parent", "run_1", m1); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetChatPersist(f.ctx, "parent", "run_2", m2); err != nil {
		t.Fatal(err)
	}
	manifest, runID, err = f.s.ChatPersist(f.ctx, "parent")
	if err != nil || string(manifest) != string(m2) || runID != "run_2" {
		t.Fatalf("after two sets: %s, %q, %v", manifest, runID, err)
	}

	// A branch forks the parent's state; later changes stay apart.
	err = f.db.InTx(f.ctx, func(tx *store.Tx) error {
		if err := f.s.CopyChatPersist(f.ctx, tx, "parent", "branch"); err != nil {
			return err
		}
		return f.s.CopyChatPersist(f.ctx, tx, "stateless", "branch2")
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.SetChatPersist(f.ctx, "parent", "run_3", m1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		chat, manifest, runID string
	}{
		{"branch", string(m2), "run_2"},
		{"parent", string(m1), "run_3"},
		{"branch2", "", ""},
	} {
		manifest, runID, err := f.s.ChatPersist(f.ctx, tc.chat)
		if err != nil || string(manifest) != tc.manifest || runID != tc.runID {
			t.Errorf("%s: %s, %q, %v", tc.chat, manifest, runID, err)
		}
	}

	// Copying over a chat that has state replaces it.
	err = f.db.InTx(f.ctx, func(tx *store.Tx) error { return f.s.CopyChatPersist(f.ctx, tx, "parent", "branch") })
	if manifest, _, _ := f.s.ChatPersist(f.ctx, "branch"); err != nil || string(manifest) != string(m1) {
		t.Fatalf("copy over existing: %s, %v", manifest, err)
	}

	for name, call := range map[string]func() error{
		"set, manifest not an object": func() error { return f.s.SetChatPersist(f.ctx, "c", "run_1", json.RawMessage(`[]`)) },
		"set, no chat":                func() error { return f.s.SetChatPersist(f.ctx, "", "run_1", json.RawMessage(`{}`)) },
		"set, no run":                 func() error { return f.s.SetChatPersist(f.ctx, "c", "", json.RawMessage(`{}`)) },
		"get, control char":           func() error { _, _, err := f.s.ChatPersist(f.ctx, "c\x00"); return err },
		"copy, no target": func() error {
			return f.db.InTx(f.ctx, func(tx *store.Tx) error { return f.s.CopyChatPersist(f.ctx, tx, "parent", "") })
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			wantCode(t, call(), apperr.CodeInvalidArgument)
		})
	}
}
