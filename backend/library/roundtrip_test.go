package library_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/cards"
	"hearth/backend/library"
)

// TestRoundTrip imports the fixture library and exports it: every file
// written equals the one read, up to the normalizations docs/API.md lists
// ("SillyTavern library"): worlds, group files, unchanged presets and
// persona pictures byte for byte; cards as the same card data (a PNG
// re-encoded with both chunks, JSON cards as PNG); chats line by line as
// JSON after the JSONL normalizations; settings.json as JSON with only
// the global selection narrowed to books Hearth has.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	_, userDir := install(t)
	generated(t, userDir, 200)
	a := openApp(t)
	ctx := t.Context()
	in, err := a.Library.Import(ctx, userDir, nil)
	if err != nil || len(in.Failed) > 0 {
		t.Fatalf("import: %v %+v", err, in.Failed)
	}
	out := filepath.Join(t.TempDir(), "export")
	sum, err := a.Library.Export(ctx, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failed) != 0 {
		t.Fatalf("export failed: %+v", sum.Failed)
	}
	// Lorebooks: the fixture's, and those made from cards' embedded books.
	books, _ := a.WorldInfo.List(ctx)
	wantOut := in.Imported
	wantOut.Lorebooks = len(books)
	wantOut.Extensions = 0 // extensions are installed, not exported
	if sum.Exported != wantOut || sum.Messages != in.Messages || len(books) < fixtureLorebooks {
		t.Errorf("exported %+v (%d messages), imported %+v (%d)", sum.Exported, sum.Messages, in.Imported, in.Messages)
	}
	read := func(root, rel string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	byteForByte := []string{
		"worlds/Seraphina's Glade.json", "worlds/Global Lore.json", "worlds/Wren's Past.json", "worlds/Empty Book.json", "worlds/Ünïcode – Tales.json",
		"groups/1710000000000.json", "group chats/stray chat.jsonl", // kept as they were: not importable
		"OpenAI Settings/Default.json", "OpenAI Settings/Roleplay.json",
		"User Avatars/user-default.png", "User Avatars/1700000000000-Wren.png",
	}
	for _, rel := range byteForByte {
		if !bytes.Equal(read(userDir, rel), read(out, rel)) {
			t.Errorf("%s differs", rel)
		}
	}
	if ghost := read(out, "User Avatars/1700000000100-Ghost.png"); !bytes.HasPrefix(ghost, []byte("\x89PNG")) {
		t.Error("the persona without a picture has no placeholder")
	}
	if _, err := os.Stat(filepath.Join(out, "User Avatars", "stray.png")); err == nil {
		t.Error("a picture no persona names was exported")
	}

	checkCards(t, userDir, out)
	checkChats(t, userDir, out, in.Imported.Chats)
	checkGroups(t, userDir, out)

	var want, got map[string]any
	if err := json.Unmarshal(read(userDir, "settings.json"), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(read(out, "settings.json"), &got); err != nil {
		t.Fatal(err)
	}
	want["world_info_settings"].(map[string]any)["world_info"].(map[string]any)["globalSelect"] = []any{"Global Lore"}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("settings.json:\ngot  %s\nwant %s", g, w)
	}

	// A preset changed in Hearth is written by Hearth's export, named after it.
	list, _ := a.Presets.List(ctx)
	for _, p := range list {
		if p.Name == "Roleplay" {
			preset, _ := a.Presets.Get(ctx, p.ID)
			preset.MaxContext++
			if _, err := a.Presets.Save(ctx, preset); err != nil {
				t.Fatal(err)
			}
		}
	}
	changed := filepath.Join(t.TempDir(), "changed")
	if _, err := a.Library.Export(ctx, changed, nil); err != nil {
		t.Fatal(err)
	}
	if names := sortedNames(t, filepath.Join(changed, "OpenAI Settings")); !reflect.DeepEqual(names, []string{"Default.json", "Roleplay.json"}) {
		t.Errorf("presets exported as %v", names)
	}
	if bytes.Equal(read(userDir, "OpenAI Settings/Roleplay.json"), read(changed, "OpenAI Settings/Roleplay.json")) {
		t.Error("the changed preset was written as the file it came from")
	}
	if !bytes.Equal(read(userDir, "OpenAI Settings/Default.json"), read(changed, "OpenAI Settings/Default.json")) {
		t.Error("the unchanged preset was not written as the file it came from")
	}

	// A second export refuses the folder now holding the first.
	if _, err := a.Library.Export(ctx, out, nil); apperr.CodeOf(err) != library.CodeTargetNotEmpty {
		t.Errorf("export into a full folder: %v", err)
	}
	// And a re-import of the export stores nothing new: same files.
	b := openApp(t)
	first, err := b.Library.Import(ctx, out, nil)
	if err != nil || len(first.Failed) > 0 || first.Imported != sum.Exported {
		t.Fatalf("import of the export: %+v %v", first, err)
	}
	again := filepath.Join(t.TempDir(), "again")
	if _, err := b.Library.Export(ctx, again, nil); err != nil {
		t.Fatal(err)
	}
	stable := append(byteForByte, "groups/1700000000000.json", "groups/1690000000000.json",
		"group chats/1700000000001.jsonl", "group chats/森の夜.jsonl", "group chats/1690000000001.jsonl", "group chats/1690000000002.jsonl")
	for _, rel := range stable {
		if !bytes.Equal(read(out, rel), read(again, rel)) {
			t.Errorf("%s changed on the second round trip", rel)
		}
	}
}

