package host_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"hearth/backend/app/apptest"
)

func summary(t *testing.T, e *apptest.Env, method string, args ...any) map[string]any {
	t.Helper()
	var out map[string]any
	e.Must(&out, method, args...)
	return out
}

func stateOf(t *testing.T, e *apptest.Env, chatID, ns string) any {
	t.Helper()
	var got *struct {
		Value any `json:"value"`
	}
	e.Must(&got, "state.getChatState", chatID, ns)
	if got == nil {
		return nil
	}
	return got.Value
}

func TestCheckpointCopiesAndNames(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(apptest.Three()...)
	e.Must(nil, "chat.saveMetadata", e.ChatID, map[string]any{"note": "kept", "world_info": "Shared book"})
	src := summary(t, e, "chat.get", e.ChatID)
	cp1 := summary(t, e, "chat.createCheckpoint", e.ChatID, 1)
	cp2 := summary(t, e, "chat.createCheckpoint", e.ChatID, 2)
	apptest.Eq(t, "names", []any{cp1["fileName"], cp2["fileName"]},
		[]any{src["fileName"].(string) + " - Checkpoint #1", src["fileName"].(string) + " - Checkpoint #2"})
	got := summary(t, e, "chat.get", cp1["chatId"])
	meta := got["metadata"].(map[string]any)
	apptest.Eq(t, "main_chat", meta["main_chat"], src["fileName"])
	apptest.Eq(t, "metadata kept", meta["note"], "kept")
	if meta["integrity"] == nil || meta["integrity"] == src["metadata"].(map[string]any)["integrity"] {
		t.Fatalf("integrity not fresh: %v", meta["integrity"])
	}
	// No book of that name exists: the reference is kept as it is
	// (TestBranchIsolatesLorebook clones one that does).
	apptest.Eq(t, "lorebook reference", meta["world_info"], "Shared book")
	var msgs, orig []map[string]any
	e.Must(&msgs, "chat.getStMessages", cp1["chatId"])
	orig = e.StMessages()
	apptest.Eq(t, "copied", len(msgs), 2)
	for i := range msgs {
		if msgs[i]["id"] == orig[i]["id"] {
			t.Fatalf("message %d kept its id", i)
		}
		delete(msgs[i], "id")
		o := map[string]any{}
		for k, v := range orig[i] {
			o[k] = v
		}
		delete(o, "id")
		if i == 1 {
			delete(o["extra"].(map[string]any), "bookmark_link")
		}
		apptest.Eq(t, "message", msgs[i], o)
	}
	apptest.Eq(t, "size", got["bytes"].(float64) > 0, true)
	apptest.Eq(t, "source stays current", summary(t, e, "chat.get", e.ChatID)["messageCount"], 3.0)
}

// TestBranchIsolatesLorebook: a checkpoint or branch binds its own copy
// of the chat's lorebook, named after it, so an edit in one timeline's
// book never shows in the other's; isolateLorebook false shares the book.
func TestBranchIsolatesLorebook(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(apptest.Three()...)
	book := map[string]any{"entries": map[string]any{"0": map[string]any{"uid": 0, "key": []string{"lantern"}, "content": "The lantern is blue."}}}
	e.Must(nil, "worldinfo.save", "Shared book", book)
	e.Must(nil, "worldinfo.bindToChat", e.ChatID, "Shared book")
	worldOf := func(chatID string) string {
		w, _ := summary(t, e, "chat.get", chatID)["metadata"].(map[string]any)["world_info"].(string)
		return w
	}
	cp := summary(t, e, "chat.createCheckpoint", e.ChatID, 1)
	br := summary(t, e, "chat.createBranch", e.ChatID, 2)
	shared := summary(t, e, "chat.createBranch", e.ChatID, 2, map[string]any{"isolateLorebook": false})
	apptest.Eq(t, "checkpoint's book", worldOf(cp["chatId"].(string)), "Shared book ("+cp["fileName"].(string)+")")
	apptest.Eq(t, "branch's book", worldOf(br["chatId"].(string)), "Shared book ("+br["fileName"].(string)+")")
	apptest.Eq(t, "shared branch's book", worldOf(shared["chatId"].(string)), "Shared book")
	apptest.Eq(t, "source's book", worldOf(e.ChatID), "Shared book")

	var copied map[string]any
	e.Must(&copied, "worldinfo.get", worldOf(br["chatId"].(string)))
	apptest.Eq(t, "the copy's entries", copied["entries"].(map[string]any)["0"].(map[string]any)["content"], "The lantern is blue.")
	copied["entries"].(map[string]any)["0"].(map[string]any)["content"] = "The lantern is red."
	e.Must(nil, "worldinfo.save", worldOf(br["chatId"].(string)), copied)
	var orig map[string]any
	e.Must(&orig, "worldinfo.get", "Shared book")
	apptest.Eq(t, "the source's book after the branch's edit", orig["entries"].(map[string]any)["0"].(map[string]any)["content"], "The lantern is blue.")

	var books []map[string]any
	e.Must(&books, "worldinfo.list")
	apptest.Eq(t, "books", len(books), 3)
}

