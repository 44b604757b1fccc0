package chats_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// FuzzPatch throws arbitrary RFC 6902 op lists at chat.patch on a small
// chat (three messages of two swipes each, some metadata). Whatever the
// input: no panic; a failure has an expected code and changes nothing; a
// success leaves every message valid and bumps the revision by at most one
// (and by exactly one when anything changed).
func FuzzPatch(f *testing.F) {
	for _, seed := range []string{
		`[]`,
		`{}`,
		`[{"op":"replace","path":"/messages/1/mes","value":"edited"}]`,
		`[{"op":"add","path":"/messages/-","value":{"name":"X","is_user":true,"mes":"new"}}]`,
		`[{"op":"add","path":"/messages/3","value":{"mes":"tail"}},{"op":"add","path":"/messages/3","value":{"mes":"tail"}}]`,
		`[{"op":"remove","path":"/messages/0"}]`,
		`[{"op":"move","from":"/messages/0","path":"/messages/2"}]`,
		`[{"op":"copy","from":"/messages/1","path":"/messages/-"}]`,
		`[{"op":"test","path":"/messages/0/swipe_id","value":0},{"op":"replace","path":"/metadata/note","value":"y"}]`,
		`[{"op":"test","path":"/messages/0/mes","value":"nope"}]`,
		`[{"op":"test","path":"","value":{}}]`,
		`[{"op":"add","path":"","value":{}}]`,
		`[{"op":"replace","path":"/messages/1/swipe_id","value":5}]`,
		`[{"op":"replace","path":"/messages/1/swipe_id","value":1}]`,
		`[{"op":"replace","path":"/messages/1/swipe_id","value":0.5}]`,
		`[{"op":"replace","path":"/messages/1/swipes","value":[]}]`,
		`[{"op":"replace","path":"/messages/1/swipes","value":["only"]}]`,
		`[{"op":"add","path":"/messages/1/swipes/-","value":"third"}]`,
		`[{"op":"add","path":"/messages/1/swipes/-","value":"third"},{"op":"add","path":"/messages/1/swipe_info/-","value":{}}]`,
		`[{"op":"remove","path":"/messages/1/swipes/0"}]`,
		`[{"op":"replace","path":"/messages/0/swipe_info","value":[{},{}]}]`,
		`[{"op":"replace","path":"/messages/2/extra","value":null}]`,
		`[{"op":"replace","path":"/messages/2/extra/model","value":"other"}]`,
		`[{"op":"remove","path":"/messages/1/id"}]`,
		`[{"op":"replace","path":"/messages/0/id","value":"other"}]`,
		`[{"op":"replace","path":"/messages/1","value":{"mes":"whole"}}]`,
		`[{"op":"replace","path":"/messages","value":[]}]`,
		`[{"op":"replace","path":"/metadata","value":[]}]`,
		`[{"op":"replace","path":"/metadata","value":{"fresh":true}}]`,
		`[{"op":"add","path":"/metadata/__proto__/x","value":1}]`,
		`[{"op":"add","path":"/metadata/a~1b","value":{"c":[1,2]}}]`,
		`[{"op":"replace","path":"/messages/01/mes","value":"x"}]`,
		`[{"op":"replace","path":"/messages/-1/mes","value":"x"}]`,
		`[{"op":"replace","path":"/messages/9/mes","value":"x"}]`,
		`[{"op":"move","from":"/messages/1/mes","path":"/messages/1/note"}]`,
		`[{"op":"move","from":"/metadata/note","path":"/messages/0/note"}]`,
		`[{"op":"copy","from":"/messages/0/swipes","path":"/messages/1/swipes"}]`,
		`[{"op":"bogus","path":"/metadata/x"}]`,
		`[{"op":"add","path":"/metadata/x"}]`,
		`[{"op":"add","path":"metadata/x","value":1}]`,
		`[{"op":"add","path":"/elsewhere","value":1}]`,
		`[null]`,
		`[{"op":"replace","path":"/messages/0/is_user","value":"yes"}]`,
		`[{"op":"replace","path":"/messages/0/mes","value":12}]`,
	} {
		f.Add(seed)
	}
	base := openRig(f, f.TempDir())
	f.Fuzz(func(t *testing.T, ops string) {
		if !json.Valid([]byte(ops)) {
			// Not an argument any transport could deliver; use the bytes
			// as a JSON pointer instead, which exercises path parsing.
			p, _ := json.Marshal(ops)
			ops = `[{"op":"replace","path":` + string(p) + `,"value":"x"}]`
		}
		r := base.with(t)
		chatID := fuzzChat(r)
		before := snapshotChat(r, chatID)
		out, err := r.app.Router.Invoke(t.Context(), "chat.patch", []byte(fmt.Sprintf(`[%q,%s]`, chatID, ops)))
		after := snapshotChat(r, chatID)
		if err != nil {
			if !allowedCode(apperr.CodeOf(err), "patch.invalid", "patch.test_failed", "chat.conflict", "validation.*", "message.*", "swipe.*") {
				t.Fatalf("chat.patch %s: unexpected error %v", ops, err)
			}
			if diff := before.diff(after); diff != "" {
				t.Fatalf("chat.patch %s failed (%v) but changed the chat: %s", ops, err, diff)
			}
			return
		}
		var res struct {
			Revision *int64 `json:"revision"`
		}
		if json.Unmarshal(out, &res) != nil || res.Revision == nil || *res.Revision != after.revision {
			t.Fatalf("chat.patch %s returned %s; chat is at revision %d", ops, out, after.revision)
		}
		checkRevisionStep(t, before, after)
		if problem := checkInvariants(after.st, after.count); problem != "" {
			t.Fatalf("after chat.patch %s: %s", ops, problem)
		}
	})
}