// checkCards: every card of the input is in the export as a PNG named
// after its file, holding the same card.
func checkCards(t *testing.T, in, out string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(in, "characters"))
	n := 0
	for _, e := range entries {
		ext := path.Ext(e.Name())
		if e.IsDir() || (ext != ".png" && ext != ".json") {
			continue
		}
		n++
		orig, _ := os.ReadFile(filepath.Join(in, "characters", e.Name()))
		exported, err := os.ReadFile(filepath.Join(out, "characters", strings.TrimSuffix(e.Name(), ext)+".png"))
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		a, err := cards.Decode(e.Name(), orig)
		if err != nil {
			t.Fatal(err)
		}
		b, err := cards.Decode("x.png", exported)
		if err != nil {
			t.Errorf("%s: the export is no card: %v", e.Name(), err)
			continue
		}
		ad, _ := a.Data.MarshalJSON()
		bd, _ := b.Data.MarshalJSON()
		ad, bd = withoutWorldBinding(t, ad, bd)
		if !jsonEqual(t, ad, bd) {
			t.Errorf("%s: card data differs:\nin  %s\nout %s", e.Name(), ad, bd)
		}
	}
	if n != fixtureCards+generatedCards {
		t.Errorf("%d cards checked", n)
	}
}

// withoutWorldBinding removes what the lorebook binding changes (both
// documented): an embedded character_book becomes a lorebook bound to the
// card (extensions.world) on import, and a card bound to a lorebook is
// exported with that book as its character_book, as SillyTavern exports.
func withoutWorldBinding(t *testing.T, in, out []byte) ([]byte, []byte) {
	t.Helper()
	var a, b map[string]any
	_ = json.Unmarshal(in, &a)
	_ = json.Unmarshal(out, &b)
	be, _ := b["extensions"].(map[string]any)
	if w, _ := be["world"].(string); w == "" {
		return in, out
	}
	if b["character_book"] == nil {
		t.Errorf("card %v bound to %v exports no character_book", b["name"], be["world"])
	}
	ae, _ := a["extensions"].(map[string]any)
	if ae == nil {
		ae = map[string]any{}
		a["extensions"] = ae
	}
	ae["world"] = be["world"]
	delete(a, "character_book")
	delete(b, "character_book")
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return x, y
}

// checkChats compares every chat file of the input with its export, line
// by line as JSON, after the JSONL normalizations of docs/API.md.
func checkChats(t *testing.T, in, out string, want int) {
	t.Helper()
	n := 0
	dirs, _ := os.ReadDir(filepath.Join(in, "chats"))
	for _, d := range dirs {
		files, _ := os.ReadDir(filepath.Join(in, "chats", d.Name()))
		for _, f := range files {
			rel := filepath.Join("chats", d.Name(), f.Name())
			orig, _ := os.ReadFile(filepath.Join(in, rel))
			exported, err := os.ReadFile(filepath.Join(out, rel))
			if d.Name() == "Nobody" {
				if err == nil {
					t.Errorf("%s: a chat no card owns was exported", rel)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			n++
			compareChat(t, rel, orig, exported)
		}
	}
	if n != want {
		t.Errorf("%d chats compared, %d imported", n, want)
	}
}

func compareChat(t *testing.T, rel string, orig, exported []byte) {
	t.Helper()
	a, b := jsonLines(t, orig), jsonLines(t, exported)
	if isMessage(a[0]) {
		b = b[1:] // a file without a header gets one
	}
	if len(a) != len(b) {
		t.Errorf("%s: %d lines, the input %d", rel, len(b), len(a))
		return
	}
	for i := range a {
		want := a[i]
		if !isMessage(want) {
			continue // the fixture headers are complete: checked by the lossless header rule below
		}
		want = normalizedMessage(want)
		if !reflect.DeepEqual(want, b[i]) {
			w, _ := json.Marshal(want)
			g, _ := json.Marshal(b[i])
			t.Errorf("%s line %d:\ngot  %s\nwant %s", rel, i+1, g, w)
			return
		}
	}
	if !isMessage(a[0]) && !reflect.DeepEqual(a[0], b[0]) {
		t.Errorf("%s: header %v, want %v", rel, b[0], a[0])
	}
}

func isMessage(o map[string]any) bool {
	_, mes := o["mes"]
	_, user := o["is_user"]
	return mes || user
}

func jsonLines(t *testing.T, text []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimRight(string(text), "\n"), "\n") {
		var o map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("not JSONL: %v", err)
		}
		out = append(out, o)
	}
	return out
}

// stickyExtra are the message-level extra keys left out of a swipe_info
// entry built from the message.
var stickyExtra = []string{"hidden", "type", "bookmark_link", "branches", "isSmallSys", "spindle_metadata"}

// normalizedMessage is what an import and export make of a message that
// has its swipes: defaults filled, a missing swipe_info built from the
// message (the fixture leaves no other swipe without one).
func normalizedMessage(m map[string]any) map[string]any {
	w := map[string]any{}
	for k, v := range m {
		w[k] = v
	}
	delete(w, "id")
	for k, v := range map[string]any{"is_user": false, "is_system": false, "extra": map[string]any{}} {
		if _, ok := w[k]; !ok {
			w[k] = v
		}
	}
	if _, ok := w["swipes"]; !ok {
		w["swipes"], w["swipe_id"] = []any{w["mes"]}, json.Number("0")
	}
	if infos, ok := w["swipe_info"].([]any); !ok || len(infos) == 0 {
		info := map[string]any{"send_date": nil, "gen_started": nil, "gen_finished": nil}
		for _, k := range []string{"send_date", "gen_started", "gen_finished"} {
			if v, ok := w[k]; ok {
				info[k] = v
			}
		}
		extra := map[string]any{}
		for k, v := range w["extra"].(map[string]any) {
			extra[k] = v
		}
		for _, k := range stickyExtra {
			delete(extra, k)
		}
		info["extra"] = extra
		w["swipe_info"] = []any{info}
	}
	return w
}

// sortedNames lists a folder's file names.
func sortedNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}