func TestBranchIsolatesState(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(apptest.Three()...)
	e.Must(nil, "state.setChatState", e.ChatID, "a", map[string]any{"n": 1})
	e.Must(nil, "state.floorUpdate", e.ChatID, "fs", map[string]any{"f0": 1}, map[string]any{"floor": 0})
	e.Must(nil, "state.floorUpdate", e.ChatID, "fs", map[string]any{"f0": 1, "f1": 1}, map[string]any{"floor": 1})
	e.Must(nil, "state.floorUpdate", e.ChatID, "fs", map[string]any{"f0": 1, "f1": 1, "f1b": 1}, map[string]any{"floor": 1, "swipeId": 1})
	e.Must(nil, "state.floorUpdate", e.ChatID, "fs", map[string]any{"f0": 1, "f1": 1, "f2": 1}, map[string]any{"floor": 2})
	br := summary(t, e, "chat.createBranch", e.ChatID, 1, map[string]any{"swipeId": 1})
	b := br["chatId"].(string)

	apptest.Eq(t, "chat state copied", stateOf(t, e, b, "a"), map[string]any{"n": 1.0})
	// Floor 2's commit is gone, and floor 1 is on swipe 1: its commit (add
	// f1b) replaces swipe 0's (add f1).
	apptest.Eq(t, "branch floor state", stateOf(t, e, b, "fs"), map[string]any{"f0": 1.0, "f1b": 1.0})
	apptest.Eq(t, "source floor state", stateOf(t, e, e.ChatID, "fs"), map[string]any{"f0": 1.0, "f1": 1.0, "f2": 1.0})

	e.Must(nil, "state.setChatState", b, "a", map[string]any{"n": 2})
	e.Must(nil, "state.floorUpdate", b, "fs", map[string]any{"branch": true}, nil)
	apptest.Eq(t, "branch floor log", len(stateOf(t, e, b, "fs__floor_log").(map[string]any)["commits"].([]any)), 4)
	apptest.Eq(t, "source untouched", stateOf(t, e, e.ChatID, "a"), map[string]any{"n": 1.0})
	apptest.Eq(t, "source floor untouched", stateOf(t, e, e.ChatID, "fs"), map[string]any{"f0": 1.0, "f1": 1.0, "f2": 1.0})
	e.Must(nil, "state.setChatState", e.ChatID, "a", map[string]any{"n": 3})
	e.Must(nil, "chat.deleteMessages", e.ChatID, 2)
	apptest.Eq(t, "branch untouched", stateOf(t, e, b, "a"), map[string]any{"n": 2.0})
	apptest.Eq(t, "branch floor untouched", stateOf(t, e, b, "fs"), map[string]any{"branch": true})
	apptest.Eq(t, "source after its delete", stateOf(t, e, e.ChatID, "fs"), map[string]any{"f0": 1.0, "f1": 1.0})
}

