package groups

import (
	"context"
	"fmt"
	"slices"

	"hearth/backend/apperr"
	"hearth/backend/store"
)

// A group lists its chats by file name in `chats` and names the one it
// opens in `chat_id`, as SillyTavern's groups/<id>.json does. The chats
// service keeps both in step with its group chats through the methods
// here, each inside the chat's own transaction, so a chat and its group's
// list land or fail together (chats.Hooks.Groups, wired by backend/app).

// MembersIn returns the members' avatar keys of group id, in speaking
// order, read inside tx; group.not_found when there is no such group.
func (s *Service) MembersIn(ctx context.Context, tx *store.Tx, id string) ([]string, error) {
	g, err := getGroup(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	return g.Members(), nil
}

// AddChatIn appends fileName to group id's chats unless listed and, when
// open, makes it the group's current chat (chat_id), as SillyTavern's
// createNewGroupChat does (its saveGroupBookmarkChat lists a checkpoint or
// branch without opening it). GROUP_UPDATED follows once tx commits;
// group.not_found when there is no such group.
func (s *Service) AddChatIn(ctx context.Context, tx *store.Tx, id, fileName string, open bool) error {
	g, err := getGroup(ctx, tx, id)
	if !open && isNotFound(err) {
		return nil // a branch of a chat whose group was deleted keeping it
	}
	if err != nil {
		return err
	}
	list := g.strs("chats")
	if !slices.Contains(list, fileName) {
		list = append(list, fileName)
	}
	g.Data.Set("chats", list)
	if open {
		g.Data.Set("chat_id", fileName)
	}
	return s.rewrite(ctx, tx, g)
}

// RemoveChatIn drops fileName from group id's chats. When it was the
// current chat, chat_id moves to the last one left in chats (SillyTavern's
// deleteGroupChat opens that one), or "" when none is left (SillyTavern
// then starts a new chat: Hearth's window does, with chat.create). A
// group that is gone (deleted keeping its chats) or does not list the chat
// changes nothing.
func (s *Service) RemoveChatIn(ctx context.Context, tx *store.Tx, id, fileName string) error {
	g, err := getGroup(ctx, tx, id)
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	list := slices.DeleteFunc(g.strs("chats"), func(c string) bool { return c == fileName })
	g.Data.Set("chats", list)
	if g.str("chat_id") == fileName {
		next := ""
		if len(list) > 0 {
			next = list[len(list)-1]
		}
		g.Data.Set("chat_id", next)
	}
	return s.rewrite(ctx, tx, g)
}

// RenameChatIn follows a group chat's rename: from leaves chats and to is
// appended, and chat_id follows when it named from, as SillyTavern's
// renameGroupChat does. A group that is gone changes nothing.
func (s *Service) RenameChatIn(ctx context.Context, tx *store.Tx, id, from, to string) error {
	g, err := getGroup(ctx, tx, id)
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	list := g.strs("chats")
	if i := slices.Index(list, from); i >= 0 {
		list = append(slices.Delete(list, i, i+1), to)
		g.Data.Set("chats", list)
	}
	if g.str("chat_id") == from {
		g.Data.Set("chat_id", to)
	}
	return s.rewrite(ctx, tx, g)
}

// rewrite stores g when its object changed since it was read (so a chat
// its group does not list sends no GROUP_UPDATED).
func (s *Service) rewrite(ctx context.Context, tx *store.Tx, g *Group) error {
	var stored string
	if err := tx.QueryRowContext(ctx, `SELECT data FROM groups WHERE id = ?`, g.ID()).Scan(&stored); err != nil {
		return fmt.Errorf("read group %q: %w", g.ID(), err)
	}
	after, _ := g.Data.MarshalJSON()
	if string(after) == stored {
		return nil
	}
	g.UpdatedAt = s.now().UnixMilli()
	return s.write(ctx, tx, g, after)
}

func isNotFound(err error) bool {
	return err != nil && apperr.CodeOf(err) == apperr.CodeGroupNotFound
}