// FuzzUpdateMessagePatch throws arbitrary patch objects at
// chat.updateMessage (Spindle semantics) for one of the small chat's three
// messages: no panic; a failure has an expected code and changes nothing;
// a success keeps the invariants in both message shapes, touches no other
// message and bumps the revision by at most one.
func FuzzUpdateMessagePatch(f *testing.F) {
	for _, seed := range []struct {
		target uint8
		patch  string
	}{
		{1, `{"content":"new text"}`},
		{0, `{"content":""}`},
		{2, `{"swipes":["a","b","c"],"swipe_id":2}`},
		{2, `{"swipes":["a","b","c"]}`},
		{1, `{"swipes":["a"],"content":"wins"}`},
		{1, `{"swipe_id":1}`},
		{1, `{"swipe_id":0,"content":"slot zero"}`},
		{1, `{"swipes":[]}`},
		{1, `{"swipe_id":7}`},
		{1, `{"swipe_id":-1}`},
		{1, `{"swipe_id":1.5}`},
		{1, `{"swipe_id":"1"}`},
		{1, `{"swipes":["x"],"swipe_dates":[1,2]}`},
		{1, `{"swipe_dates":[1700000000,1700000100]}`},
		{1, `{"swipe_dates":[1e400,0]}`},
		{1, `{"swipe_dates":[-1e300,1e300]}`},
		{1, `{"swipe_dates":null}`},
		{2, `{"reasoning":{"text":"because","duration":1200}}`},
		{2, `{"reasoning":{"text":null,"duration":null}}`},
		{2, `{"reasoning":{"text":5}}`},
		{2, `{"reasoning":null}`},
		{0, `{"metadata":{"k":1}}`},
		{0, `{"metadata":null}`},
		{0, `{"metadata":[1]}`},
		{1, `{"content":"x","skipChunkRebuild":true}`},
		{1, `{"skipChunkRebuild":"yes"}`},
		{1, `{"bogus":1}`},
		{1, `{}`},
		{1, `[]`},
		{1, `null`},
		{1, `"text"`},
		{1, `{"content":null}`},
		{1, `{"swipes":[null]}`},
		{1, `{"__proto__":{"x":1}}`},
	} {
		f.Add(seed.target, seed.patch)
	}
	base := openRig(f, f.TempDir())
	f.Fuzz(func(t *testing.T, target uint8, patch string) {
		if !json.Valid([]byte(patch)) {
			return
		}
		r := base.with(t)
		chatID := fuzzChat(r)
		before := snapshotChat(r, chatID)
		index := int(target) % before.count
		var msgs []rigMessage
		r.decode(before.st, &msgs)
		id := msgs[index].ID
		_, err := r.app.Router.Invoke(t.Context(), "chat.updateMessage", []byte(fmt.Sprintf(`[%q,%q,%s]`, chatID, id, patch)))
		after := snapshotChat(r, chatID)
		if err != nil {
			if !allowedCode(apperr.CodeOf(err), "validation.*", "message.*", "swipe.*") {
				t.Fatalf("chat.updateMessage %s: unexpected error %v", patch, err)
			}
			if diff := before.diff(after); diff != "" {
				t.Fatalf("chat.updateMessage %s failed (%v) but changed the chat: %s", patch, err, diff)
			}
			return
		}
		checkRevisionStep(t, before, after)
		if problem := checkInvariants(after.st, after.count); problem != "" {
			t.Fatalf("after chat.updateMessage %s: %s", patch, problem)
		}
		if after.count != before.count {
			t.Fatalf("chat.updateMessage %s changed the message count from %d to %d", patch, before.count, after.count)
		}
		var old, cur []json.RawMessage
		r.decode(before.st, &old)
		r.decode(after.st, &cur)
		for i := range cur {
			if i != index && !bytes.Equal(old[i], cur[i]) {
				t.Fatalf("chat.updateMessage %s on message %d changed message %d", patch, index, i)
			}
		}
		r.decode(after.st, &msgs)
		if msgs[index].ID != id {
			t.Fatalf("chat.updateMessage %s changed the message id from %s to %s", patch, id, msgs[index].ID)
		}
		var views []struct {
			ID         string   `json:"id"`
			Content    string   `json:"content"`
			Swipes     []string `json:"swipes"`
			SwipeID    int      `json:"swipe_id"`
			SwipeDates []int64  `json:"swipe_dates"`
		}
		r.decode(r.call("chat.getMessages", chatID), &views)
		for i, v := range views {
			if v.SwipeID < 0 || v.SwipeID >= len(v.Swipes) || v.Content != v.Swipes[v.SwipeID] {
				t.Fatalf("getMessages[%d]: content %q is not swipes[%d] of %q", i, v.Content, v.SwipeID, v.Swipes)
			}
			if len(v.SwipeDates) != len(v.Swipes) {
				t.Fatalf("getMessages[%d]: %d swipe_dates for %d swipes", i, len(v.SwipeDates), len(v.Swipes))
			}
		}
	})
}

