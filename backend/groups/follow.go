package groups

import (
	"context"
	"fmt"
	"slices"

	"hearth/backend/store"
)

// DropMemberIn removes the character avatar from every group that names
// it — its members, its muted members and its overrides — inside tx, the
// character's delete (characters.Hooks.Deleting). Each group it changes
// sends GROUP_UPDATED once tx commits. A group left with no members stays
// (see the package doc).
//
// A character's rename needs nothing here: it changes the display name,
// never the avatar key a group holds.
func (s *Service) DropMemberIn(ctx context.Context, tx *store.Tx, avatar string) error {
	rows, err := tx.QueryContext(ctx, `SELECT group_id FROM group_members WHERE avatar = ? ORDER BY group_id`, avatar)
	if err != nil {
		return fmt.Errorf("find groups of %q: %w", avatar, err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("find groups of %q: %w", avatar, err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find groups of %q: %w", avatar, err)
	}
	for _, id := range ids {
		g, err := getGroup(ctx, tx, id)
		if err != nil {
			return err
		}
		before, _ := g.Data.MarshalJSON()
		members := g.Members()
		if slices.Contains(members, avatar) {
			g.Data.Set("members", slices.DeleteFunc(members, func(a string) bool { return a == avatar }))
		}
		rest := named(g)
		rest = slices.DeleteFunc(rest, func(a string) bool { return a == avatar })
		keepOnly(g, rest)
		keepOverridesOf(g, rest)
		after, _ := g.Data.MarshalJSON()
		if string(before) == string(after) {
			continue
		}
		g.UpdatedAt = s.now().UnixMilli()
		if err := s.write(ctx, tx, g, after); err != nil {
			return err
		}
	}
	return nil
}
