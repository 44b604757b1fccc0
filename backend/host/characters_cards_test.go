package host_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"hearth/backend/app/apptest"
	"hearth/backend/cards"
)

type cardOut struct {
	Avatar         string   `json:"avatar"`
	Name           string   `json:"name"`
	HasImage       bool     `json:"hasImage"`
	ImportWarnings []string `json:"importWarnings"`
}

// TestImportExportCard: characters.importCard stores each fixture format
// (avatar named as SillyTavern would, picture kept), exportCard writes a
// PNG carrying the card that reads back as the same card and a JSON; a
// broken file is card.invalid, stores nothing and announces nothing.
func TestImportExportCard(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	fixture := func(name string) string {
		raw, err := os.ReadFile(filepath.Join("..", "cards", "testdata", "fixtures", name))
		if err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(raw)
	}
	for _, tc := range []struct {
		file     string
		hasImage bool
	}{
		{"v3_both.png", true},
		{"v2.json", false},
		{"card.charx", true},
	} {
		var out cardOut
		e.Must(&out, "characters.importCard", map[string]any{"fileName": tc.file, "base64": fixture(tc.file)})
		if out.Avatar == "" || out.Name == "" || out.HasImage != tc.hasImage || out.ImportWarnings == nil {
			t.Fatalf("%s imported as %+v", tc.file, out)
		}
		var stored map[string]any
		e.Must(&stored, "characters.get", out.Avatar)

		// PNG export → import gives the same card.
		var exp struct {
			FileName string `json:"fileName"`
			Base64   string `json:"base64"`
		}
		e.Must(&exp, "characters.exportCard", out.Avatar, map[string]any{"format": "png"})
		raw, err := base64.StdEncoding.DecodeString(exp.Base64)
		if err != nil || filepath.Ext(exp.FileName) != ".png" {
			t.Fatalf("%s: export %s, %v", tc.file, exp.FileName, err)
		}
		back, err := cards.Decode(exp.FileName, raw)
		if err != nil {
			t.Fatalf("%s: the exported PNG does not read back: %v", tc.file, err)
		}
		var again map[string]any
		b, _ := back.Data.MarshalJSON()
		_ = json.Unmarshal(b, &again)
		for _, k := range []string{"avatar", "createdAt", "updatedAt", "hasImage"} {
			delete(stored, k)
		}
		if !reflect.DeepEqual(again, stored) {
			t.Errorf("%s: PNG export → import changed the card\nstored %v\nback   %v", tc.file, stored, again)
		}
		e.Must(&exp, "characters.exportCard", out.Avatar, map[string]any{"format": "json"})
		if raw, _ := base64.StdEncoding.DecodeString(exp.Base64); filepath.Ext(exp.FileName) != ".json" || !json.Valid(raw) {
			t.Errorf("%s: JSON export %s is not JSON", tc.file, exp.FileName)
		}
	}

	// The same card again gets SillyTavern's next free name.
	var first, second cardOut
	e.Must(&first, "characters.importCard", map[string]any{"fileName": "v2.json", "base64": fixture("v2.json")})
	e.Must(&second, "characters.importCard", map[string]any{"fileName": "v2.json", "base64": fixture("v2.json")})
	base := first.Avatar[:len(first.Avatar)-len("1.png")]
	if first.Avatar != base+"1.png" || second.Avatar != base+"2.png" {
		t.Errorf("repeated imports named %s, %s", first.Avatar, second.Avatar)
	}

	list := func() string {
		out, err := e.Call("characters.list")
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	before := list()
	e.Events()
	for name, file := range map[string]map[string]any{
		"truncated PNG": {"fileName": "x.png", "base64": fixture("v3_both.png")[:200]},
		"not base64":    {"fileName": "x.json", "base64": "%%%"},
		"not a card":    {"fileName": "x.json", "base64": base64.StdEncoding.EncodeToString([]byte(`[1,2]`))},
		"no file":       {"fileName": "x.json"},
	} {
		_, err := e.Call("characters.importCard", file)
		if code := apptest.Code(err); code != cards.CodeInvalid && code != "validation.invalid_argument" {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := e.Call("characters.exportCard", first.Avatar, map[string]any{"format": "gif"}); apptest.Code(err) != "validation.invalid_argument" {
		t.Errorf("export as gif: %v", err)
	}
	if _, err := e.Call("characters.exportCard", "nobody.png"); apptest.Code(err) != "character.not_found" {
		t.Errorf("export of a missing card: %v", err)
	}
	if after := list(); after != before {
		t.Error("a refused import changed the data")
	}
	if evs := e.Events(); len(evs) != 0 {
		t.Errorf("refused calls announced %d events", len(evs))
	}
}

// TestCardBookBecomesBoundLorebook: an imported card's character_book is
// stored as a lorebook the card binds (extensions.world, the book's own
// name when the card names none); the book activates in the character's
// chats; an exported card carries the book as edited since; importing
// that export again binds the same book instead of copying it, and a
// card whose named book exists is bound to it.
func TestCardBookBecomesBoundLorebook(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	raw, err := os.ReadFile(filepath.Join("..", "cards", "testdata", "fixtures", "v3.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out cardOut
	e.Must(&out, "characters.importCard", map[string]any{"fileName": "v3.json", "base64": base64.StdEncoding.EncodeToString(raw)})
	var card struct {
		Extensions struct {
			World string `json:"world"`
		} `json:"extensions"`
	}
	e.Must(&card, "characters.get", out.Avatar)
	if card.Extensions.World != "Windrunner" {
		t.Fatalf("the card binds %q, want its book's name", card.Extensions.World)
	}
	var book map[string]any
	e.Must(&book, "worldinfo.get", "Windrunner")
	entries := book["entries"].(map[string]any)
	if len(entries) != 1 || entries["0"].(map[string]any)["content"] != "@@depth 2\nStorms are frequent." {
		t.Fatalf("the book holds %v", entries)
	}

	// The book is the character's: its key activates in the character's chat.
	var chat struct {
		ChatID string `json:"chatId"`
	}
	e.Must(&chat, "chat.create", map[string]any{"avatar": out.Avatar})
	e.Must(nil, "chat.addMessages", chat.ChatID, []map[string]any{{"is_user": true, "name": "User", "mes": "Another storm is coming."}})
	var snap struct {
		WorldInfoActivation struct {
			Entries []struct {
				World string `json:"world"`
			} `json:"entries"`
		} `json:"worldInfoActivation"`
	}
	e.Must(&snap, "generate.dryRun", map[string]any{"chatId": chat.ChatID, "type": "normal"})
	if len(snap.WorldInfoActivation.Entries) != 1 || snap.WorldInfoActivation.Entries[0].World != "Windrunner" {
		t.Fatalf("activation %+v", snap.WorldInfoActivation)
	}

	// An edit in the lorebook travels with the exported card.
	entries["1"] = map[string]any{"uid": 1, "key": []string{"anchor"}, "content": "The anchor is gold."}
	e.Must(nil, "worldinfo.save", "Windrunner", book)
	var exp struct {
		Base64 string `json:"base64"`
	}
	e.Must(&exp, "characters.exportCard", out.Avatar, map[string]any{"format": "json"})
	file, _ := base64.StdEncoding.DecodeString(exp.Base64)
	var exported struct {
		Data struct {
			CharacterBook struct {
				Name    string `json:"name"`
				Entries []struct {
					Content string `json:"content"`
				} `json:"entries"`
			} `json:"character_book"`
		} `json:"data"`
	}
	if err := json.Unmarshal(file, &exported); err != nil {
		t.Fatal(err)
	}
	if cb := exported.Data.CharacterBook; cb.Name != "Windrunner" || len(cb.Entries) != 2 || cb.Entries[1].Content != "The anchor is gold." {
		t.Fatalf("the exported card's book: %+v", cb)
	}

	// Imported again, the export binds the book it came from.
	var again cardOut
	e.Must(&again, "characters.importCard", map[string]any{"fileName": "Kestrel.json", "base64": exp.Base64})
	e.Must(&card, "characters.get", again.Avatar)
	var books []map[string]any
	e.Must(&books, "worldinfo.list")
	if card.Extensions.World != "Windrunner" || len(books) != 1 {
		t.Fatalf("the second import binds %q; books %v", card.Extensions.World, books)
	}
}
