package chats

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/events"
	"hearth/backend/events/eventstest"
	"hearth/backend/groups"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/store"
)

// groupRig is a chat service wired to the groups as backend/app wires
// them, with a group "g" of four members: Ann Lee (a greeting and an
// alternate one), Bob (muted), Cid (no greeting) and Dee (only an
// alternate greeting). Greetings are picked by pick (the last one unless
// a test changes it).
type groupRig struct {
	t      *testing.T
	s      *Service
	groups *groups.Service
	chars  *characters.Service
	rec    *eventstest.Recorder
	avatar map[string]string
}

func newGroupRig(t *testing.T) *groupRig {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "hearth.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := media.New(filepath.Join(dir, "media"))
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	t.Cleanup(func() { bus.Close(); db.Close() })
	clock := time.Date(2026, 3, 4, 5, 6, 7, 890e6, time.Local)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	r := &groupRig{t: t, avatar: map[string]string{}}
	r.chars = characters.New(db, bus, files, nil, now)
	r.groups = groups.New(db, bus, r.chars, now)
	r.s = New(db, bus, r.chars, now, Hooks{Groups: r.groups, UserName: func(context.Context, string) string { return "Kai" }})
	r.s.pick = func(n int) int { return n - 1 }
	for _, c := range []map[string]any{
		{"name": "Ann Lee", "first_mes": "Hello {{user}}, I am {{char}}.", "alternate_greetings": []string{"  <BOT> waves at {{user}}.  "}},
		{"name": "Bob", "first_mes": "Bob here."},
		{"name": "Cid"},
		{"name": "Dee", "alternate_greetings": []string{"", "{{char}} nods."}},
	} {
		card, err := r.chars.Create(ctx, jsonObj(t, c), characters.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r.avatar[c["name"].(string)] = card.Avatar
	}
	a := r.avatar
	if _, err := r.groups.Create(ctx, jsonObj(t, map[string]any{
		"id": "g", "name": "Trio", "members": []string{a["Ann Lee"], a["Bob"], a["Cid"], a["Dee"]}, "disabled_members": []string{a["Bob"]},
	})); err != nil {
		t.Fatal(err)
	}
	r.rec = eventstest.Record(t, bus)
	return r
}

func jsonObj(t testing.TB, v map[string]any) jsonx.Object {
	t.Helper()
	b, _ := json.Marshal(v)
	o, err := jsonx.DecodeObject(b, "test")
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// group reads group g's chats and chat_id.
func (r *groupRig) group() (chats []string, chatID string) {
	r.t.Helper()
	g, err := r.groups.Get(context.Background(), "g")
	if err != nil {
		r.t.Fatal(err)
	}
	_ = json.Unmarshal(g.Data["chats"], &chats)
	_ = json.Unmarshal(g.Data["chat_id"], &chatID)
	return chats, chatID
}

// lines exports chatID and decodes each JSONL line.
func (r *groupRig) lines(chatID string) (header string, msgs []map[string]any) {
	r.t.Helper()
	f, err := r.s.ExportJsonl(context.Background(), chatID)
	if err != nil {
		r.t.Fatal(err)
	}
	all := strings.Split(f.Text, "\n")
	for _, l := range all[1:] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			r.t.Fatalf("line %q: %v", l, err)
		}
		msgs = append(msgs, m)
	}
	return all[0], msgs
}

