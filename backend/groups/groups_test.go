package groups

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/characters"
	"hearth/backend/events"
	"hearth/backend/events/eventstest"
	"hearth/backend/jsonx"
	"hearth/backend/media"
	"hearth/backend/store"
)

// epoch is the rig's clock at start: every reading adds a millisecond.
const epoch = 1_700_000_000_000

// rig is the service over a real SQLite database in a temp dir, wired to
// the characters as backend/app wires it, with three characters (Alice,
// Bob, Carol) and the events published.
type rig struct {
	t     *testing.T
	svc   *Service
	chars *characters.Service
	db    *store.Store
	rec   *eventstest.Recorder
}

func newRig(t *testing.T) *rig {
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
	clock := time.UnixMilli(epoch)
	var mu sync.Mutex
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Millisecond)
		return clock
	}
	r := &rig{t: t, db: db}
	r.chars = characters.New(db, bus, files, nil, now, characters.WithHooks(characters.Hooks{
		Deleting: func(ctx context.Context, tx *store.Tx, avatar string) error {
			return r.svc.DropMemberIn(ctx, tx, avatar)
		},
	}))
	r.svc = New(db, bus, r.chars, now)
	for _, name := range []string{"Alice", "Bob", "Carol"} {
		if _, err := r.chars.Create(ctx, obj(t, map[string]any{"name": name}), characters.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		bus.Close()
		db.Close()
	})
	r.rec = eventstest.Record(t, bus)
	return r
}

func obj(t testing.TB, v map[string]any) jsonx.Object {
	t.Helper()
	o := jsonx.Object{}
	for k, x := range v {
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		o[k] = b
	}
	return o
}

// events returns the types published since the last call.
func (r *rig) events() []string {
	r.t.Helper()
	out := []string{}
	for _, e := range r.rec.Take(r.t) {
		out = append(out, e.Type)
	}
	return out
}

// snapshot is everything a group call could change: the groups as listed
// and the member index.
func (r *rig) snapshot() string {
	r.t.Helper()
	list, err := r.svc.List(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	b, _ := json.Marshal(list)
	rows, err := r.db.Reader().Query(`SELECT avatar, group_id FROM group_members ORDER BY avatar, group_id`)
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	var idx []string
	for rows.Next() {
		var a, g string
		if err := rows.Scan(&a, &g); err != nil {
			r.t.Fatal(err)
		}
		idx = append(idx, a+"@"+g)
	}
	return string(b) + strings.Join(idx, ",")
}

// decoded is g as a client gets it.
func decoded(t testing.TB, g *Group) map[string]any {
	t.Helper()
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func (r *rig) create(fields map[string]any) *Group {
	r.t.Helper()
	g, err := r.svc.Create(context.Background(), obj(r.t, fields))
	if err != nil {
		r.t.Fatal(err)
	}
	return g
}

func eq(t testing.TB, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s = %s, want %s", what, g, w)
	}
}

func TestCreateFillsSillyTavernDefaults(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.events()
	g := r.create(map[string]any{"members": []string{"Alice.png", "Bob.png"}, "custom": map[string]any{"kept": true}})
	if got := r.events(); !slices.Equal(got, []string{events.GroupCreated}) {
		t.Fatalf("events %v", got)
	}
	d := decoded(t, g)
	id, _ := d["id"].(string)
	if id == "" || id < fmt.Sprint(epoch) || len(id) != 13 {
		t.Fatalf("id %q is not the time in ms", id)
	}
	want := map[string]any{
		"id": id, "name": "Group: Alice, Bob", "members": []string{"Alice.png", "Bob.png"}, "avatar_url": "img/ai4.png",
		"allow_self_responses": false, "activation_strategy": 0, "generation_mode": 0, "disabled_members": []string{},
		"chat_metadata": map[string]any{}, "fav": false, "chat_id": id, "chats": []string{id}, "auto_mode_delay": 5,
		"generation_mode_join_prefix": "", "generation_mode_join_suffix": "", "custom": map[string]any{"kept": true},
		"date_added": d["date_added"], "date_last_chat": 0, "chat_size": 0, "updatedAt": d["date_added"],
	}
	eq(t, "group", d, want)
	got, err := r.svc.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "get", decoded(t, got), want)
}