// fuzzChat creates the fuzz targets' small chat: the greeting (two
// swipes: first_mes and one alternate), a user message and an assistant
// message with two swipes each (the assistant's with per-swipe extra), and
// a little metadata.
func fuzzChat(r *rig) string {
	r.tb.Helper()
	chatID := r.newChat("fuzz")
	r.tb.Cleanup(func() { _, _ = r.try("chat.delete", chatID) })
	r.call("chat.addMessages", chatID, []map[string]any{
		{"name": "User", "is_user": true, "mes": "second draft", "swipes": []string{"first draft", "second draft"}, "swipe_id": 1},
		{"name": "Seraphina", "is_user": false, "mes": "reply A", "swipes": []string{"reply A", "reply B"}, "swipe_id": 0,
			"swipe_info": []map[string]any{
				{"send_date": "2025-03-01T18:00:00.000Z", "extra": map[string]any{"model": "gpt-4o", "token_count": 3}},
				{"send_date": "2025-03-01T18:01:00.000Z", "extra": map[string]any{"model": "gpt-4o-mini", "reasoning": "hm", "token_count": 4}},
			},
			"extra": map[string]any{"model": "gpt-4o", "token_count": 3}},
	})
	r.call("chat.saveMetadata", chatID, map[string]any{"note": "x", "nested": map[string]any{"list": []int{1, 2}}})
	return chatID
}