func types(evs []events.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func TestGroupChatCreateSeedsEveryMembersGreeting(t *testing.T) {
	r := newGroupRig(t)
	ctx := context.Background()
	sum, err := r.s.Create(ctx, Owner{GroupID: "g"}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// SillyTavern's humanizedDateTime of the creation, no prefix.
	if sum.FileName != humanizedDateTime(time.UnixMilli(sum.CreatedAt)) || !strings.HasPrefix(sum.FileName, "2026-03-04@05h06m") || sum.GroupID == nil || *sum.GroupID != "g" || sum.Avatar != nil || sum.MessageCount != 3 {
		t.Fatalf("summary %+v", sum)
	}
	_, msgs := r.lines(sum.ChatID)
	a := r.avatar
	want := []struct{ name, mes, avatar, force string }{
		{"Ann Lee", "Ann Lee waves at Kai.", a["Ann Lee"], "/thumbnail?type=avatar&file=Ann%20Lee.png"},
		{"Bob", "Bob here.", a["Bob"], "/thumbnail?type=avatar&file=Bob.png"},
		{"Dee", "Dee nods.", a["Dee"], "/thumbnail?type=avatar&file=Dee.png"},
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d: %v", len(msgs), len(want), msgs)
	}
	for i, w := range want {
		m := msgs[i]
		if m["name"] != w.name || m["mes"] != w.mes || m["original_avatar"] != w.avatar || m["force_avatar"] != w.force || m["is_user"] != false {
			t.Errorf("message %d = %v, want %+v", i, m, w)
		}
		if sw, _ := m["swipes"].([]any); len(sw) > 1 {
			t.Errorf("message %d has swipes %v: a group greeting is one text", i, sw)
		}
	}
	if chats, chatID := r.group(); chatID != sum.FileName || !reflect.DeepEqual(chats, []string{"g", sum.FileName}) {
		t.Fatalf("group chats %v, chat_id %q", chats, chatID)
	}
	evs := r.rec.Take(t)
	if got := types(evs); !reflect.DeepEqual(got, []string{events.ChatCreated, events.GroupUpdated, events.GroupChatCreated}) {
		t.Fatalf("events %v", got)
	}
	if p := evs[2].Payload.(*events.GroupChatPayload); p.ChatID != sum.ChatID || p.GroupID != "g" || p.FileName != sum.FileName || p.Revision != 0 {
		t.Fatalf("GROUP_CHAT_CREATED %+v", p)
	}
	var g struct {
		ChatID string `json:"chat_id"`
	}
	b, _ := json.Marshal(evs[1].Payload.(*events.GroupPayload).Group)
	if json.Unmarshal(b, &g); g.ChatID != sum.FileName {
		t.Fatalf("GROUP_UPDATED carries chat_id %q", g.ChatID)
	}
}

// TestGroupGreetingPicksAmongNonEmptyGreetings holds the pick to
// SillyTavern's: first_mes and the alternate greetings, empty ones left
// out.
func TestGroupGreetingPicksAmongNonEmptyGreetings(t *testing.T) {
	r := newGroupRig(t)
	var offered []int
	r.s.pick = func(n int) int { offered = append(offered, n); return 0 }
	sum, err := r.s.Create(context.Background(), Owner{GroupID: "g"}, CreateOptions{FileName: "first"})
	if err != nil {
		t.Fatal(err)
	}
	// Ann Lee: two; Bob: one; Cid: none (not asked); Dee: one non-empty.
	if !reflect.DeepEqual(offered, []int{2, 1, 1}) {
		t.Fatalf("pick offered %v", offered)
	}
	_, msgs := r.lines(sum.ChatID)
	if msgs[0]["mes"] != "Hello Kai, I am Ann Lee." || msgs[2]["mes"] != "Dee nods." {
		t.Fatalf("messages %v", msgs)
	}
}

func TestGroupChatCreateBadInputChangesNothing(t *testing.T) {
	r := newGroupRig(t)
	ctx := context.Background()
	if _, err := r.s.Create(ctx, Owner{GroupID: "g"}, CreateOptions{FileName: "taken"}); err != nil {
		t.Fatal(err)
	}
	r.rec.Take(t)
	before, beforeID := r.group()
	for _, tc := range []struct {
		owner Owner
		opts  CreateOptions
		code  string
	}{
		{Owner{GroupID: "nope"}, CreateOptions{}, apperr.CodeGroupNotFound},
		{Owner{GroupID: "g"}, CreateOptions{FileName: "taken"}, apperr.CodeChatNameTaken},
		{Owner{GroupID: "g"}, CreateOptions{FileName: "a/b"}, apperr.CodeInvalidArgument},
		{Owner{GroupID: "g", Avatar: "Bob.png"}, CreateOptions{}, apperr.CodeInvalidArgument},
	} {
		_, err := r.s.Create(ctx, tc.owner, tc.opts)
		if apperr.CodeOf(err) != tc.code {
			t.Errorf("%+v: %v, want %s", tc, err, tc.code)
		}
	}
	list, err := r.s.List(ctx, Owner{GroupID: "g"})
	if err != nil || len(list) != 1 {
		t.Fatalf("chats %v, %v", list, err)
	}
	if after, afterID := r.group(); !reflect.DeepEqual(before, after) || beforeID != afterID {
		t.Fatalf("group changed: %v %q → %v %q", before, beforeID, after, afterID)
	}
	if evs := r.rec.Take(t); len(evs) != 0 {
		t.Fatalf("events %v", types(evs))
	}
}

func TestGroupChatDeleteLeavesTheGroupsList(t *testing.T) {
	r := newGroupRig(t)
	ctx := context.Background()
	var ids []string
	for _, name := range []string{"one", "two", "three"} {
		sum, err := r.s.Create(ctx, Owner{GroupID: "g"}, CreateOptions{FileName: name})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sum.ChatID)
	}
	r.rec.Take(t)
	// Deleting the current chat moves chat_id to the last one listed.
	if err := r.s.Delete(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	if chats, chatID := r.group(); chatID != "two" || !reflect.DeepEqual(chats, []string{"g", "one", "two"}) {
		t.Fatalf("after deleting the current chat: %v, chat_id %q", chats, chatID)
	}
	evs := r.rec.Take(t)
	if got := types(evs); !reflect.DeepEqual(got, []string{events.ChatDeleted, events.GroupUpdated, events.GroupChatDeleted}) {
		t.Fatalf("events %v", got)
	}
	if p := evs[2].Payload.(*events.GroupChatPayload); p.ChatID != ids[2] || p.GroupID != "g" || p.FileName != "three" {
		t.Fatalf("GROUP_CHAT_DELETED %+v", p)
	}
	// Another chat leaves chat_id where it is.
	if err := r.s.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if chats, chatID := r.group(); chatID != "two" || !reflect.DeepEqual(chats, []string{"g", "two"}) {
		t.Fatalf("after deleting another chat: %v, chat_id %q", chats, chatID)
	}
	r.rec.Take(t)
	// With the group gone (its chats kept), a delete still tells
	// GROUP_CHAT_DELETED and touches no group.
	if err := r.groups.Delete(ctx, "g", groups.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.rec.Take(t)
	if err := r.s.Delete(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	if got := types(r.rec.Take(t)); !reflect.DeepEqual(got, []string{events.ChatDeleted, events.GroupChatDeleted}) {
		t.Fatalf("events with the group gone %v", got)
	}
}

func TestGroupChatRenameAndBranchFollowInTheGroup(t *testing.T) {
	r := newGroupRig(t)
	ctx := context.Background()
	sum, err := r.s.Create(ctx, Owner{GroupID: "g"}, CreateOptions{FileName: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.s.Rename(ctx, sum.ChatID, "renamed"); err != nil {
		t.Fatal(err)
	}
	if chats, chatID := r.group(); chatID != "renamed" || !reflect.DeepEqual(chats, []string{"g", "renamed"}) {
		t.Fatalf("after rename: %v, chat_id %q", chats, chatID)
	}
	br, err := r.s.CreateBranch(ctx, sum.ChatID, 1, BranchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if br.GroupID == nil || *br.GroupID != "g" {
		t.Fatalf("branch %+v", br)
	}
	if chats, chatID := r.group(); chatID != "renamed" || !reflect.DeepEqual(chats, []string{"g", "renamed", br.FileName}) {
		t.Fatalf("after branch: %v, chat_id %q", chats, chatID)
	}
	id, err := r.s.Resolve(ctx, Ref{GroupID: "g", FileName: br.FileName + ".jsonl"})
	if err != nil || id != br.ChatID {
		t.Fatalf("resolve: %q, %v", id, err)
	}
	list, err := r.s.List(ctx, Owner{GroupID: "g"})
	if err != nil || len(list) != 2 || list[0].ChatID == list[1].ChatID || (list[0].ChatID != br.ChatID && list[1].ChatID != br.ChatID) {
		t.Fatalf("list %+v, %v", list, err)
	}
}

// TestGroupChatJsonlHeader holds a group chat's export to SillyTavern's
// group chat file: its saveGroupChat header, then the messages.
func TestGroupChatJsonlHeader(t *testing.T) {
	r := newGroupRig(t)
	ctx := context.Background()
	sum, err := r.s.Create(ctx, Owner{GroupID: "g"}, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	header, msgs := r.lines(sum.ChatID)
	if header != `{"chat_metadata":{},"user_name":"unused","character_name":"unused"}` {
		t.Fatalf("header %s", header)
	}
	if _, err := r.s.SaveMetadata(ctx, sum.ChatID, jsonObj(t, map[string]any{"note": "x"}), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if header, _ = r.lines(sum.ChatID); header != `{"chat_metadata":{"note":"x"},"user_name":"unused","character_name":"unused"}` {
		t.Fatalf("header after metadata %s", header)
	}
	if len(msgs) != 3 {
		t.Fatalf("messages %v", msgs)
	}
}
