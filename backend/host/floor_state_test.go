package host_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hearth/backend/app/apptest"
)

// floorEnv is a chat of three messages (the middle one with two swipes)
// and helpers to commit to and read the floor state "fs".
type floorEnv struct {
	*apptest.Env
	t *testing.T
}

func newFloorEnv(t *testing.T) floorEnv {
	t.Helper()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(apptest.Three()...)
	return floorEnv{e, t}
}

func (f floorEnv) commit(next any, opts map[string]any) {
	f.t.Helper()
	var out map[string]any
	f.Must(&out, "state.floorUpdate", f.ChatID, "fs", next, opts)
	if out["written"] != true {
		f.t.Fatalf("commit of %v wrote nothing", next)
	}
}

func (f floorEnv) get(ns string) any {
	f.t.Helper()
	var got *struct {
		Value any `json:"value"`
	}
	f.Must(&got, "state.getChatState", f.ChatID, ns)
	if got == nil {
		return nil
	}
	return got.Value
}

// log returns the floor log as (floor, swipeId) pairs in log order.
func (f floorEnv) log() [][2]int {
	f.t.Helper()
	v, _ := f.get("fs__floor_log").(map[string]any)
	var out [][2]int
	if v == nil {
		return out
	}
	for _, c := range v["commits"].([]any) {
		m := c.(map[string]any)
		out = append(out, [2]int{int(m["floor"].(float64)), int(m["swipeId"].(float64))})
	}
	return out
}

func obj(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func at(floor int) map[string]any { return map[string]any{"floor": floor} }

func TestFloorStateNullVersusEmpty(t *testing.T) {
	t.Parallel()
	f := newFloorEnv(t)
	apptest.Eq(t, "no commits", f.get("fs"), nil)
	f.commit(obj("a", 1), map[string]any{"floor": 1, "swipeId": 1})
	apptest.Eq(t, "no active commit", f.get("fs"), map[string]any{})
	f.Must(nil, "chat.swipe", f.ChatID, 1, map[string]any{"to": 1})
	apptest.Eq(t, "its swipe active", f.get("fs"), obj("a", 1.0))
	f.Must(nil, "chat.deleteMessages", f.ChatID, []int{1, 2})
	apptest.Eq(t, "log emptied", f.get("fs"), nil)
	apptest.Eq(t, "log", len(f.log()), 0)
}

func TestFloorStateSwipeRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFloorEnv(t)
	f.Must(nil, "chat.deleteMessages", f.ChatID, 2) // the two-swipe reply is the tail
	f.commit(obj("base", true), at(0))
	f.commit(obj("base", true, "x", "A"), nil)
	f.Must(nil, "chat.swipe", f.ChatID, 1, map[string]any{"to": 1})
	apptest.Eq(t, "on B before its commit", f.get("fs"), obj("base", true))
	f.commit(obj("base", true, "x", "B"), nil)
	apptest.Eq(t, "on B", f.get("fs"), obj("base", true, "x", "B"))
	f.Must(nil, "chat.swipe", f.ChatID, 1, map[string]any{"to": 0})
	apptest.Eq(t, "back on A", f.get("fs"), obj("base", true, "x", "A"))
	apptest.Eq(t, "log", f.log(), [][2]int{{0, 0}, {1, 0}, {1, 1}})
}

func TestFloorStateTailDelete(t *testing.T) {
	t.Parallel()
	f := newFloorEnv(t)
	f.commit(obj("f0", 1), at(0))
	f.commit(obj("f0", 1, "f1", 1), at(1))
	f.commit(obj("f0", 1, "f1", 1, "f2", 1), at(2))
	f.Must(nil, "chat.deleteMessages", f.ChatID, 2)
	apptest.Eq(t, "state", f.get("fs"), obj("f0", 1.0, "f1", 1.0))
	apptest.Eq(t, "log", f.log(), [][2]int{{0, 0}, {1, 0}})
}

func TestFloorStateMiddleDeleteRenumbers(t *testing.T) {
	t.Parallel()
	f := newFloorEnv(t)
	f.commit(obj("f0", 1), at(0))
	f.commit(obj("f0", 1, "f1", 1), at(1))
	f.commit(obj("f0", 1, "f1", 1, "f2", 1), at(2))
	f.Events()
	f.Must(nil, "chat.deleteMessages", f.ChatID, 1)
	apptest.Eq(t, "state", f.get("fs"), obj("f0", 1.0, "f2", 1.0))
	apptest.Eq(t, "log renumbered", f.log(), [][2]int{{0, 0}, {1, 0}})
	types := []string{}
	for _, ev := range f.Events() {
		types = append(types, ev.Type)
	}
	apptest.Eq(t, "settled before the delete event", types, []string{"chat_state_changed", "message_deleted"})
}

