package host_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hearth/backend/app/apptest"
	"hearth/backend/apperr"
	"hearth/backend/events"
)

// TestWorldInfoLibraryAndActivation: a SillyTavern book imports and
// exports byte for byte; bound to the chat it activates on its keys in
// generate.dryRun (placed before the character definitions), and unbound
// it does not; bad input is refused, changes nothing and announces
// nothing.
func TestWorldInfoLibraryAndActivation(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(map[string]any{"is_user": true, "name": "User", "mes": "Tell me about the kingdom of Eldoria."})
	file, err := os.ReadFile(filepath.Join("..", "worldinfo", "testdata", "books", "st_eldoria.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Name    string `json:"name"`
		Entries int    `json:"entries"`
	}
	e.Must(&sum, "worldinfo.importBook", map[string]any{"fileName": "Eldoria.json", "text": string(file)})
	if sum.Name != "Eldoria" || sum.Entries == 0 {
		t.Fatalf("imported %+v", sum)
	}
	var exp struct {
		FileName string `json:"fileName"`
		Text     string `json:"text"`
	}
	e.Must(&exp, "worldinfo.exportBook", "Eldoria")
	if exp.FileName != "Eldoria.json" || exp.Text != string(file) {
		t.Errorf("export is not the file imported (%s, %d vs %d bytes)", exp.FileName, len(exp.Text), len(file))
	}

	type snapshot struct {
		ChatCompletionPayload struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		} `json:"chatCompletionPayload"`
		WorldInfoActivation struct {
			Entries []struct {
				World    string `json:"world"`
				UID      int    `json:"uid"`
				Position string `json:"position"`
				Content  string `json:"content"`
			} `json:"entries"`
		} `json:"worldInfoActivation"`
	}
	dry := func() snapshot {
		var snap snapshot
		e.Must(&snap, "generate.dryRun", map[string]any{"chatId": e.ChatID, "type": "normal"})
		return snap
	}
	if snap := dry(); len(snap.WorldInfoActivation.Entries) != 0 {
		t.Fatalf("an unbound book activated: %+v", snap.WorldInfoActivation)
	}
	e.Must(nil, "worldinfo.bindToChat", e.ChatID, "Eldoria")
	snap := dry()
	i := slices.IndexFunc(snap.WorldInfoActivation.Entries, func(x struct {
		World    string `json:"world"`
		UID      int    `json:"uid"`
		Position string `json:"position"`
		Content  string `json:"content"`
	}) bool {
		return x.UID == 0
	})
	if i < 0 || snap.WorldInfoActivation.Entries[i].World != "Eldoria" {
		t.Fatalf("the Eldoria entry did not activate: %+v", snap.WorldInfoActivation)
	}
	found := false
	for _, m := range snap.ChatCompletionPayload.Messages {
		if s, ok := m.Content.(string); ok && strings.Contains(s, "Its capital is Highmere.") {
			found = true
		}
	}
	if !found {
		t.Error("the activated entry is not in the prompt")
	}
	var last any
	e.Must(&last, "worldinfo.lastActivation", e.ChatID)
	if last != nil {
		t.Errorf("a dry run was kept as the last activation: %v", last)
	}

	// An edit shows in the next activation (books are kept parsed between
	// activations, and a save must not leave an old copy behind).
	var book map[string]any
	e.Must(&book, "worldinfo.get", "Eldoria")
	book["entries"].(map[string]any)["0"].(map[string]any)["content"] = "Its capital is Lowmere now."
	e.Must(nil, "worldinfo.save", "Eldoria", book)
	if snap := dry(); !slices.ContainsFunc(snap.WorldInfoActivation.Entries, func(x struct {
		World    string `json:"world"`
		UID      int    `json:"uid"`
		Position string `json:"position"`
		Content  string `json:"content"`
	}) bool {
		return x.UID == 0 && x.Content == "Its capital is Lowmere now."
	}) {
		t.Errorf("the edited entry did not activate as edited: %+v", snap.WorldInfoActivation)
	}

	// Bad input: refused, nothing changes, nothing is announced.
	list := func() string {
		out, err := e.Call("worldinfo.list")
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	before := list()
	e.Events()
	for name, call := range map[string][]any{
		"not a book":        {"worldinfo.importBook", map[string]any{"fileName": "x.json", "text": "[1]"}},
		"name taken":        {"worldinfo.importBook", map[string]any{"fileName": "Eldoria.json", "text": string(file)}},
		"bad name":          {"worldinfo.save", "a/b", map[string]any{"entries": map[string]any{}}},
		"entries not keyed": {"worldinfo.save", "B", map[string]any{"entries": []any{1}}},
		"missing book":      {"worldinfo.get", "Nowhere"},
		"bind missing":      {"worldinfo.bindToChat", e.ChatID, "Nowhere"},
		"budget 0":          {"worldinfo.saveSettings", map[string]any{"world_info_budget": 0}},
		"unknown setting":   {"worldinfo.saveSettings", map[string]any{"nope": 1}},
	} {
		if _, err := e.Call(call[0].(string), call[1:]...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if list() != before {
		t.Error("refused calls changed the library")
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Errorf("refused calls announced %d events", len(evs))
	}

	// Rename follows into the global selection; unbinding stops activation.
	e.Must(nil, "worldinfo.saveSettings", map[string]any{"globalSelect": []string{"Eldoria"}})
	e.Must(nil, "worldinfo.rename", "Eldoria", "Eldoria Atlas")
	var cfg struct {
		GlobalSelect []string `json:"globalSelect"`
		Depth        int      `json:"world_info_depth"`
	}
	e.Must(&cfg, "worldinfo.getSettings")
	if !slices.Equal(cfg.GlobalSelect, []string{"Eldoria Atlas"}) || cfg.Depth != 2 {
		t.Errorf("settings after rename: %+v", cfg)
	}
	e.Must(nil, "worldinfo.bindToChat", e.ChatID, nil)
	if snap := dry(); len(snap.WorldInfoActivation.Entries) == 0 {
		t.Error("the globally selected book did not activate")
	}
	e.Must(nil, "worldinfo.saveSettings", map[string]any{"globalSelect": []string{}})
	if snap := dry(); len(snap.WorldInfoActivation.Entries) != 0 {
		t.Error("with no book attached, entries still activated")
	}

	// A book bound to the persona in effect activates; another persona's does not.
	var p struct {
		ID       string `json:"id"`
		Lorebook string `json:"lorebook"`
	}
	e.Must(&p, "personas.save", map[string]any{"name": "Traveller", "lorebook": "Eldoria Atlas"})
	if p.Lorebook != "Eldoria Atlas" {
		t.Fatalf("saved persona %+v", p)
	}
	e.Must(nil, "personas.setActive", p.ID)
	snap = dry()
	if len(snap.WorldInfoActivation.Entries) == 0 || snap.WorldInfoActivation.Entries[0].World != "Eldoria Atlas" {
		t.Errorf("the persona's book did not activate: %+v", snap.WorldInfoActivation)
	}
	e.Must(nil, "personas.save", map[string]any{"name": "Stranger"})
	var other struct {
		ID string `json:"id"`
	}
	e.Must(&other, "personas.save", map[string]any{"name": "Other"})
	e.Must(nil, "personas.setActive", other.ID)
	if snap := dry(); len(snap.WorldInfoActivation.Entries) != 0 {
		t.Error("another persona's book activated")
	}
	if _, err := e.Call("personas.save", map[string]any{"id": p.ID, "lorebook": "bad\x00name"}); err == nil {
		t.Error("a lorebook name with a control character was accepted")
	}
}

// TestWorldInfoRenameKeepsBindings: renaming a book moves every binding
// with it — the card's extensions.world, the chats' world_info, the
// personas' lorebook, the global selection — in one transaction; a rename
// onto a taken name changes none of them.
func TestWorldInfoRenameKeepsBindings(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(map[string]any{"is_user": true, "name": "User", "mes": "Hello."})
	book := map[string]any{"entries": map[string]any{"0": map[string]any{"uid": 0, "key": []string{"lantern"}, "content": "Blue."}}}
	e.Must(nil, "worldinfo.save", "Old", book)
	e.Must(nil, "worldinfo.save", "Other", book)
	var card struct {
		Avatar string `json:"avatar"`
	}
	e.Must(&card, "characters.create", map[string]any{"name": "Wren", "extensions": map[string]any{"world": "Old", "keep": 1}})
	e.Must(nil, "worldinfo.bindToChat", e.ChatID, "Old")
	var p struct {
		ID string `json:"id"`
	}
	e.Must(&p, "personas.save", map[string]any{"name": "Traveller", "lorebook": "Old"})
	e.Must(nil, "worldinfo.saveSettings", map[string]any{"globalSelect": []string{"Old"}})

	type bindings struct {
		card, chat, persona string
		global              []string
	}
	read := func() bindings {
		var b bindings
		var c struct {
			Extensions struct {
				World string `json:"world"`
				Keep  int    `json:"keep"`
			} `json:"extensions"`
		}
		e.Must(&c, "characters.get", card.Avatar)
		if c.Extensions.Keep != 1 {
			t.Errorf("the card's other extensions changed: %+v", c.Extensions)
		}
		b.card = c.Extensions.World
		var meta map[string]any
		e.Must(&meta, "chat.getMetadata", e.ChatID)
		b.chat, _ = meta["world_info"].(string)
		var per struct {
			Lorebook string `json:"lorebook"`
		}
		e.Must(&per, "personas.get", p.ID)
		b.persona = per.Lorebook
		var cfg struct {
			GlobalSelect []string `json:"globalSelect"`
		}
		e.Must(&cfg, "worldinfo.getSettings")
		b.global = cfg.GlobalSelect
		return b
	}

	e.Events() // what the set-up announced
	if _, err := e.Call("worldinfo.rename", "Old", "Other"); err == nil {
		t.Fatal("a rename onto a taken name was accepted")
	}
	if got := read(); got.card != "Old" || got.chat != "Old" || got.persona != "Old" || !slices.Equal(got.global, []string{"Old"}) {
		t.Fatalf("a refused rename moved bindings: %+v", got)
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Errorf("a refused rename announced %d events", len(evs))
	}

	e.Must(nil, "worldinfo.rename", "Old", "New")
	if got := read(); got.card != "New" || got.chat != "New" || got.persona != "New" || !slices.Equal(got.global, []string{"New"}) {
		t.Fatalf("after the rename the bindings are %+v", got)
	}
	seen := map[string]bool{}
	for _, ev := range e.Events() {
		seen[string(ev.Type)] = true
	}
	for _, want := range []string{"character_edited", "chat_metadata_updated", "persona_changed", "worldinfo_updated"} {
		if !seen[want] {
			t.Errorf("the rename did not announce %s (saw %v)", want, seen)
		}
	}
}

// TestWorldInfoSettingsRefuseNull: null (what JSON makes of NaN) is no
// setting's value: saveSettings refuses it naming the field, keeps every
// setting and the global selection, and announces nothing; values given
// and keys left out still work as before.
func TestWorldInfoSettingsRefuseNull(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.Must(nil, "worldinfo.saveSettings", map[string]any{"globalSelect": []string{"Eldoria"}, "world_info_depth": 4, "world_info_budget": 30})
	settings := func() string {
		out, err := e.Call("worldinfo.getSettings")
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	before := settings()
	e.Events()
	for _, key := range []string{"world_info_depth", "world_info_budget", "world_info_budget_cap", "world_info_min_activations",
		"world_info_max_recursion_steps", "world_info_character_strategy", "world_info_recursive", "globalSelect"} {
		_, err := e.CallRaw("worldinfo.saveSettings", `[{"world_info_include_names":false,"`+key+`":null}]`)
		if apptest.Code(err) != "validation.invalid_argument" || !strings.Contains(err.Error(), key+" must be") {
			t.Errorf("%s: null gave %v, want validation.invalid_argument naming it", key, err)
		}
		if ae := apperr.As(err); ae == nil || ae.Details["field"] != key {
			t.Errorf("%s: details %v", key, ae)
		}
	}
	if after := settings(); after != before {
		t.Errorf("refused saves changed the settings:\n%s\n%s", before, after)
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Errorf("refused saves announced %d events", len(evs))
	}

	var cfg struct {
		GlobalSelect []string `json:"globalSelect"`
		Depth        int      `json:"world_info_depth"`
		Budget       int      `json:"world_info_budget"`
	}
	e.Must(&cfg, "worldinfo.saveSettings", map[string]any{"world_info_depth": 6})
	if cfg.Depth != 6 || cfg.Budget != 30 || !slices.Equal(cfg.GlobalSelect, []string{"Eldoria"}) {
		t.Errorf("a save of one key gave %+v", cfg)
	}
	if evs := e.Events(); len(evs) != 1 || evs[0].Type != events.WorldInfoSettings {
		t.Errorf("a save announced %v", evs)
	}
}

// TestWorldInfoBindToChatNeedsItsBook: bindToChat's second argument is
// required, null included (as personas.lockToChat's): a call that forgot
// it, or names the book "", is refused and leaves the chat bound, its
// revision and its events as they were; null unbinds.
func TestWorldInfoBindToChatNeedsItsBook(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat()
	e.Must(nil, "worldinfo.save", "Valley", map[string]any{"entries": map[string]any{}})
	e.Must(nil, "worldinfo.bindToChat", e.ChatID, "Valley")
	world := func() any {
		var meta map[string]any
		e.Must(&meta, "chat.getMetadata", e.ChatID)
		return meta["world_info"]
	}
	rev := e.Revision()
	e.Events()
	for name, args := range map[string]string{
		"book left out": `["` + e.ChatID + `"]`,
		"empty name":    `["` + e.ChatID + `",""]`,
		"not a name":    `["` + e.ChatID + `",3]`,
	} {
		if _, err := e.CallRaw("worldinfo.bindToChat", args); apptest.Code(err) != "validation.invalid_argument" {
			t.Errorf("%s: %v, want validation.invalid_argument", name, err)
		}
	}
	if w := world(); w != "Valley" || e.Revision() != rev {
		t.Errorf("refused binds left world_info %v, revision %d → %d", w, rev, e.Revision())
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Errorf("refused binds announced %d events", len(evs))
	}
	e.Must(nil, "worldinfo.bindToChat", e.ChatID, nil)
	if w := world(); w != nil || e.Revision() != rev+1 {
		t.Errorf("null left world_info %v, revision %d → %d", w, rev, e.Revision())
	}
	if evs := e.Events(); len(evs) != 1 || evs[0].Type != events.ChatMetadataUpdated {
		t.Errorf("unbinding announced %v", evs)
	}
}