func TestCreateID(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	a := r.create(map[string]any{"id": "my-group", "members": []string{"Alice.png"}, "name": "A"})
	if a.ID() != "my-group" {
		t.Fatalf("given free id: %q", a.ID())
	}
	b := r.create(map[string]any{"id": "my-group", "members": []string{"Alice.png"}, "name": "B"})
	if b.ID() == "my-group" || len(b.ID()) != 13 {
		t.Fatalf("given taken id: %q, want the time", b.ID())
	}
	// The next group made in the same millisecond gets the next number.
	c := r.create(map[string]any{"id": b.ID(), "members": []string{"Alice.png"}})
	if c.ID() == b.ID() {
		t.Fatalf("a taken time id was reused: %q", c.ID())
	}
	list, err := r.svc.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, g := range list {
		names = append(names, g.Name())
	}
	if !slices.Equal(names, []string{"A", "B", "Group: Alice"}) {
		t.Errorf("list by name: %q", names)
	}
}

// TestBadInputChangesNothing: every refused create, update and delete
// leaves the groups and the index as they were and sends nothing.
func TestBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	many := make([]string, MaxMembers+1)
	for i := range many {
		many[i] = fmt.Sprintf("c%d.png", i)
	}
	deep := any("x")
	for range 70 {
		deep = []any{deep}
	}
	type call func(r *rig, id string) error
	create := func(fields map[string]any) call {
		return func(r *rig, _ string) error {
			_, err := r.svc.Create(context.Background(), obj(r.t, fields))
			return err
		}
	}
	update := func(patch map[string]any) call {
		return func(r *rig, id string) error {
			_, err := r.svc.Update(context.Background(), id, obj(r.t, patch))
			return err
		}
	}
	m := func(extra map[string]any) map[string]any {
		out := map[string]any{"members": []string{"Alice.png", "Bob.png"}}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name string
		call call
		code string
		// field, when set, is the error's details.field; avatar its details.avatar.
		field, avatar string
	}{
		{"create without members", create(map[string]any{"name": "x"}), apperr.CodeInvalidArgument, "members", ""},
		{"create with no members", create(map[string]any{"members": []string{}}), apperr.CodeInvalidArgument, "members", ""},
		{"create with members not a list", create(map[string]any{"members": "Alice.png"}), apperr.CodeInvalidArgument, "", ""},
		{"create with a null member", create(map[string]any{"members": []any{"Alice.png", nil}}), apperr.CodeInvalidArgument, "members[1]", ""},
		{"create with an unknown member", create(m(map[string]any{"members": []string{"Alice.png", "Zed.png"}})), apperr.CodeCharacterNotFound, "members[1]", "Zed.png"},
		{"create with a repeated member", create(map[string]any{"members": []string{"Alice.png", "Alice.png"}}), apperr.CodeInvalidArgument, "members[1]", ""},
		{"create with too many members", create(map[string]any{"members": many}), apperr.CodeTooMany, "members", ""},
		{"create with strategy 4", create(m(map[string]any{"activation_strategy": 4})), apperr.CodeInvalidArgument, "activation_strategy", ""},
		{"create with strategy -1", create(m(map[string]any{"activation_strategy": -1})), apperr.CodeInvalidArgument, "activation_strategy", ""},
		{"create with strategy 1.5", create(m(map[string]any{"activation_strategy": 1.5})), apperr.CodeInvalidArgument, "activation_strategy", ""},
		{"create with strategy \"1\"", create(m(map[string]any{"activation_strategy": "1"})), apperr.CodeInvalidArgument, "activation_strategy", ""},
		{"create with strategy null", create(m(map[string]any{"activation_strategy": nil})), apperr.CodeInvalidArgument, "activation_strategy", ""},
		{"create with mode 3", create(m(map[string]any{"generation_mode": 3})), apperr.CodeInvalidArgument, "generation_mode", ""},
		{"create with delay 0", create(m(map[string]any{"auto_mode_delay": 0})), apperr.CodeInvalidArgument, "auto_mode_delay", ""},
		{"create with delay 1000", create(m(map[string]any{"auto_mode_delay": 1000})), apperr.CodeInvalidArgument, "auto_mode_delay", ""},
		{"create with self-responses \"yes\"", create(m(map[string]any{"allow_self_responses": "yes"})), apperr.CodeInvalidArgument, "allow_self_responses", ""},
		{"create with fav null", create(m(map[string]any{"fav": nil})), apperr.CodeInvalidArgument, "fav", ""},
		{"create with a prefix number", create(m(map[string]any{"generation_mode_join_prefix": 1})), apperr.CodeInvalidArgument, "generation_mode_join_prefix", ""},
		{"create with chats not strings", create(m(map[string]any{"chats": []any{1}})), apperr.CodeInvalidArgument, "chats[0]", ""},
		{"create with chat_metadata a list", create(m(map[string]any{"chat_metadata": []any{}})), apperr.CodeInvalidArgument, "chat_metadata", ""},
		{"create with a muted non-member", create(m(map[string]any{"disabled_members": []string{"Carol.png"}})), apperr.CodeInvalidArgument, "disabled_members[0]", "Carol.png"},
		{"create with an override of a non-member", create(m(map[string]any{"hearth": map[string]any{"memberOverrides": map[string]any{"Carol.png": map[string]any{"presetId": "p"}}}})),
			apperr.CodeInvalidArgument, "hearth.memberOverrides.Carol.png", "Carol.png"},
		{"create with an override of an unknown key", create(m(map[string]any{"hearth": map[string]any{"memberOverrides": map[string]any{"Alice.png": map[string]any{"model": "x"}}}})),
			apperr.CodeInvalidArgument, "hearth.memberOverrides.Alice.png", ""},
		{"create with an override id a number", create(m(map[string]any{"hearth": map[string]any{"memberOverrides": map[string]any{"Alice.png": map[string]any{"connectionId": 7}}}})),
			apperr.CodeInvalidArgument, "hearth.memberOverrides.Alice.png.connectionId", ""},
		{"create with an empty override id", create(m(map[string]any{"hearth": map[string]any{"memberOverrides": map[string]any{"Alice.png": map[string]any{"presetId": ""}}}})),
			apperr.CodeInvalidArgument, "hearth.memberOverrides.Alice.png.presetId", ""},
		{"create with hearth a string", create(m(map[string]any{"hearth": "x"})), apperr.CodeInvalidArgument, "hearth", ""},
		{"create with an id that is a path", create(m(map[string]any{"id": "../groups"})), apperr.CodeInvalidArgument, "id", ""},
		{"create with a numeric id", create(m(map[string]any{"id": 12})), apperr.CodeInvalidArgument, "id", ""},
		{"create with a long name", create(m(map[string]any{"name": strings.Repeat("n", MaxNameBytes+1)})), apperr.CodeInvalidArgument, "name", ""},
		{"create too deep", create(m(map[string]any{"deep": deep})), apperr.CodeInvalidArgument, "", ""},
		{"create too large", create(m(map[string]any{"big": strings.Repeat("b", MaxGroupBytes)})), apperr.CodeInvalidArgument, "", ""},

		{"update an unknown group", func(r *rig, _ string) error {
			_, err := r.svc.Update(context.Background(), "nope", obj(r.t, map[string]any{"fav": true}))
			return err
		}, apperr.CodeGroupNotFound, "", ""},
		{"update to no members", update(map[string]any{"members": []string{}}), apperr.CodeInvalidArgument, "members", ""},
		{"update to an unknown member", update(map[string]any{"members": []string{"Zed.png"}}), apperr.CodeCharacterNotFound, "members[0]", "Zed.png"},
		{"update muting a non-member", update(map[string]any{"disabled_members": []string{"Carol.png"}}), apperr.CodeInvalidArgument, "disabled_members[0]", "Carol.png"},
		{"update members leaving an explicit mute behind", update(map[string]any{"members": []string{"Alice.png"}, "disabled_members": []string{"Bob.png"}}),
			apperr.CodeInvalidArgument, "disabled_members[0]", "Bob.png"},
		{"update to an empty name", update(map[string]any{"name": "  "}), apperr.CodeInvalidArgument, "name", ""},
		{"update the id", update(map[string]any{"id": "other"}), apperr.CodeInvalidArgument, "id", ""},
		{"update strategy out of range", update(map[string]any{"activation_strategy": 9}), apperr.CodeInvalidArgument, "activation_strategy", ""},
		{"update growing too deep", update(map[string]any{"deep": deep}), apperr.CodeInvalidArgument, "", ""},
		{"delete an unknown group", func(r *rig, _ string) error {
			return r.svc.Delete(context.Background(), "nope", DeleteOptions{DeleteChats: true})
		}, apperr.CodeGroupNotFound, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			g := r.create(map[string]any{"members": []string{"Alice.png", "Bob.png"}})
			r.events()
			before := r.snapshot()
			err := c.call(r, g.ID())
			if apperr.CodeOf(err) != c.code {
				t.Fatalf("error %v, want %s", err, c.code)
			}
			details := apperr.As(err).Details
			if c.field != "" && details["field"] != c.field {
				t.Errorf("details.field = %v, want %s", details["field"], c.field)
			}
			if c.avatar != "" && details["avatar"] != c.avatar {
				t.Errorf("details.avatar = %v, want %s", details["avatar"], c.avatar)
			}
			if evs := r.events(); len(evs) != 0 {
				t.Errorf("a failed call sent %v", evs)
			}
			if after := r.snapshot(); after != before {
				t.Errorf("a failed call changed something:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name  string
		patch map[string]any
		// want are keys of the group after; events the types sent.
		want   map[string]any
		events []string
	}{
		{"merges shallowly and keeps unknown keys", map[string]any{"activation_strategy": 3, "fav": true, "extra": []int{1}, "custom": map[string]any{"b": 2}},
			map[string]any{"activation_strategy": 3, "fav": true, "extra": []int{1}, "custom": map[string]any{"b": 2}, "name": "G", "auto_mode_delay": 5},
			[]string{events.GroupUpdated}},
		{"a whole group written back (SillyTavern's editor) with its computed keys", map[string]any{"id": "g1", "name": "G", "date_added": 1, "chat_size": 99, "date_last_chat": 5, "updatedAt": 3, "create_date": "x"},
			map[string]any{"name": "G"}, nil},
		{"removed members leave the mutes and overrides", map[string]any{"members": []string{"Carol.png", "Alice.png"}},
			map[string]any{"members": []string{"Carol.png", "Alice.png"}, "disabled_members": []string{"Alice.png"}, "hearth": map[string]any{"memberOverrides": map[string]any{}, "note": "kept"}},
			[]string{events.GroupUpdated}},
		{"explicit mutes and overrides with the members", map[string]any{"members": []string{"Bob.png"}, "disabled_members": []string{"Bob.png"}, "hearth": map[string]any{"memberOverrides": map[string]any{"Bob.png": map[string]any{"connectionId": "c"}}}},
			map[string]any{"members": []string{"Bob.png"}, "disabled_members": []string{"Bob.png"}, "hearth": map[string]any{"memberOverrides": map[string]any{"Bob.png": map[string]any{"connectionId": "c"}}}},
			[]string{events.GroupUpdated}},
		{"a patch that changes nothing sends nothing", map[string]any{"name": "G", "fav": false}, map[string]any{"name": "G"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			g := r.create(map[string]any{"id": "g1", "name": "G", "members": []string{"Alice.png", "Bob.png"}, "disabled_members": []string{"Alice.png", "Bob.png"},
				"custom": map[string]any{"a": 1}, "hearth": map[string]any{"note": "kept", "memberOverrides": map[string]any{"Bob.png": map[string]any{"presetId": "p"}}}})
			r.events()
			out, err := r.svc.Update(ctx, g.ID(), obj(t, c.patch))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.events(); !slices.Equal(got, c.events) {
				t.Errorf("events %v, want %v", got, c.events)
			}
			d := decoded(t, out)
			for k, v := range c.want {
				eq(t, k, d[k], v)
			}
			stored, err := r.svc.Get(ctx, g.ID())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(decoded(t, stored), d) {
				t.Errorf("update answered %v, get %v", d, decoded(t, stored))
			}
			if c.events == nil && out.UpdatedAt != g.UpdatedAt {
				t.Errorf("a no-op moved updatedAt from %d to %d", g.UpdatedAt, out.UpdatedAt)
			}
		})
	}
}

// addGroupChat stores a chat of group id as chat.create will (group chats
// are made by a later step): the row, one message and a chat-state entry.
func (r *rig) addGroupChat(id, fileName string) string {
	r.t.Helper()
	uuid := "chat-" + fileName
	err := r.db.InTx(context.Background(), func(tx *store.Tx) error {
		res, err := tx.Exec(`INSERT INTO chats (uuid, owner_kind, owner, file_name, created_at, updated_at, change_seq, revision, bytes)
			VALUES (?, 'group', ?, ?, 1, 2, 1, 4, 10)`, uuid, id, fileName)
		if err != nil {
			return err
		}
		chat, _ := res.LastInsertId()
		_, err = tx.Exec(`INSERT INTO messages (chat_id, idx, uuid) VALUES (?, 0, ?)`, chat, uuid+"-m0")
		return err
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return uuid
}

func (r *rig) count(query string, args ...any) int {
	r.t.Helper()
	var n int
	if err := r.db.Reader().QueryRow(query, args...).Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

func TestDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("keeps its chats unless asked", func(t *testing.T) {
		t.Parallel()
		r := newRig(t)
		g := r.create(map[string]any{"members": []string{"Alice.png"}})
		r.addGroupChat(g.ID(), "one")
		got, err := r.svc.Get(ctx, g.ID())
		if err != nil {
			t.Fatal(err)
		}
		if got.ChatBytes != 10 || got.LastChatAt != 2 {
			t.Errorf("chat_size %d, date_last_chat %d; want 10, 2", got.ChatBytes, got.LastChatAt)
		}
		r.events()
		if err := r.svc.Delete(ctx, g.ID(), DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := r.events(); !slices.Equal(got, []string{events.GroupDeleted}) {
			t.Errorf("events %v", got)
		}
		if _, err := r.svc.Get(ctx, g.ID()); apperr.CodeOf(err) != apperr.CodeGroupNotFound {
			t.Errorf("get after delete: %v", err)
		}
		if n := r.count(`SELECT COUNT(*) FROM chats WHERE owner = ?`, g.ID()); n != 1 {
			t.Errorf("%d chats left, want 1", n)
		}
		if n := r.count(`SELECT COUNT(*) FROM group_members`); n != 0 {
			t.Errorf("%d index rows left", n)
		}
	})
	t.Run("with its chats", func(t *testing.T) {
		t.Parallel()
		r := newRig(t)
		g := r.create(map[string]any{"members": []string{"Alice.png"}})
		other := r.create(map[string]any{"members": []string{"Bob.png"}})
		one, two := r.addGroupChat(g.ID(), "one"), r.addGroupChat(g.ID(), "two")
		r.addGroupChat(other.ID(), "three")
		r.events()
		if err := r.svc.Delete(ctx, g.ID(), DeleteOptions{DeleteChats: true}); err != nil {
			t.Fatal(err)
		}
		evs := r.rec.Take(t)
		var got []string
		for _, e := range evs {
			switch p := e.Payload.(type) {
			case *events.ChatDeletedPayload:
				got = append(got, e.Type+":"+p.ChatID+":"+p.FileName+":"+*p.GroupID)
			case *events.GroupChatPayload:
				got = append(got, fmt.Sprintf("%s:%s:%s:%s:%d", e.Type, p.ChatID, p.FileName, p.GroupID, p.Revision))
			default:
				got = append(got, e.Type)
			}
		}
		want := []string{
			"chat_deleted:" + one + ":one:" + g.ID(), "group_chat_deleted:" + one + ":one:" + g.ID() + ":4",
			"chat_deleted:" + two + ":two:" + g.ID(), "group_chat_deleted:" + two + ":two:" + g.ID() + ":4",
			events.GroupDeleted,
		}
		if !slices.Equal(got, want) {
			t.Errorf("events\n%q\nwant\n%q", got, want)
		}
		if n := r.count(`SELECT COUNT(*) FROM chats`); n != 1 {
			t.Errorf("%d chats left, want the other group's", n)
		}
		if n := r.count(`SELECT COUNT(*) FROM messages`); n != 1 {
			t.Errorf("%d messages left, want the other chat's", n)
		}
	})
}

// TestMembersFollowCharacterDelete: a deleted character leaves every
// group that named it, in the delete's transaction, each changed group
// sending GROUP_UPDATED after CHARACTER_DELETED; a group left with no
// members stays.
func TestMembersFollowCharacterDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRig(t)
	both := r.create(map[string]any{"id": "both", "members": []string{"Alice.png", "Bob.png"}, "disabled_members": []string{"Bob.png"},
		"hearth": map[string]any{"memberOverrides": map[string]any{"Bob.png": map[string]any{"presetId": "p"}, "Alice.png": map[string]any{"presetId": "q"}}}})
	solo := r.create(map[string]any{"id": "solo", "members": []string{"Bob.png"}})
	untouched := r.create(map[string]any{"id": "untouched", "members": []string{"Alice.png", "Carol.png"}})
	r.events()
	if err := r.chars.Delete(ctx, "Nobody.png", characters.DeleteOptions{}); apperr.CodeOf(err) != apperr.CodeCharacterNotFound {
		t.Fatalf("delete of no character: %v", err)
	}
	if err := r.chars.Delete(ctx, "Bob.png", characters.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	evs := r.rec.Take(t)
	var got []string
	for _, e := range evs {
		s := e.Type
		if p, ok := e.Payload.(*events.GroupPayload); ok {
			s += ":" + p.GroupID
		}
		got = append(got, s)
	}
	if want := []string{events.CharacterDeleted, events.GroupUpdated + ":both", events.GroupUpdated + ":solo"}; !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	after := func(g *Group) map[string]any {
		got, err := r.svc.Get(ctx, g.ID())
		if err != nil {
			t.Fatal(err)
		}
		return decoded(t, got)
	}
	b := after(both)
	eq(t, "both.members", b["members"], []string{"Alice.png"})
	eq(t, "both.disabled_members", b["disabled_members"], []string{})
	eq(t, "both.hearth", b["hearth"], map[string]any{"memberOverrides": map[string]any{"Alice.png": map[string]any{"presetId": "q"}}})
	eq(t, "solo.members", after(solo)["members"], []string{})
	if u := after(untouched); u["updatedAt"] != decoded(t, untouched)["updatedAt"] {
		t.Errorf("a group without the character changed: %v", u)
	}
	if n := r.count(`SELECT COUNT(*) FROM group_members WHERE avatar = 'Bob.png'`); n != 0 {
		t.Errorf("Bob.png is still indexed in %d groups", n)
	}
}

// TestUpdateHoldsOnlyWhatItSets: a group whose muted list names an avatar
// that is no longer a member (as a SillyTavern file may) takes updates of
// its other keys; one that sets the muted list is held to the members.
func TestUpdateHoldsOnlyWhatItSets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRig(t)
	g := r.create(map[string]any{"id": "g", "members": []string{"Alice.png", "Bob.png"}})
	g.Data.Set("disabled_members", []string{"Gone.png"})
	data, _ := g.Data.MarshalJSON()
	if err := r.db.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.Exec(`UPDATE groups SET data = ? WHERE id = 'g'`, string(data))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Update(ctx, "g", obj(t, map[string]any{"fav": true, "hearth": map[string]any{"memberOverrides": map[string]any{"Bob.png": map[string]any{"presetId": "p"}}}})); err != nil {
		t.Fatalf("an update of other keys: %v", err)
	}
	_, err := r.svc.Update(ctx, "g", obj(t, map[string]any{"disabled_members": []string{"Gone.png", "Bob.png"}}))
	if e := apperr.As(err); e == nil || e.Details["avatar"] != "Gone.png" {
		t.Fatalf("setting a muted non-member: %v", err)
	}
	out, err := r.svc.Update(ctx, "g", obj(t, map[string]any{"members": []string{"Bob.png"}}))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "muted after members", out.DisabledMembers(), []string{})
}

// TestCreateFindsItsChatsAgain: a group deleted without its chats and
// created again with its id answers with those chats' figures.
func TestCreateFindsItsChatsAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRig(t)
	r.create(map[string]any{"id": "g", "members": []string{"Alice.png"}})
	r.addGroupChat("g", "kept")
	if err := r.svc.Delete(ctx, "g", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	again := r.create(map[string]any{"id": "g", "members": []string{"Bob.png"}})
	if again.ChatBytes != 10 || again.LastChatAt != 2 {
		t.Errorf("chat_size %d, date_last_chat %d; want 10, 2", again.ChatBytes, again.LastChatAt)
	}
}
