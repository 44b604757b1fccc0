package library_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/app"
	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/library"
)

// libraryState is what a library import leaves in Hearth, counted.
type libraryState struct {
	characters, chats, messages, lorebooks, personas, presets int
	groups, groupChats                                        int
}

func stateOf(t testing.TB, a *app.App) libraryState {
	t.Helper()
	ctx := t.Context()
	var s libraryState
	list, err := a.Characters.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.characters = len(list)
	for _, c := range list {
		cs, err := a.Chats.List(ctx, chats.Owner{Avatar: c.Avatar})
		if err != nil {
			t.Fatal(err)
		}
		s.chats += len(cs)
		for _, c := range cs {
			s.messages += c.MessageCount
		}
	}
	gs, err := a.Groups.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.groups = len(gs)
	for _, g := range gs {
		cs, err := a.Chats.List(ctx, chats.Owner{GroupID: g.ID()})
		if err != nil {
			t.Fatal(err)
		}
		s.groupChats += len(cs)
		for _, c := range cs {
			s.messages += c.MessageCount
		}
	}
	books, _ := a.WorldInfo.List(ctx)
	ps, _ := a.Personas.List(ctx)
	pr, _ := a.Presets.List(ctx)
	s.lorebooks, s.personas, s.presets = len(books), len(ps), len(pr)-1 // the built-in preset aside
	return s
}