// chatSnapshot is everything a failed write must leave as it was.
type chatSnapshot struct {
	st, metadata json.RawMessage
	count        int
	revision     int64
}

func snapshotChat(r *rig, chatID string) chatSnapshot {
	r.tb.Helper()
	return chatSnapshot{
		st:       r.call("chat.getStMessages", chatID),
		metadata: r.call("chat.getMetadata", chatID),
		count:    r.count(chatID),
		revision: r.chat(chatID).Revision,
	}
}

// diff says how b differs from a, or "" when it does not.
func (a chatSnapshot) diff(b chatSnapshot) string {
	var out []string
	if a.revision != b.revision {
		out = append(out, fmt.Sprintf("revision %d -> %d", a.revision, b.revision))
	}
	if a.count != b.count {
		out = append(out, fmt.Sprintf("count %d -> %d", a.count, b.count))
	}
	if !bytes.Equal(a.metadata, b.metadata) {
		out = append(out, fmt.Sprintf("metadata %s -> %s", a.metadata, b.metadata))
	}
	if !bytes.Equal(a.st, b.st) {
		out = append(out, fmt.Sprintf("messages %s -> %s", a.st, b.st))
	}
	return strings.Join(out, "; ")
}

// checkRevisionStep: a successful write bumps the revision by exactly one
// when it changed anything, and leaves it when it changed nothing.
func checkRevisionStep(t *testing.T, before, after chatSnapshot) {
	t.Helper()
	switch step := after.revision - before.revision; step {
	case 0:
		if diff := before.diff(after); diff != "" {
			t.Fatalf("the chat changed without a new revision: %s", diff)
		}
	case 1:
	default:
		t.Fatalf("revision went from %d to %d in one call", before.revision, after.revision)
	}
}

// allowedCode matches code against exact codes and "prefix.*" patterns.
func allowedCode(code string, allowed ...string) bool {
	for _, a := range allowed {
		if code == a || strings.HasSuffix(a, ".*") && strings.HasPrefix(code, strings.TrimSuffix(a, "*")) {
			return true
		}
	}
	return false
}

// checkInvariants checks HOST-ABI §2 on every message of a getStMessages
// result: swipes.length >= 1, 0 <= swipe_id < swipes.length,
// mes === swipes[swipe_id], swipe_info.length === swipes.length, and a
// unique non-empty id. It returns "" when all hold.
func checkInvariants(st json.RawMessage, count int) string {
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(st, &msgs); err != nil {
		return fmt.Sprintf("getStMessages is not an array of objects: %v", err)
	}
	if len(msgs) != count {
		return fmt.Sprintf("getStMessages returned %d messages, chat.count says %d", len(msgs), count)
	}
	ids := map[string]bool{}
	for i, m := range msgs {
		var id, mes string
		var swipes []string
		var swipeID int
		var info []json.RawMessage
		switch {
		case json.Unmarshal(m["id"], &id) != nil || id == "" || ids[id]:
			return fmt.Sprintf("message %d: missing or duplicate id %s", i, m["id"])
		case json.Unmarshal(m["swipes"], &swipes) != nil || len(swipes) == 0:
			return fmt.Sprintf("message %d: swipes %s is not a non-empty string array", i, m["swipes"])
		case json.Unmarshal(m["swipe_id"], &swipeID) != nil || swipeID < 0 || swipeID >= len(swipes):
			return fmt.Sprintf("message %d: swipe_id %s out of range for %d swipes", i, m["swipe_id"], len(swipes))
		case json.Unmarshal(m["mes"], &mes) != nil || mes != swipes[swipeID]:
			return fmt.Sprintf("message %d: mes %s is not swipes[%d]", i, m["mes"], swipeID)
		case json.Unmarshal(m["swipe_info"], &info) != nil || len(info) != len(swipes):
			return fmt.Sprintf("message %d: swipe_info %s has not %d entries", i, m["swipe_info"], len(swipes))
		}
		ids[id] = true
	}
	return ""
}
