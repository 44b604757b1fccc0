package groups

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/state"
	"hearth/backend/store"
)

// defaults are what SillyTavern's editor and server store for a new group
// (its createGroup and /api/groups/create); the name, chat_id and chats
// depend on the group and are filled in by create.
func defaults() jsonx.Object {
	o := jsonx.Object{}
	o.Set("avatar_url", defaultAvatarURL)
	o.Set("allow_self_responses", false)
	o.Set("activation_strategy", Natural)
	o.Set("generation_mode", Swap)
	o.Set("disabled_members", []string{})
	o["chat_metadata"] = []byte("{}")
	o.Set("fav", false)
	o.Set("auto_mode_delay", DefaultAutoModeDelay)
	o.Set("generation_mode_join_prefix", "")
	o.Set("generation_mode_join_suffix", "")
	return o
}

// Create adds a group from fields over SillyTavern's defaults. members
// must name at least one character. The id is fields' id when given and
// free, else SillyTavern's: the time in ms as a string (the next free
// number if taken). A blank or missing name becomes "Group: " and the
// members' names, as SillyTavern's editor names it; chat_id defaults to
// the id and chats to [chat_id], as its server does.
func (s *Service) Create(ctx context.Context, fields jsonx.Object) (*Group, error) {
	fields = fields.Clone()
	if err := checkFields(fields); err != nil {
		return nil, err
	}
	var want string
	if raw, ok := fields["id"]; ok {
		id, err := checkID(raw)
		if err != nil {
			return nil, err
		}
		want = id
	}
	if _, ok := fields["members"]; !ok {
		return nil, invalidField("members", "is required: a group needs at least one character")
	}
	g := &Group{Data: defaults()}
	for k, v := range fields {
		g.Data[k] = v
	}
	if err := checkConsistent(g, all); err != nil {
		return nil, err
	}
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		names, err := s.memberNames(ctx, tx, g.Members())
		if err != nil {
			return err
		}
		id, err := s.freeID(ctx, tx, want)
		if err != nil {
			return err
		}
		g.Data.Set("id", id)
		if strings.TrimSpace(g.Name()) == "" {
			g.Data.Set("name", "Group: "+strings.Join(names, ", "))
		}
		if _, ok := fields["chat_id"]; !ok {
			g.Data.Set("chat_id", id)
		}
		if _, ok := fields["chats"]; !ok {
			g.Data.Set("chats", []string{g.str("chat_id")})
		}
		data, _ := g.Data.MarshalJSON()
		if err := checkStored(data, 0); err != nil {
			return err
		}
		now := s.now().UnixMilli()
		g.CreatedAt, g.UpdatedAt = now, now
		if _, err := tx.ExecContext(ctx, `INSERT INTO groups (id, name, fav, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			id, g.Name(), g.fav(), string(data), now, now); err != nil {
			return fmt.Errorf("insert group: %w", err)
		}
		if err := index(ctx, tx, g); err != nil {
			return err
		}
		// Read back for the chats' figures: chats a deleted group of the
		// same id left are its chats again.
		if g, err = getGroup(ctx, tx, id); err != nil {
			return err
		}
		created := g
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.GroupCreated, Payload: &events.GroupPayload{GroupID: id, Group: created}})
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// memberNames returns the display names of avatars, in order, read in tx;
// character.not_found (details.avatar) for one that names no character.
func (s *Service) memberNames(ctx context.Context, tx *store.Tx, avatars []string) ([]string, error) {
	names := make([]string, len(avatars))
	for i, a := range avatars {
		name, ok, err := s.chars.NameIn(ctx, tx, a)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, apperr.New(apperr.CodeCharacterNotFound, "members[%d] names no character: no avatar %q", i, a).
				WithDetails(map[string]any{"avatar": a, "field": fmt.Sprintf("members[%d]", i)})
		}
		names[i] = name
	}
	return names, nil
}

// freeID returns want if it is given and no group has it, else the first
// number from now in ms up that no group has, as a string.
func (s *Service) freeID(ctx context.Context, tx *store.Tx, want string) (string, error) {
	taken := func(id string) (bool, error) {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM groups WHERE id = ?`, id).Scan(&n); err != nil {
			return false, fmt.Errorf("pick group id: %w", err)
		}
		return n > 0, nil
	}
	if want != "" {
		t, err := taken(want)
		if err != nil || !t {
			return want, err
		}
	}
	for ms := s.now().UnixMilli(); ; ms++ {
		id := strconv.FormatInt(ms, 10)
		t, err := taken(id)
		if err != nil || !t {
			return id, err
		}
	}
}

