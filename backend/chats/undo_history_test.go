package chats

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// journal builds heads from a compact history: "w" is an ordinary write,
// "u3" an undo of revision 3, "r3" a redo of it; revisions count from 1.
func journal(steps ...string) []journalHead {
	out := make([]journalHead, len(steps))
	for i, s := range steps {
		h := journalHead{rev: int64(i + 1), method: "updateMessages"}
		switch s[0] {
		case 'u':
			h.method = methodUndo
		case 'r':
			h.method = methodRedo
		}
		if s != "w" {
			if _, err := fmt.Sscan(s[1:], &h.target); err != nil {
				panic(s)
			}
		}
		out[i] = h
	}
	return out
}

// newestFirst walks heads the way walkJournal does.
func newestFirst(heads []journalHead) func(yield func(journalHead) bool) error {
	return func(yield func(journalHead) bool) error {
		for i := len(heads) - 1; i >= 0; i-- {
			if !yield(heads[i]) {
				return nil
			}
		}
		return nil
	}
}

func revsOf(heads []journalHead) []int64 {
	out := []int64{}
	for _, h := range heads {
		out = append(out, h.rev)
	}
	return out
}

func TestPlanUndoAndRedo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		history []string
		undo    int64 // 0: nothing
		since   int64
		later   []int64
		redo    int64
		rSince  int64
		rLater  []int64
	}{
		{name: "empty"},
		{name: "one write", history: []string{"w"}, undo: 1, since: 1, later: []int64{}},
		{name: "newest write first", history: []string{"w", "w"}, undo: 2, since: 2, later: []int64{}},
		{name: "undone writes are skipped", history: []string{"w", "w", "u2"},
			undo: 1, since: 1, later: []int64{2, 3}, redo: 2, rSince: 3, rLater: []int64{}},
		{name: "redo stack is LIFO", history: []string{"w", "w", "u2", "u1"},
			undo: 0, redo: 1, rSince: 4, rLater: []int64{}},
		{name: "a redone write is undone from its redo on", history: []string{"w", "w", "u2", "u1", "r1"},
			undo: 1, since: 5, later: []int64{}, redo: 2, rSince: 3, rLater: []int64{4, 5}},
		{name: "everything redone", history: []string{"w", "w", "u2", "u1", "r1", "r2"},
			undo: 2, since: 6, later: []int64{}},
		{name: "an ordinary write empties the redo stack", history: []string{"w", "w", "u2", "w"},
			undo: 4, since: 4, later: []int64{}},
		{name: "and the write undone before it stays undone", history: []string{"w", "w", "u2", "w", "u4"},
			undo: 1, since: 1, later: []int64{2, 3, 4, 5}, redo: 4, rSince: 5, rLater: []int64{}},
		{name: "undo of a write undone and redone twice", history: []string{"w", "u1", "r1", "u1", "r1"},
			undo: 1, since: 5, later: []int64{}},
		{name: "redo after undo, redo, undo", history: []string{"w", "u1", "r1", "u1"},
			redo: 1, rSince: 4, rLater: []int64{}},
		{name: "only undo entries left (older ones pruned)", history: []string{"u9"}, redo: 9, rSince: 1, rLater: []int64{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			heads := journal(c.history...)
			plan, found, err := planUndo(newestFirst(heads))
			if err != nil || found != (c.undo != 0) || plan.target != c.undo || plan.since != c.since ||
				(found && !slices.Equal(revsOf(plan.later), c.later)) {
				t.Errorf("undo: %+v found %v, want target %d since %d later %v", plan, found, c.undo, c.since, c.later)
			}
			plan, found, err = planRedo(newestFirst(heads))
			if err != nil || found != (c.redo != 0) || plan.target != c.redo || plan.since != c.rSince ||
				(found && !slices.Equal(revsOf(plan.later), c.rLater)) {
				t.Errorf("redo: %+v found %v, want target %d since %d later %v", plan, found, c.redo, c.rSince, c.rLater)
			}
		})
	}
}

func TestStanding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		later []journalHead
		want  []int64
	}{
		{"a write made and undone cancels", journal("w", "w", "u2")[1:], []int64{}},
		{"an undo of an older write stands", journal("w", "u1")[1:], []int64{2}},
		{"an older write undone and redone cancels", journal("w", "u1", "r1")[1:], []int64{}},
		{"a write that stands", journal("w", "w")[1:], []int64{2}},
		{"a write undone and redone stands, with its steps", journal("w", "w", "u2", "r2")[1:], []int64{2, 3, 4}},
		{"independent subjects", journal("w", "w", "u2", "w", "u1")[1:], []int64{4, 5}},
	}
	for _, c := range cases {
		if got := revsOf(standing(c.later)); !slices.Equal(got, c.want) {
			t.Errorf("%s: standing = %v, want %v", c.name, got, c.want)
		}
	}
}