func TestImportLibrary(t *testing.T) {
	t.Parallel()
	installDir, userDir := install(t)
	added := generated(t, userDir, 300)
	a := openApp(t)
	ctx := t.Context()

	var steps []library.Progress
	sum, err := a.Library.Import(ctx, installDir, func(p library.Progress) { steps = append(steps, p) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Folder != userDir {
		t.Errorf("folder = %s, want the install's default-user %s", sum.Folder, userDir)
	}
	want := library.Counts{Characters: fixtureCards + generatedCards, Chats: fixtureChats + generatedCards*generatedChatsEach + 1,
		Lorebooks: fixtureLorebooks, Personas: fixturePersonas, Presets: fixturePresets, GroupFiles: fixtureGroupFiles,
		Groups: fixtureGroups, GroupChats: fixtureGroupChats,
		Extensions: fixtureUserExtensions + fixtureGlobalExtensions}
	if sum.Imported != want {
		t.Errorf("imported %+v, want %+v", sum.Imported, want)
	}
	if len(sum.Failed) != 0 {
		t.Errorf("failed: %+v", sum.Failed)
	}
	if sum.Messages != fixtureMessages+fixtureGroupMessages+added {
		t.Errorf("messages = %d, want %d", sum.Messages, fixtureMessages+fixtureGroupMessages+added)
	}
	for _, want := range []struct{ kind, path, reason string }{
		{library.KindChat, "chats/Nobody/orphan.jsonl", "no character card"},
		{library.KindPersona, "User Avatars/stray.png", "no persona"},
		{library.KindCharacter, "characters/notes.txt", "not a character card"},
		{library.KindCharacter, "characters/v2_chara", "sprites"},
		{library.KindLorebook, "worlds/readme.txt", "not a World Info file"},
		{library.KindSettings, "settings.json#world_info_settings", `"Missing Book" is not in Hearth`},
		{library.KindGroup, "groups/1690000000000.json#members", "no character of the library has them: ghost.png"},
		{library.KindGroup, "groups/1710000000000.json", "activation_strategy must be an integer from 0 to 3"},
		{library.KindGroup, "group chats/stray chat.jsonl", "no group of the library names this chat"},
	} {
		if !hasSkip(sum.Skipped, want.kind, want.path, want.reason) {
			t.Errorf("no skipped %s %s (%q) in %+v", want.kind, want.path, want.reason, sum.Skipped)
		}
	}
	if len(steps) == 0 || steps[len(steps)-1].Phase != "extensions" {
		t.Errorf("progress: %d steps, last %+v", len(steps), steps[len(steps)-1:])
	}

	got := stateOf(t, a)
	if got.groups != want.Groups || got.groupChats != want.GroupChats ||
		got.characters != want.Characters || got.chats != want.Chats || got.messages != sum.Messages || got.personas != fixturePersonas || got.presets != fixturePresets {
		t.Errorf("Hearth holds %+v after the import", got)
	}
	checkImportedContent(t, a)
	checkImportedExtensions(t, a, installDir)

	again, err := a.Library.Import(ctx, userDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Imported != (library.Counts{}) || len(again.Failed) != 0 || again.Messages != 0 {
		t.Errorf("re-import stored %+v, failed %+v", again.Imported, again.Failed)
	}
	already := 0
	for _, s := range again.Skipped {
		if s.Reason == "already imported" {
			already++
		}
	}
	// The user folder alone: its own extension is known, the install's
	// global one is not reached.
	if n := want.Characters + want.Chats + want.Lorebooks + want.Personas + want.Presets + want.GroupFiles + want.Groups + want.GroupChats + fixtureUserExtensions + 1; already != n {
		t.Errorf("re-import: %d items already imported, want %d", already, n)
	}
	if after := stateOf(t, a); after != got {
		t.Errorf("re-import changed Hearth: %+v, was %+v", after, got)
	}
	if list, err := a.Extensions.List(ctx); err != nil || len(list) != want.Extensions {
		t.Errorf("re-import: %d extensions installed (%v), want %d", len(list), err, want.Extensions)
	}

	// A file changed since is skipped and says so; Hearth's copy stays.
	book := filepath.Join(userDir, "worlds", "Empty Book.json")
	writeFile(t, book, []byte(`{"entries":{"0":{"uid":0,"key":["new"],"content":"changed"}}}`))
	third, err := a.Library.Import(ctx, userDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !hasSkip(third.Skipped, library.KindLorebook, "worlds/Empty Book.json", "changed since the last import; Hearth's copy kept") {
		t.Errorf("changed book not reported: %+v", third.Skipped)
	}
	if b, err := a.WorldInfo.Get(ctx, "Empty Book"); err != nil || len(b.Entries) != 0 {
		t.Errorf("Hearth's Empty Book was replaced: %v", err)
	}
}

func hasSkip(list []library.Skipped, kind, path, reason string) bool {
	for _, s := range list {
		if s.Kind == kind && s.Path == path && strings.Contains(s.Reason, reason) {
			return true
		}
	}
	return false
}

// checkImportedContent looks inside what the fixture import stored.
func checkImportedContent(t *testing.T, a *app.App) {
	t.Helper()
	ctx := t.Context()
	ps, err := a.Personas.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, p := range ps {
		byName[p.Name] = i
	}
	wren := ps[byName["Wren"]]
	if !strings.Contains(wren.Description, "cartographer") || wren.Position != 4 || wren.Depth != 3 || wren.Role != 1 || wren.AvatarURL == nil || !wren.IsActive || wren.Lorebook != "Wren's Past" {
		t.Errorf("Wren = %+v", wren)
	}
	if user := ps[byName["User"]]; !user.IsDefault || user.AvatarURL == nil {
		t.Errorf("User = %+v, want the default persona with a picture", user)
	}
	if ghost := ps[byName["Ghost"]]; ghost.AvatarURL != nil {
		t.Errorf("Ghost has a picture: %+v", ghost)
	}
	cfg, err := a.WorldInfo.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.GlobalSelect) != 1 || cfg.GlobalSelect[0] != "Global Lore" || cfg.Depth != 3 || cfg.Budget != 30 {
		t.Errorf("World Info config = %+v", cfg)
	}
	checkImportedGroups(t, a)
	books, _ := a.WorldInfo.List(ctx)
	for _, b := range books {
		if strings.HasPrefix(b.Name, "Seraphina's Glade ") {
			t.Errorf("the card's embedded book duplicated worlds/Seraphina's Glade.json as %q", b.Name)
		}
	}
	list, _ := a.Characters.List(ctx)
	big := 0
	for _, c := range list {
		cs, _ := a.Chats.List(ctx, chats.Owner{Avatar: c.Avatar})
		for _, s := range cs {
			if s.MessageCount == bigChatMessages {
				big++
			}
		}
	}
	if big != 1 {
		t.Errorf("%d chats of %d messages, want the big one", big, bigChatMessages)
	}
}

// TestImportBrokenItems: a truncated card and a chat with a broken line
// fail alone, with the services' reasons; everything else comes in.
func TestImportBrokenItems(t *testing.T) {
	t.Parallel()
	_, userDir := install(t)
	good, err := os.ReadFile(filepath.Join(userDir, "characters", "v2_chara.png"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(userDir, "characters", "broken.png"), good[:len(good)/2])
	writeFile(t, filepath.Join(userDir, "chats", "v1", "broken.jsonl"), []byte("{\"chat_metadata\":{}}\n{\"mes\":\"ok\"}\n{\"mes\":"))
	a := openApp(t)
	sum, err := a.Library.Import(t.Context(), userDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failed) != 2 {
		t.Fatalf("failed = %+v, want the card and the chat", sum.Failed)
	}
	for i, want := range []struct{ kind, path, text string }{
		{library.KindCharacter, "characters/broken.png", "PNG"},
		{library.KindChat, "chats/v1/broken.jsonl", "line 3"},
	} {
		f := sum.Failed[i]
		if f.Kind != want.kind || f.Path != want.path || !strings.Contains(f.Error, want.text) {
			t.Errorf("failed[%d] = %+v, want %s %s with %q", i, f, want.kind, want.path, want.text)
		}
	}
	if sum.Imported.Characters != fixtureCards || sum.Imported.Chats != fixtureChats {
		t.Errorf("imported %+v besides the broken two", sum.Imported)
	}
	if got := stateOf(t, a); got.characters != fixtureCards || got.chats != fixtureChats {
		t.Errorf("Hearth holds %+v: a broken item left something behind", got)
	}
}

// TestImportNotSillyTavern: folders that are no SillyTavern library are
// refused with a clear error and nothing is stored.
func TestImportNotSillyTavern(t *testing.T) {
	t.Parallel()
	a := openApp(t)
	ctx := t.Context()
	plain := t.TempDir()
	writeFile(t, filepath.Join(plain, "notes.txt"), []byte("hello"))
	writeFile(t, filepath.Join(plain, "characters", "x.png"), []byte("not a card"))
	several := t.TempDir()
	for _, u := range []string{"alice", "bob"} {
		copyTree(t, filepath.Join("testdata", "default-user", "worlds"), filepath.Join(several, "data", u, "worlds"))
		writeFile(t, filepath.Join(several, "data", u, "settings.json"), []byte("{}"))
	}
	for _, tc := range []struct {
		path, code, text string
	}{
		{plain, library.CodeNotSillyTavern, "not a SillyTavern folder"},
		{filepath.Join(plain, "missing"), library.CodeNotFound, "cannot read"},
		{filepath.Join(plain, "notes.txt"), library.CodeNotSillyTavern, "not a folder"},
		{several, library.CodeSeveralUsers, "alice, bob"},
	} {
		_, err := a.Library.Import(ctx, tc.path, nil)
		if apperr.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v, want %s with %q", tc.path, err, tc.code, tc.text)
		}
	}
	if s := stateOf(t, a); s != (libraryState{}) {
		t.Errorf("a refused import stored %+v", s)
	}
	var n int
	if err := a.Store.Reader().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM library_imports) + (SELECT COUNT(*) FROM library_files)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("ledger rows after refused imports: %d, %v", n, err)
	}
}

// TestImportLayouts: a user folder, an install, its data folder, and the
// pre-1.10 layout under public/ all find the same user folder.
func TestImportLayouts(t *testing.T) {
	t.Parallel()
	installDir, userDir := install(t)
	legacy := t.TempDir()
	copyTree(t, filepath.Join("testdata", "default-user", "worlds"), filepath.Join(legacy, "public", "worlds"))
	copyTree(t, filepath.Join("testdata", "default-user", "characters"), filepath.Join(legacy, "public", "characters"))
	single := t.TempDir()
	copyTree(t, filepath.Join("testdata", "default-user", "worlds"), filepath.Join(single, "data", "wren", "worlds"))
	writeFile(t, filepath.Join(single, "data", "wren", "settings.json"), []byte("{}"))
	for _, tc := range []struct{ path, want string }{
		{userDir, userDir},
		{installDir, userDir},
		{filepath.Join(installDir, "data"), userDir},
		{legacy, filepath.Join(legacy, "public")},
		{single, filepath.Join(single, "data", "wren")},
	} {
		a := openApp(t)
		sum, err := a.Library.Import(t.Context(), tc.path, nil)
		if err != nil || sum.Folder != tc.want || sum.Imported.Lorebooks != fixtureLorebooks {
			t.Errorf("%s: folder %s, %+v, %v; want %s", tc.path, sum.Folder, sum.Imported, err, tc.want)
		}
	}
}

// TestImportSymlinks: a link leading out of the user folder is not
// followed; one inside it is.
func TestImportSymlinks(t *testing.T) {
	t.Parallel()
	_, userDir := install(t)
	outside := filepath.Join(t.TempDir(), "secret.json")
	writeFile(t, outside, []byte(`{"entries":{}}`))
	if err := os.Symlink(outside, filepath.Join(userDir, "worlds", "Outside.json")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(filepath.Join(userDir, "worlds", "Empty Book.json"), filepath.Join(userDir, "worlds", "Inside.json")); err != nil {
		t.Fatal(err)
	}
	a := openApp(t)
	sum, err := a.Library.Import(t.Context(), userDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !hasSkip(sum.Skipped, library.KindLorebook, "worlds/Outside.json", "symbolic link") {
		t.Errorf("the outside link was not skipped: %+v", sum.Skipped)
	}
	if _, err := a.WorldInfo.Get(t.Context(), "Outside"); err == nil {
		t.Error("a book was read through a link out of the folder")
	}
	if _, err := a.WorldInfo.Get(t.Context(), "Inside"); err != nil {
		t.Errorf("the inside link was not followed: %v", err)
	}
}

// checkImportedGroups: the legacy group's file became a group with string
// ids, its missing member dropped, its chats' metadata moved from the
// group file into each chat (what no chat took stays); a header-line
// chat's metadata is its header's.
func checkImportedGroups(t *testing.T, a *app.App) {
	t.Helper()
	ctx := t.Context()
	g, err := a.Groups.Get(ctx, "1690000000000")
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Members(); len(got) != 2 {
		t.Errorf("legacy members = %v", got)
	}
	if got := g.DisabledMembers(); len(got) != 0 {
		t.Errorf("legacy muted = %v: the missing member stayed", got)
	}
	if g.Name() != "旧い評議会" || string(g.Data["chat_id"]) != `"1690000000002"` || string(g.Data["chats"]) != `["1690000000001","1690000000002"]` {
		t.Errorf("legacy group = %s %s %s", g.Name(), g.Data["chat_id"], g.Data["chats"])
	}
	if string(g.Data["chat_metadata"]) != "{}" || !jsonEqual(t, g.Data["past_metadata"], []byte(`{"1680000000000":{"integrity":"no file for this one"}}`)) {
		t.Errorf("legacy metadata left in the group: %s / %s", g.Data["chat_metadata"], g.Data["past_metadata"])
	}
	if _, ok := g.Data["date_added"]; ok {
		t.Error("a computed key was stored")
	}
	want := map[string]string{
		"1690000000001": `{"integrity":"legacy-past","variables":{"mood":"calm"}}`,
		"1690000000002": `{"integrity":"legacy-current","note_prompt":"古い記録","note_depth":4}`,
	}
	for name, meta := range want {
		id, err := a.Chats.Resolve(ctx, chats.Ref{GroupID: g.ID(), FileName: name})
		if err != nil {
			t.Fatal(err)
		}
		d, err := a.Chats.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := d.Metadata.MarshalJSON()
		if !jsonEqual(t, got, []byte(meta)) {
			t.Errorf("chat %s metadata = %s, want %s", name, got, meta)
		}
	}
	id, err := a.Chats.Resolve(ctx, chats.Ref{GroupID: "1700000000000", FileName: "森の夜"})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := a.Chats.Get(ctx, id); err != nil || d.MessageCount != 3 || !strings.Contains(string(d.Metadata["variables"]), "秋") {
		t.Errorf("header-line group chat: %+v %v", d, err)
	}
}
