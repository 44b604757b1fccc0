package groups

import (
	"context"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/store"
)

// library maps a SillyTavern file's avatar keys to the rig's characters
// (a.png → Alice.png …); ghost.png is no character.
func library(a string) (string, bool) {
	to, ok := map[string]string{"a.png": "Alice.png", "b.png": "Bob.png"}[a]
	return to, ok
}

// TestImportReadsAsSillyTavernReads: numeric ids become strings, repeated
// chat ids go, missing members are pruned (and reported), the others
// mapped, unknown keys kept, computed keys dropped; a group without
// chat_id gets its id as chat_id; a broken field is refused with nothing
// stored; a taken id is group.id_taken.
func TestImportReadsAsSillyTavernReads(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	imp, err := r.svc.Import(ctx, ImportInput{Member: library, Data: obj(t, map[string]any{
		"id": 1690000000000, "name": "旧い評議会", "members": []string{"a.png", "ghost.png", "b.png"},
		"disabled_members": []string{"ghost.png", "b.png"}, "chat_id": 1690000000002,
		"chats": []any{1690000000001, "1690000000002", 1690000000001}, "x_custom": map[string]any{"k": 1},
		"date_added": 5, "chat_size": 9,
		"hearth": map[string]any{"memberOverrides": map[string]any{"a.png": map[string]any{"presetId": "p"}, "ghost.png": map[string]any{"presetId": "q"}}},
	})})
	if err != nil {
		t.Fatal(err)
	}
	g := imp.Group
	if g.ID() != "1690000000000" || string(g.Data["chat_id"]) != `"1690000000002"` || string(g.Data["chats"]) != `["1690000000001","1690000000002"]` {
		t.Errorf("ids: %s %s %s", g.ID(), g.Data["chat_id"], g.Data["chats"])
	}
	if strings.Join(g.Members(), ",") != "Alice.png,Bob.png" || strings.Join(g.DisabledMembers(), ",") != "Bob.png" {
		t.Errorf("members %v muted %v", g.Members(), g.DisabledMembers())
	}
	if o := g.MemberOverrides(); len(o) != 1 || o["Alice.png"].PresetID != "p" {
		t.Errorf("overrides %v", o)
	}
	if strings.Join(imp.Pruned, ",") != "ghost.png" {
		t.Errorf("pruned %v", imp.Pruned)
	}
	if string(g.Data["x_custom"]) != `{"k":1}` || g.Data["date_added"] != nil || g.Data["chat_size"] != nil {
		t.Errorf("keys: %v", g.Data)
	}
	if got := r.events(); len(got) != 1 || got[0] != events.GroupCreated {
		t.Errorf("events %v", got)
	}

	old, err := r.svc.Import(ctx, ImportInput{Member: library, Data: obj(t, map[string]any{"id": "old", "name": "Old", "members": []string{"a.png"}})})
	if err != nil || string(old.Group.Data["chat_id"]) != `"old"` || string(old.Group.Data["chats"]) != `["old"]` {
		t.Errorf("a group without chat_id: %v %v", old, err)
	}

	before := r.snapshot()
	_, err = r.svc.Import(ctx, ImportInput{Member: library, Data: obj(t, map[string]any{"id": "bad", "members": []string{"a.png"}, "generation_mode": 7})})
	if apperr.CodeOf(err) != apperr.CodeInvalidArgument {
		t.Errorf("a broken field: %v", err)
	}
	_, err = r.svc.Import(ctx, ImportInput{Member: library, Data: obj(t, map[string]any{"id": "1690000000000", "members": []string{"a.png"}})})
	if apperr.CodeOf(err) != CodeIDTaken {
		t.Errorf("a taken id: %v", err)
	}
	if r.snapshot() != before {
		t.Error("a refused import changed the groups")
	}
}

// TestTakeChatMetadataIn: the legacy metadata of an imported chat leaves
// the group; what no chat took stays.
func TestTakeChatMetadataIn(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := context.Background()
	data := obj(t, map[string]any{"id": "g", "members": []string{"a.png"}, "chat_id": "now",
		"chat_metadata": map[string]any{"n": 1}, "past_metadata": map[string]any{"then": map[string]any{"n": 2}, "lost": map[string]any{"n": 3}}})
	if m := LegacyChatMetadata(data, "now"); string(m["n"]) != "1" {
		t.Errorf("current: %v", m)
	}
	if m := LegacyChatMetadata(data, "then"); string(m["n"]) != "2" {
		t.Errorf("past: %v", m)
	}
	if m := LegacyChatMetadata(data, "none"); m != nil {
		t.Errorf("none: %v", m)
	}
	if _, err := r.svc.Import(ctx, ImportInput{Member: library, Data: data}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"now", "then"} {
		if err := r.db.InTx(ctx, func(tx *store.Tx) error { return r.svc.TakeChatMetadataIn(ctx, tx, "g", id) }); err != nil {
			t.Fatal(err)
		}
	}
	g, _ := r.svc.Get(ctx, "g")
	if string(g.Data["chat_metadata"]) != "{}" || string(g.Data["past_metadata"]) != `{"lost":{"n":3}}` {
		t.Errorf("left %s %s", g.Data["chat_metadata"], g.Data["past_metadata"])
	}
}
