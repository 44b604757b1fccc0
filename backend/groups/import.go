package groups

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// CodeIDTaken: an imported group's id is another group's in Hearth.
const CodeIDTaken = "group.id_taken"

// ImportInput is a group file SillyTavern wrote (groups/<id>.json), to
// store as it is, read leniently as SillyTavern reads it.
type ImportInput struct {
	// Data is the file's object.
	Data jsonx.Object
	// Member maps an avatar key of the file (a card's file name in
	// SillyTavern's characters/) to the Hearth character's, false when the
	// library has no such character.
	Member func(avatar string) (string, bool)
	// Within, when set, runs inside the import's transaction once the
	// group is stored (the library's ledger row then commits with it).
	Within func(ctx context.Context, tx *store.Tx, g *Group) error
}

// Imported is what Import made of a group file.
type Imported struct {
	Group *Group
	// Pruned are the file's avatar keys (members, muted members,
	// overrides) that name no character of the library: dropped, as
	// SillyTavern drops a missing member when it opens the group.
	Pruned []string
}

// Import stores a SillyTavern group file as a new group, as SillyTavern's
// group list reads it: a numeric id, chat_id or chat id becomes a string,
// a file without chat_id gets chat_id = id and chats = [id], repeated chat
// ids are dropped, and avatars the library has no character for are
// pruned from members, disabled_members and hearth.memberOverrides (the
// rest mapped to Hearth's avatar keys). Unknown keys are kept; the
// computed keys SillyTavern's list adds are dropped; every known key is
// checked as Create checks it, and the whole object against
// MaxGroupBytes. Unlike Create, a group may keep no member (SillyTavern
// keeps such a group) and mute an avatar that is not a member.
//
// An id Hearth's groups have already is CodeIDTaken (details.groupId) and
// nothing is stored. GROUP_CREATED follows the commit.
func (s *Service) Import(ctx context.Context, in ImportInput) (*Imported, error) {
	data := in.Data.Clone()
	for _, k := range []string{"id", "chat_id"} {
		if err := numberToString(data, k); err != nil {
			return nil, err
		}
	}
	id, err := checkID(data["id"])
	if err != nil {
		return nil, err
	}
	if err := chatIDsToStrings(data); err != nil {
		return nil, err
	}
	if _, ok := data["chat_id"]; !ok {
		data.Set("chat_id", id)
		data.Set("chats", []string{id})
	}
	if err := checkFields(data); err != nil {
		return nil, err
	}
	g := &Group{Data: data}
	pruned := mapAvatars(g, in.Member)
	if raw, _ := g.Data.MarshalJSON(); len(raw) > 0 {
		if err := checkStored(raw, 0); err != nil {
			return nil, err
		}
	}
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM groups WHERE id = ?`, id).Scan(&n); err != nil {
			return fmt.Errorf("import group: %w", err)
		}
		if n > 0 {
			return apperr.New(CodeIDTaken, "a group with id %q is in Hearth already", id).
				WithDetails(map[string]any{"groupId": id})
		}
		raw, _ := g.Data.MarshalJSON()
		now := s.now().UnixMilli()
		if _, err := tx.ExecContext(ctx, `INSERT INTO groups (id, name, fav, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			id, g.Name(), g.fav(), string(raw), now, now); err != nil {
			return fmt.Errorf("import group: %w", err)
		}
		if err := index(ctx, tx, g); err != nil {
			return err
		}
		stored, err := getGroup(ctx, tx, id)
		if err != nil {
			return err
		}
		g = stored
		if in.Within != nil {
			if err := in.Within(ctx, tx, g); err != nil {
				return err
			}
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
	return &Imported{Group: g, Pruned: pruned}, nil
}

// numberToString makes data[key] a string when it is a JSON number, as
// SillyTavern's group list converts old numeric ids.
func numberToString(data jsonx.Object, key string) error {
	raw, ok := data[key]
	if !ok {
		return nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return nil
	}
	if _, err := strconv.ParseFloat(string(n), 64); err != nil {
		return invalidField(key, "must be a string or a number")
	}
	data.Set(key, string(n))
	return nil
}

// chatIDsToStrings makes chats a list of unique strings, numbers turned
// into strings, as SillyTavern's group list and validateGroup do.
func chatIDsToStrings(data jsonx.Object) error {
	raw, ok := data["chats"]
	if !ok || jsonx.IsNull(raw) {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return invalidField("chats", "must be a list of chat ids")
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		var s string
		if json.Unmarshal(item, &s) != nil {
			var n json.Number
			if json.Unmarshal(item, &n) != nil {
				return invalidField(fmt.Sprintf("chats[%d]", i), "must be a chat id")
			}
			s = string(n)
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	data.Set("chats", out)
	return nil
}

// mapAvatars maps every avatar key g names to Hearth's through member,
// dropping the ones it does not know, and returns those (each once).
func mapAvatars(g *Group, member func(string) (string, bool)) []string {
	var pruned []string
	drop := func(a string) {
		if !slices.Contains(pruned, a) {
			pruned = append(pruned, a)
		}
	}
	mapList := func(key string) {
		if _, ok := g.Data[key]; !ok {
			return
		}
		out := []string{}
		for _, a := range g.strs(key) {
			if to, ok := member(a); ok {
				if !slices.Contains(out, to) {
					out = append(out, to)
				}
			} else {
				drop(a)
			}
		}
		g.Data.Set(key, out)
	}
	mapList("members")
	mapList("disabled_members")
	h, err := jsonx.DecodeObject(g.Data["hearth"], "hearth")
	if err != nil {
		return pruned
	}
	overrides, err := jsonx.DecodeObject(h["memberOverrides"], "memberOverrides")
	if err != nil {
		return pruned
	}
	out := jsonx.Object{}
	for a, v := range overrides {
		if to, ok := member(a); ok {
			out[to] = v
		} else {
			drop(a)
		}
	}
	h["memberOverrides"], _ = out.MarshalJSON()
	g.Data["hearth"], _ = h.MarshalJSON()
	return pruned
}

// TakeChatMetadataIn removes from group id's file the metadata SillyTavern's
// legacy format kept there for chat chatID — past_metadata[chatID], and
// chat_metadata (left {}) when chatID is the group's chat_id — inside tx,
// the transaction that imported the chat with that metadata: it lives in
// the chat now, and one copy of it cannot go stale. past_metadata left
// empty is removed. The group's updated_at and events are left alone:
// nothing a window shows changed.
func (s *Service) TakeChatMetadataIn(ctx context.Context, tx *store.Tx, id, chatID string) error {
	g, err := getGroup(ctx, tx, id)
	if err != nil {
		return err
	}
	before, _ := g.Data.MarshalJSON()
	if past, err := jsonx.DecodeObject(g.Data["past_metadata"], "past_metadata"); err == nil && past != nil {
		if _, ok := past[chatID]; ok {
			delete(past, chatID)
			if len(past) == 0 {
				delete(g.Data, "past_metadata")
			} else {
				g.Data["past_metadata"], _ = past.MarshalJSON()
			}
		}
	}
	if g.str("chat_id") == chatID {
		if _, ok := g.Data["chat_metadata"]; ok {
			g.Data["chat_metadata"] = []byte("{}")
		}
	}
	after, _ := g.Data.MarshalJSON()
	if string(before) == string(after) {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE groups SET data = ? WHERE id = ?`, string(after), id); err != nil {
		return fmt.Errorf("update group: %w", err)
	}
	return nil
}

// LegacyChatMetadata is the metadata SillyTavern's legacy format keeps in
// group file data for chat chatID: chat_metadata for the group's current
// chat (chat_id), else past_metadata[chatID]; nil when it keeps none.
func LegacyChatMetadata(data jsonx.Object, chatID string) jsonx.Object {
	g := &Group{Data: data}
	if g.str("chat_id") == chatID {
		if meta, err := jsonx.DecodeObject(data["chat_metadata"], "chat_metadata"); err == nil && meta != nil {
			return meta
		}
		return nil
	}
	past, err := jsonx.DecodeObject(data["past_metadata"], "past_metadata")
	if err != nil || past == nil {
		return nil
	}
	meta, err := jsonx.DecodeObject(past[chatID], "past_metadata")
	if err != nil {
		return nil
	}
	return meta
}