func regionFrom(t *testing.T, ops string) region {
	t.Helper()
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(ops), &raws); err != nil {
		t.Fatal(err)
	}
	decoded, err := decodeOps(raws)
	if err != nil {
		t.Fatal(err)
	}
	return regionOf(decoded)
}

func TestRegionOverlap(t *testing.T) {
	t.Parallel()
	edit := func(path string) string { return `[{"op":"replace","path":"` + path + `","value":1}]` }
	cases := []struct {
		name          string
		target, later string
		want          []string
	}{
		{"edits of two messages", edit("/messages/2/mes"), edit("/messages/7/mes"), nil},
		{"two fields of one message meet", edit("/messages/2/mes"), edit("/messages/2/extra/x"), []string{"/messages/2"}},
		{"two metadata keys", edit("/metadata/a"), edit("/metadata/b"), nil},
		{"a metadata key and a path under it", edit("/metadata/a"), edit("/metadata/a/b"), []string{"/metadata/a"}},
		{"a path under a metadata key and the key", edit("/metadata/a/b"), edit("/metadata/a"), []string{"/metadata/a/b"}},
		{"metadata and messages", edit("/metadata/a"), edit("/messages/0/mes"), nil},
		{"an insert before the target moved it", edit("/messages/5/mes"), `[{"op":"add","path":"/messages/3","value":{}}]`, []string{"/messages/5"}},
		{"an insert at the target moved it", edit("/messages/5/mes"), `[{"op":"add","path":"/messages/5","value":{}}]`, []string{"/messages/5"}},
		{"an insert after the target", edit("/messages/5/mes"), `[{"op":"add","path":"/messages/7","value":{}}]`, nil},
		{"an append", edit("/messages/5/mes"), `[{"op":"add","path":"/messages/-","value":{}}]`, nil},
		{"a removal before the target moved it", edit("/messages/5/mes"), `[{"op":"remove","path":"/messages/1"}]`, []string{"/messages/5"}},
		{"a removal after the target", edit("/messages/5/mes"), `[{"op":"remove","path":"/messages/9"}]`, nil},
		{"a whole-message replace moves nothing", edit("/messages/5/mes"), `[{"op":"replace","path":"/messages/2","value":{}}]`, nil},
		{"a target insert meets a later edit after it", `[{"op":"add","path":"/messages/3","value":{}}]`, edit("/messages/8/mes"), []string{"/messages/3"}},
		{"a target insert and a later edit before it", `[{"op":"add","path":"/messages/3","value":{}}]`, edit("/messages/1/mes"), nil},
		{"a target removal meets a later edit after it", `[{"op":"remove","path":"/messages/3"}]`, edit("/messages/3/mes"), []string{"/messages/3"}},
		{"a move within a message", `[{"op":"move","from":"/messages/4/extra/a","path":"/messages/4/extra/b"}]`, edit("/messages/4/mes"), []string{"/messages/4"}},
	}
	for _, c := range cases {
		got := regionFrom(t, c.target).overlap(regionFrom(t, c.later))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: overlap = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestOpenGapsPlacement checks the band arithmetic of openGaps through a
// real chat: messages inserted at scattered positions (one undo of a
// deletion of several) land exactly where they were.
func TestOpenGapsPlacement(t *testing.T) {
	t.Parallel()
	r := newUndoRig(t)
	more := make([]json.RawMessage, 12)
	for i := range more {
		more[i] = json.RawMessage(fmt.Sprintf(`{"mes":"m%d"}`, i))
	}
	if _, err := r.s.AddMessages(r.ctx, r.id, more, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, del := range [][]int{{0}, {17}, {3, 4, 5}, {1, 6, 10, 11, 16}, {0, 2, 4, 6, 8, 10, 12, 14, 16}} {
		before := r.doc()
		if _, err := r.s.DeleteMessages(r.ctx, r.id, del, DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		r.undo()
		if !r.is(before) {
			t.Fatalf("undo of deleting %v:\ngot  %s\nwant %s", del, r.doc(), before)
		}
	}
}