func TestBranchAtSwipeKeepsMatchingFloorCommits(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(apptest.Three()...)
	e.Must(nil, "state.floorUpdate", e.ChatID, "fs", map[string]any{"s1": 1}, map[string]any{"floor": 1, "swipeId": 1})
	br := summary(t, e, "chat.createBranch", e.ChatID, 1, map[string]any{"swipeId": 1})
	apptest.Eq(t, "source (swipe 0 active)", stateOf(t, e, e.ChatID, "fs"), map[string]any{})
	apptest.Eq(t, "branch (swipe 1 active)", stateOf(t, e, br["chatId"].(string), "fs"), map[string]any{"s1": 1.0})
}

func TestTree(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(apptest.Three()...)
	a := summary(t, e, "chat.createBranch", e.ChatID, 2)["chatId"].(string)
	b := summary(t, e, "chat.createCheckpoint", a, 1)["chatId"].(string)
	c := summary(t, e, "chat.createBranch", e.ChatID, 0)["chatId"].(string)
	other := summary(t, e, "chat.create", map[string]any{"avatar": e.Avatar})["chatId"].(string)

	shape := func(n map[string]any) string {
		var walk func(n map[string]any) string
		walk = func(n map[string]any) string {
			id := n["chat"].(map[string]any)["chatId"].(string)
			name := map[string]string{e.ChatID: "root", a: "a", b: "b", c: "c", other: "other"}[id]
			var kids []string
			for _, k := range n["children"].([]any) {
				kids = append(kids, walk(k.(map[string]any)))
			}
			if len(kids) == 0 {
				return name
			}
			return name + "(" + strings.Join(kids, " ") + ")"
		}
		return walk(n)
	}
	for _, from := range []string{e.ChatID, a, b, c} {
		apptest.Eq(t, "tree from "+from, shape(summary(t, e, "chat.tree", from)), "root(a(b) c)")
	}
	apptest.Eq(t, "unrelated chat", shape(summary(t, e, "chat.tree", other)), "other")

	e.Must(nil, "chat.delete", a)
	apptest.Eq(t, "parent gone", shape(summary(t, e, "chat.tree", b)), "b")
	apptest.Eq(t, "parent id kept", summary(t, e, "chat.get", b)["parentChatId"], a)
	apptest.Eq(t, "rest of the family", shape(summary(t, e, "chat.tree", e.ChatID)), "root(c)")
}

// messageBytes is a chat's size without its metadata line's share.
func messageBytes(t *testing.T, e *apptest.Env, chatID any) float64 {
	t.Helper()
	d := summary(t, e, "chat.get", chatID)
	meta, _ := json.Marshal(d["metadata"])
	return d["bytes"].(float64) - float64(len(meta))
}

// TestBranchSize checks the size a branch is given (computed from either
// side of the branch point) against a chat built message by message.
func TestBranchSize(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	msgs := append(apptest.Three(), apptest.Three()...)
	e.SetupChat(msgs...)
	for _, tc := range []struct {
		index int
		opts  map[string]any
	}{{1, nil}, {1, map[string]any{"swipeId": 1}}, {4, map[string]any{"swipeId": 1}}, {5, nil}} {
		br := summary(t, e, "chat.createBranch", e.ChatID, tc.index, tc.opts)
		var copied []map[string]any
		e.Must(&copied, "chat.getStMessages", br["chatId"])
		for _, m := range copied {
			delete(m, "id")
		}
		fresh := summary(t, e, "chat.create", map[string]any{"avatar": e.Avatar})
		e.Must(nil, "chat.deleteMessages", fresh["chatId"], 0)
		e.Must(nil, "chat.addMessages", fresh["chatId"], copied)
		apptest.Eq(t, "message bytes of a branch at "+strconv.Itoa(tc.index), messageBytes(t, e, br["chatId"]), messageBytes(t, e, fresh["chatId"]))
	}
}
