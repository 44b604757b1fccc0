package host_test

import (
	"slices"
	"strings"
	"testing"

	"hearth/backend/app/apptest"
)

// TestWorldInfoSlowKeyIsReported follows docs/API.md's example: a regex
// key that backtracks for good over the chat is reported in
// generate.dryRun's worldInfoActivation (disabledKeys, warnings) and
// turned off for its entry; the next check names it without running it,
// and a save of the book tries it again.
func TestWorldInfoSlowKeyIsReported(t *testing.T) {
	t.Parallel()
	e := apptest.NewEnv(t, nil)
	e.SetupChat(map[string]any{"is_user": true, "name": "User", "mes": strings.Repeat("a", 40)})
	const slow = `/(a+a+)+(?=b)/`
	book := map[string]any{"entries": map[string]any{
		"0": map[string]any{"uid": 0, "key": []string{slow, "river"}, "comment": "Rivers", "content": "Three rivers."},
		"1": map[string]any{"uid": 1, "key": []string{"aaa"}, "content": "Plain keys still work."},
	}}
	e.Must(nil, "worldinfo.save", "Slow", book)
	e.Must(nil, "worldinfo.bindToChat", e.ChatID, "Slow")

	type disabled struct {
		World  string `json:"world"`
		UID    int    `json:"uid"`
		Key    string `json:"key"`
		Reason string `json:"reason"`
	}
	type activation struct {
		Entries []struct {
			UID int `json:"uid"`
		} `json:"entries"`
		Warnings     []string   `json:"warnings"`
		DisabledKeys []disabled `json:"disabledKeys"`
	}
	dry := func() activation {
		var snap struct {
			WorldInfoActivation activation `json:"worldInfoActivation"`
		}
		e.Must(&snap, "generate.dryRun", map[string]any{"chatId": e.ChatID, "type": "normal"})
		return snap.WorldInfoActivation
	}
	want := []disabled{{World: "Slow", UID: 0, Key: slow, Reason: "timeout"}}
	hasWarning := func(act activation, part string) bool {
		return slices.ContainsFunc(act.Warnings, func(w string) bool { return strings.Contains(w, part) })
	}

	act := dry()
	if !slices.Equal(act.DisabledKeys, want) || !hasWarning(act, "entry 0 (Rivers): the key "+slow+" took longer than") {
		t.Fatalf("first check: %+v; want the slow key reported", act)
	}
	if len(act.Entries) != 1 || act.Entries[0].UID != 1 {
		t.Errorf("activated %+v; want entry 1 only", act.Entries)
	}
	act = dry()
	if !slices.Equal(act.DisabledKeys, want) || !hasWarning(act, "earlier scan") || hasWarning(act, "took longer than") {
		t.Errorf("second check: %+v; want the key named, not run again", act)
	}
	e.Must(nil, "worldinfo.save", "Slow", book)
	if act = dry(); !slices.Equal(act.DisabledKeys, want) || !hasWarning(act, "took longer than") {
		t.Errorf("after a save: %+v; want the key tried (and turned off) again", act)
	}
}
