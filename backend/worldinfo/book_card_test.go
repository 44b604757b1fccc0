package worldinfo

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

func TestFromCharacterBook(t *testing.T) {
	t.Parallel()
	book, name, err := FromCharacterBook(readFixture(t, "cards/eldoria_book.json"))
	if err != nil {
		t.Fatal(err)
	}
	if name != "Eldoria Lore" {
		t.Errorf("name = %q", name)
	}
	if len(book.Entries) != 2 || book.Entries[0].UID != 0 || book.Entries[1].UID != 42 {
		t.Fatalf("entries = %+v, want uids 0 (its index) and 42 (its id)", book.Entries)
	}
	first, dragon := book.Entries[0], book.Entries[1]
	checks := []struct {
		name      string
		got, want any
	}{
		{"before_char", first.Position, PositionBefore},
		{"insertion_order", first.Order, 10},
		{"enabled", first.Disable, false},
		{"addMemo from comment", first.AddMemo, true},
		{"selective", first.Selective, false},
		{"display index", first.DisplayIndex, 0},
		{"default probability", first.Probability, 100.0},
		{"default useProbability", first.UseProbability, true},
		{"default depth", first.Depth, DefaultDepth},
		{"default weight", first.GroupWeight, float64(DefaultWeight)},
		{"card case_sensitive ignored", first.CaseSensitive == nil, true},
		{"extension position", dragon.Position, PositionAtDepth},
		{"depth", dragon.Depth, 2},
		{"role", dragon.Role, RoleUser},
		{"probability", dragon.Probability, 50.0},
		{"logic", dragon.SelectiveLogic, LogicAndAll},
		{"group", dragon.Group, "beasts"},
		{"weight", dragon.GroupWeight, 70.0},
		{"sticky", dragon.Sticky, 2},
		{"cooldown", dragon.Cooldown, 1},
		{"delay until recursion", dragon.DelayUntilRecursion, 1},
		{"whole words", *dragon.MatchWholeWords, true},
		{"triggers", strings.Join(dragon.Triggers, ","), "normal"},
		{"ignore budget", dragon.IgnoreBudget, true},
		{"disabled", dragon.Disable, true},
		{"constant", dragon.Constant, true},
		{"secondary", strings.Join(dragon.KeySecondary, ","), "fire"},
		{"no memo", dragon.AddMemo, false},
		{"display index from position in card", dragon.DisplayIndex, 1},
		{"extensions kept", string(dragon.Extensions["other_tool"]), `{"keep":"me"}`},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	var original struct {
		Name    string
		Entries []map[string]json.RawMessage
	}
	if err := json.Unmarshal(book.Extra["originalData"], &original); err != nil {
		t.Fatal(err)
	}
	if original.Name != "Eldoria Lore" || string(original.Entries[0]["id"]) != "0" || string(original.Entries[1]["id"]) != "42" {
		t.Errorf("originalData = %s", book.Extra["originalData"])
	}
	if _, err := ParseBook(mustEncode(t, book)); err != nil {
		t.Errorf("converted book does not read back: %v", err)
	}
}

func TestToCharacterBook(t *testing.T) {
	t.Parallel()
	book, _, err := FromCharacterBook(readFixture(t, "cards/eldoria_book.json"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ToCharacterBook("Eldoria Lore", book)
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		Name       string
		Extensions map[string]any
		Entries    []map[string]any
	}
	if err := json.Unmarshal(raw, &card); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	if card.Name != "Eldoria Lore" || card.Extensions == nil || len(card.Entries) != 2 {
		t.Fatalf("card book = %s", raw)
	}
	first, dragon := card.Entries[0], card.Entries[1]
	ext := dragon["extensions"].(map[string]any)
	checks := []struct {
		name      string
		got, want any
	}{
		{"id", dragon["id"], 42.0},
		{"before_char", first["position"], "before_char"},
		{"after_char", dragon["position"], "after_char"},
		{"use_regex", dragon["use_regex"], true},
		{"enabled", dragon["enabled"], false},
		{"insertion_order", dragon["insertion_order"], 20.0},
		{"ext position", ext["position"], 4.0},
		{"ext depth", ext["depth"], 2.0},
		{"ext sticky", ext["sticky"], 2.0},
		{"ext probability", ext["probability"], 50.0},
		{"ext whole words", ext["match_whole_words"], true},
		{"ext scan depth null", ext["scan_depth"], nil},
		{"ext other tool kept", ext["other_tool"] != nil, true},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}

	// And back: the world entries come out the same, but for one
	// asymmetry SillyTavern has too: a null useGroupScoring is exported as
	// false and imported as false.
	again, _, err := FromCharacterBook(raw)
	if err != nil {
		t.Fatal(err)
	}
	strip := func(b *Book) []byte {
		c := &Book{}
		for _, e := range b.Entries {
			cp := *e
			cp.Extensions = nil
			cp.UseGroupScoring = nil
			c.Entries = append(c.Entries, &cp)
		}
		return mustEncode(t, c)
	}
	if a, b := strip(book), strip(again); !bytes.Equal(a, b) {
		t.Errorf("round trip changed the entries:\nbefore: %s\nafter:  %s", a, b)
	}
}

// TestToCharacterBookAbsentFields: fields a world entry lacks are left out
// or take SillyTavern's export defaults.
func TestToCharacterBookAbsentFields(t *testing.T) {
	t.Parallel()
	book := mustParse(t, []byte(`{"entries":{"0":{"uid":0,"key":["a"],"content":"c"}}}`))
	raw, err := ToCharacterBook("B", book)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"entries":[{"id":0,"keys":["a"],"content":"c","enabled":true,"position":"after_char","use_regex":true,` +
		`"extensions":{"probability":null,"useProbability":false,"depth":4,"selectiveLogic":0,"outlet_name":"","group":"",` +
		`"group_override":false,"group_weight":null,"prevent_recursion":false,"delay_until_recursion":false,"scan_depth":null,` +
		`"match_whole_words":null,"use_group_scoring":false,"case_sensitive":null,"automation_id":"","role":0,"vectorized":false,` +
		`"sticky":null,"cooldown":null,"delay":null,"match_persona_description":false,"match_character_description":false,` +
		`"match_character_personality":false,"match_character_depth_prompt":false,"match_scenario":false,"match_creator_notes":false,` +
		`"triggers":[],"ignore_budget":false}}],"name":"B","extensions":{}}`
	if string(raw) != want {
		t.Errorf("got  %s\nwant %s", raw, want)
	}
}

func TestFromCharacterBookErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, field string }{
		{"not object", `[]`, "character_book"},
		{"no entries", `{"name":"x"}`, "character_book.entries"},
		{"entries not array", `{"entries":{}}`, "character_book.entries"},
		{"entry not object", `{"entries":[1]}`, "character_book.entries[0]"},
		{"bad keys", `{"entries":[{"keys":"a"}]}`, "character_book.entries[0].keys"},
		{"bad extension", `{"entries":[{"keys":[],"extensions":{"depth":"4"}}]}`, "character_book.entries[0].extensions.depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := FromCharacterBook([]byte(tt.in))
			if e := apperr.As(err); e == nil || e.Code != CodeInvalid || e.Details["field"] != tt.field {
				t.Errorf("err = %v, want %s on %s", err, CodeInvalid, tt.field)
			}
		})
	}
}
