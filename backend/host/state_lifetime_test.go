package host_test

import (
	"testing"

	"hearth/backend/app/apptest"
)

// TestStateLifetime: chat state goes with its chat; character state follows
// its card through a rename and goes with it.
func TestStateLifetime(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(apptest.Three()...)
	e.Must(nil, "state.setChatState", e.ChatID, "a", 1)
	e.Must(nil, "state.floorUpdate", e.ChatID, "fs", map[string]any{"x": 1}, nil)
	e.Must(nil, "state.setCharacterState", e.Avatar, "cs", map[string]any{"voice": "soft"})

	e.Must(nil, "characters.update", e.Avatar, map[string]any{"name": "Sera"})
	var cs any
	e.Must(&cs, "state.getCharacterState", e.Avatar, "cs")
	apptest.Eq(t, "after a rename", cs, map[string]any{"voice": "soft"})

	e.Must(nil, "chat.delete", e.ChatID)
	if _, err := e.Call("state.getChatState", e.ChatID, "a"); apptest.Code(err) != "chat.not_found" {
		t.Fatalf("state of a deleted chat: %v", err)
	}
	var leftovers int
	if err := e.App.Store.Reader().QueryRow(`SELECT (SELECT COUNT(*) FROM chat_state) + (SELECT COUNT(*) FROM floor_states) +
		(SELECT COUNT(*) FROM floor_commits) + (SELECT COUNT(*) FROM floor_dirty)`).Scan(&leftovers); err != nil {
		t.Fatal(err)
	}
	apptest.Eq(t, "state rows left", leftovers, 0)

	e.Must(nil, "characters.delete", e.Avatar)
	var again map[string]any
	e.Must(&again, "characters.create", map[string]any{"name": "Seraphina"})
	if again["avatar"] != e.Avatar {
		t.Fatalf("a new card got avatar %v, not %s (SillyTavern reuses a free key)", again["avatar"], e.Avatar)
	}
	raw, err := e.Call("state.getCharacterState", e.Avatar, "cs")
	if err != nil || string(raw) != "null" {
		t.Fatalf("a new card with the old avatar inherited state: %s %v", raw, err)
	}
}
