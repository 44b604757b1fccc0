package library_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// checkGroups compares the fixture's two importable groups and their four
// chats with the export, up to the normalizations docs/API.md lists
// ("SillyTavern library", Groups):
//
//   - a group file is written as SillyTavern writes one (4-space indent),
//     keys sorted; compared as JSON;
//   - numeric id, chat_id and chat ids become strings, a chat id listed
//     twice once (SillyTavern's group list and validateGroup do both);
//   - members, muted members and hearth.memberOverrides whose character
//     is not in the library are dropped (SillyTavern drops such members
//     when it opens the group);
//   - the keys SillyTavern's group list computes (date_added, create_date,
//     date_last_chat, chat_size) are not kept;
//   - a legacy group's chat metadata moves into its chats: chat_metadata
//     becomes {} once its chat_id's chat is imported, and past_metadata
//     loses each imported chat's entry (removed when none is left);
//   - a legacy group chat (no header line) is written with one:
//     SillyTavern's group chat header {chat_metadata (from the group
//     file), user_name: "unused", character_name: "unused"}; messages get
//     the JSONL normalizations of character chats;
//   - unknown keys and Hearth's `hearth` block are written back as they
//     came.
func checkGroups(t *testing.T, in, out string) {
	t.Helper()
	readJSON := func(root, rel string) map[string]any {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		var o map[string]any
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return o
	}
	for _, rel := range []string{"groups/1700000000000.json", "groups/1690000000000.json"} {
		want, got := normalizedGroup(readJSON(in, rel)), readJSON(out, rel)
		if !reflect.DeepEqual(got, want) {
			g, _ := json.MarshalIndent(got, "", " ")
			w, _ := json.MarshalIndent(want, "", " ")
			t.Errorf("%s:\ngot  %s\nwant %s", rel, g, w)
		}
	}
	legacy := readJSON(in, "groups/1690000000000.json")
	legacyMeta := map[string]any{
		"1690000000001": legacy["past_metadata"].(map[string]any)["1690000000001"],
		"1690000000002": legacy["chat_metadata"],
	}
	for _, name := range []string{"1700000000001", "森の夜", "1690000000001", "1690000000002"} {
		rel := "group chats/" + name + ".jsonl"
		orig, err := os.ReadFile(filepath.Join(in, rel))
		if err != nil {
			t.Fatal(err)
		}
		exported, err := os.ReadFile(filepath.Join(out, rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		compareChat(t, rel, orig, exported)
		meta, ok := legacyMeta[name]
		if !ok {
			continue
		}
		header := jsonLines(t, exported)[0]
		if header["user_name"] != "unused" || header["character_name"] != "unused" || len(header) != 3 {
			t.Errorf("%s: header %v", rel, header)
		}
		if fmt.Sprint(header["chat_metadata"]) != fmt.Sprint(numbered(meta)) {
			t.Errorf("%s: chat_metadata %v, want %v (from the group file)", rel, header["chat_metadata"], meta)
		}
	}
}

// numbered re-reads v with json.Number, as jsonLines reads.
func numbered(v any) any {
	b, _ := json.Marshal(v)
	var out any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	_ = d.Decode(&out)
	return out
}

// normalizedGroup is what an import and export make of a fixture group
// file: see checkGroups.
func normalizedGroup(g map[string]any) map[string]any {
	for _, k := range []string{"date_added", "create_date", "date_last_chat", "chat_size"} {
		delete(g, k)
	}
	str := func(v any) any {
		if n, ok := v.(float64); ok {
			return fmt.Sprintf("%.0f", n)
		}
		return v
	}
	g["id"], g["chat_id"] = str(g["id"]), str(g["chat_id"])
	chats := []any{}
	for _, c := range g["chats"].([]any) {
		if c = str(c); !slices.Contains(chats, c) {
			chats = append(chats, c)
		}
	}
	g["chats"] = chats
	for _, k := range []string{"members", "disabled_members"} {
		kept := []any{}
		for _, a := range g[k].([]any) {
			if a != "ghost.png" {
				kept = append(kept, a)
			}
		}
		g[k] = kept
	}
	// The legacy fixture group: every chat it lists has its file.
	if past, ok := g["past_metadata"].(map[string]any); ok {
		for _, c := range chats {
			delete(past, c.(string))
		}
		if len(past) == 0 {
			delete(g, "past_metadata")
		}
		g["chat_metadata"] = map[string]any{}
	}
	return g
}