// Update shallow-merges patch into the group, as SillyTavern's editor
// writes a group back whole (`hearth` too is replaced as a whole). A patch
// that sets members without disabled_members or hearth drops the removed
// members from those as well; one that sets them holds them to the
// members. A patch that changes nothing writes nothing and sends nothing.
func (s *Service) Update(ctx context.Context, id string, patch jsonx.Object) (*Group, error) {
	patch = patch.Clone()
	if err := checkFields(patch); err != nil {
		return nil, err
	}
	if raw, ok := patch["id"]; ok {
		if got, err := jsonx.String(raw, "id"); err != nil || got != id {
			return nil, invalidField("id", "cannot change: a group keeps its id")
		}
		delete(patch, "id")
	}
	if raw, ok := patch["name"]; ok {
		if n, _ := jsonx.String(raw, "name"); strings.TrimSpace(n) == "" {
			return nil, invalidField("name", "must not be empty")
		}
	}
	var out *Group
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		g, err := getGroup(ctx, tx, id)
		if err != nil {
			return err
		}
		before, _ := g.Data.MarshalJSON()
		members, setsMembers := patch["members"]
		_, setsMuted := patch["disabled_members"]
		_, setsHearth := patch["hearth"]
		for k, v := range patch {
			g.Data[k] = v
		}
		if setsMembers {
			var list []string
			_ = json.Unmarshal(members, &list)
			if !setsMuted {
				keepOnly(g, list)
			}
			if !setsHearth {
				keepOverridesOf(g, list)
			}
			if _, err := s.memberNames(ctx, tx, list); err != nil {
				return err
			}
		}
		if err := checkConsistent(g, touched{members: setsMembers, muted: setsMuted, overrides: setsHearth}); err != nil {
			return err
		}
		after, _ := g.Data.MarshalJSON()
		if err := checkStored(after, jsonx.Depth(before)); err != nil {
			return err
		}
		out = g
		if string(before) == string(after) {
			return nil
		}
		g.UpdatedAt = s.now().UnixMilli()
		return s.write(ctx, tx, g, after)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// write stores g (whose encoding is data) over its row, re-indexes its
// avatars and sends GROUP_UPDATED once tx commits.
func (s *Service) write(ctx context.Context, tx *store.Tx, g *Group, data []byte) error {
	id := g.ID()
	if _, err := tx.ExecContext(ctx, `UPDATE groups SET name = ?, fav = ?, data = ?, updated_at = ? WHERE id = ?`,
		g.Name(), g.fav(), string(data), g.UpdatedAt, id); err != nil {
		return fmt.Errorf("update group: %w", err)
	}
	if err := index(ctx, tx, g); err != nil {
		return err
	}
	tx.AfterCommit(func() {
		s.bus.Publish(events.Event{Type: events.GroupUpdated, Payload: &events.GroupPayload{GroupID: id, Group: g}})
	})
	return nil
}

// keepOnly drops from g's muted members those not in members.
func keepOnly(g *Group, members []string) {
	raw, ok := g.Data["disabled_members"]
	if !ok {
		return
	}
	var muted []string
	if json.Unmarshal(raw, &muted) != nil {
		return
	}
	kept := slices.DeleteFunc(slices.Clone(muted), func(a string) bool { return !slices.Contains(members, a) })
	if len(kept) != len(muted) {
		g.Data.Set("disabled_members", kept)
	}
}

// keepOverridesOf drops from g's hearth.memberOverrides the avatars not in
// members, keeping every other key of the block as it is.
func keepOverridesOf(g *Group, members []string) {
	h, err := jsonx.DecodeObject(g.Data["hearth"], "hearth")
	if err != nil {
		return
	}
	overrides, err := jsonx.DecodeObject(h["memberOverrides"], "memberOverrides")
	if err != nil {
		return
	}
	changed := false
	for a := range overrides {
		if !slices.Contains(members, a) {
			delete(overrides, a)
			changed = true
		}
	}
	if !changed {
		return
	}
	h["memberOverrides"], _ = overrides.MarshalJSON()
	g.Data["hearth"], _ = h.MarshalJSON()
}

// index rewrites g's rows of group_members: every avatar key it names as
// a member, a muted member or an override.
func index(ctx context.Context, tx *store.Tx, g *Group) error {
	id := g.ID()
	if _, err := tx.ExecContext(ctx, `DELETE FROM group_members WHERE group_id = ?`, id); err != nil {
		return fmt.Errorf("index group members: %w", err)
	}
	for _, a := range named(g) {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO group_members (avatar, group_id) VALUES (?, ?)`, a, id); err != nil {
			return fmt.Errorf("index group members: %w", err)
		}
	}
	return nil
}

// named lists every avatar key g names: members, muted members and
// overrides (repeats possible).
func named(g *Group) []string {
	out := append(g.Members(), g.DisabledMembers()...)
	for a := range g.MemberOverrides() {
		out = append(out, a)
	}
	return out
}

func (g *Group) fav() bool {
	var b bool
	_ = json.Unmarshal(g.Data["fav"], &b)
	return b
}

// DeleteOptions choose whether the group's chats go too.
type DeleteOptions struct {
	DeleteChats bool `json:"deleteChats"`
}

// Delete removes a group. Its chats stay (found again by a group of the
// same id, an import of the same library) unless DeleteChats; each chat
// deleted sends CHAT_DELETED and GROUP_CHAT_DELETED, and the group
// GROUP_DELETED after them. SillyTavern always deletes a group's chat
// files with it: Hearth's window asks for deleteChats.
func (s *Service) Delete(ctx context.Context, id string, opts DeleteOptions) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM groups WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("delete group: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(id)
		}
		if opts.DeleteChats {
			if err := s.deleteChats(ctx, tx, id); err != nil {
				return err
			}
		}
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.GroupDeleted, Payload: &events.GroupDeletedPayload{GroupID: id, DeleteChats: opts.DeleteChats}})
		})
		return nil
	})
}

// deleteChats deletes every chat of group id in tx, as chat.delete deletes
// one (messages, state and floor notes go with the row).
func (s *Service) deleteChats(ctx context.Context, tx *store.Tx, id string) error {
	type chat struct {
		rowID    int64
		uuid     string
		fileName string
		revision int64
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, uuid, file_name, revision FROM chats WHERE owner_kind = 'group' AND owner = ? ORDER BY id`, id)
	if err != nil {
		return fmt.Errorf("list group chats: %w", err)
	}
	var chats []chat
	for rows.Next() {
		var c chat
		if err := rows.Scan(&c.rowID, &c.uuid, &c.fileName, &c.revision); err != nil {
			rows.Close()
			return fmt.Errorf("list group chats: %w", err)
		}
		chats = append(chats, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list group chats: %w", err)
	}
	for _, c := range chats {
		if _, err := tx.ExecContext(ctx, `DELETE FROM chats WHERE id = ?`, c.rowID); err != nil {
			return fmt.Errorf("delete group chat: %w", err)
		}
		if err := state.Forget(ctx, tx, c.rowID); err != nil {
			return err
		}
		rev := events.ChatRevision{ChatID: c.uuid, Revision: c.revision}
		owner := id
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.ChatDeleted, Payload: &events.ChatDeletedPayload{ChatRevision: rev, FileName: c.fileName, GroupID: &owner}})
			s.bus.Publish(events.Event{Type: events.GroupChatDeleted, Payload: &events.GroupChatPayload{ChatRevision: rev, GroupID: id, FileName: c.fileName}})
		})
	}
	return nil
}