func TestFloorStateSwipeDelete(t *testing.T) {
	t.Parallel()
	f := newFloorEnv(t)
	f.commit(obj("s", 0), map[string]any{"floor": 1, "swipeId": 0})
	f.commit(obj("s", 1), map[string]any{"floor": 1, "swipeId": 1})
	apptest.Eq(t, "swipe 0 active", f.get("fs"), obj("s", 0.0))
	f.Must(nil, "chat.deleteSwipe", f.ChatID, 1, 0)
	// The commit made on swipe 1 (now 0, and active) was a diff against
	// {s:0}: it no longer applies to {} and is cut to the orphans.
	apptest.Eq(t, "log", len(f.log()), 0)
	apptest.Eq(t, "state", f.get("fs"), nil)
	orphans := f.get("fs__orphans").(map[string]any)["commits"].([]any)
	apptest.Eq(t, "orphaned", len(orphans), 1)
}

func TestFloorStateSwipeDeleteRenumbersLaterSwipes(t *testing.T) {
	t.Parallel()
	f := newFloorEnv(t)
	f.Must(nil, "chat.addSwipe", f.ChatID, 1, "Third answer.")
	f.commit(obj("s", 2), map[string]any{"floor": 1, "swipeId": 2})
	f.Must(nil, "chat.deleteSwipe", f.ChatID, 1, 0)
	apptest.Eq(t, "log", f.log(), [][2]int{{1, 1}})
	f.Must(nil, "chat.swipe", f.ChatID, 1, map[string]any{"to": 1})
	apptest.Eq(t, "the third answer's state", f.get("fs"), obj("s", 2.0))
}

func TestFloorStateBrokenChainGoesToOrphans(t *testing.T) {
	t.Parallel()
	f := newFloorEnv(t)
	f.commit(obj("a", 1), at(1))         // add /a on floor 1, swipe 0
	f.commit(obj("a", 2, "b", 1), at(2)) // replace /a, add /b on floor 2
	f.Must(nil, "chat.swipe", f.ChatID, 1, map[string]any{"to": 1})
	apptest.Eq(t, "state", f.get("fs"), map[string]any{})
	apptest.Eq(t, "log cut", f.log(), [][2]int{{1, 0}})
	orphans := f.get("fs__orphans").(map[string]any)
	commits := orphans["commits"].([]any)
	apptest.Eq(t, "orphans", len(commits), 1)
	apptest.Eq(t, "orphan floor", commits[0].(map[string]any)["floor"], 2.0)
	f.Must(nil, "chat.swipe", f.ChatID, 1, map[string]any{"to": 0})
	apptest.Eq(t, "what survived", f.get("fs"), obj("a", 1.0))
}

func TestFloorStateRootOps(t *testing.T) {
	t.Parallel()
	f := newFloorEnv(t)
	f.Must(nil, "state.floorPatch", f.ChatID, "fs", []any{obj("op", "add", "path", "", "value", obj("a", 1))}, nil)
	f.Must(nil, "state.floorPatch", f.ChatID, "fs", []any{obj("op", "replace", "path", "", "value", obj("b", 2))}, at(1))
	apptest.Eq(t, "state", f.get("fs"), obj("b", 2.0))
	f.Must(nil, "chat.deleteMessages", f.ChatID, 2)
	apptest.Eq(t, "after the tail went", f.get("fs"), obj("b", 2.0))
	f.Must(nil, "chat.swipe", f.ChatID, 1, map[string]any{"to": 1})
	apptest.Eq(t, "root ops replay", f.get("fs"), map[string]any{})
}

func TestFloorStateFailedWriteChangesNothing(t *testing.T) {
	t.Parallel()
	f := newFloorEnv(t)
	f.commit(obj("a", 1, "list", []any{1, 2}), nil)
	f.Events()
	before, _ := json.Marshal([]any{f.get("fs"), f.get("fs__floor_log")})
	// Copies that double a value: past jsonx.MaxCopyBytes the patch is
	// refused before it outgrows memory.
	bomb := []any{obj("op", "add", "path", "/d", "value", obj("s", strings.Repeat("x", 1000)))}
	for i := range 40 {
		bomb = append(bomb, obj("op", "copy", "from", "/d", "path", fmt.Sprintf("/d/c%d", i)))
	}
	for _, call := range [][]any{
		{"state.floorUpdate", f.ChatID, "fs", obj("a", 2), at(9)},
		{"state.floorUpdate", f.ChatID, "fs", obj("a", 2), obj("swipeId", -2)},
		{"state.floorPatch", f.ChatID, "fs", []any{obj("op", "remove", "path", "/zz")}, nil},
		// RFC 6901 has no negative index (the patch library's default reads
		// -1 as the last element).
		{"state.floorPatch", f.ChatID, "fs", []any{obj("op", "remove", "path", "/list/-1")}, nil},
		{"state.floorPatch", f.ChatID, "fs", bomb, nil},
		{"state.floorUpdate", f.ChatID, "fs__floor_log", obj("a", 2), nil},
	} {
		if _, err := f.Call(call[0].(string), call[1:]...); err == nil {
			t.Fatalf("%v succeeded", call)
		}
	}
	after, _ := json.Marshal([]any{f.get("fs"), f.get("fs__floor_log")})
	apptest.Eq(t, "state", string(after), string(before))
	apptest.Eq(t, "events", len(f.Events()), 0)
}
