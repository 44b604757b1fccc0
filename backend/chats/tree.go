package chats

import (
	"context"
	"fmt"
)

// TreeNode is a chat with the checkpoints and branches made from it.
type TreeNode struct {
	Chat     Summary     `json:"chat"`
	Children []*TreeNode `json:"children"`
}

// maxTreeChats bounds the chats one tree call reads.
const maxTreeChats = 20000

// Tree returns the family of chatID rooted at its oldest ancestor that
// still exists (a deleted parent leaves its branches as roots of their own
// subtree, with parentChatId kept). Branches are always chats of the same
// owner, so the owner's chats are all it reads.
func (s *Service) Tree(ctx context.Context, chatID string) (*TreeNode, error) {
	var root *TreeNode
	err := s.readSnapshot(ctx, chatID, func(q queryer, c *chatRow) error {
		rows, err := q.QueryContext(ctx, `SELECT `+prefixCols("c.", chatColumns)+`, `+lastMesSQL+`
			FROM chats c WHERE c.owner_kind = ? AND c.owner = ? ORDER BY c.created_at, c.id LIMIT ?`, c.ownerKind, c.owner, maxTreeChats)
		if err != nil {
			return fmt.Errorf("chat tree: %w", err)
		}
		defer rows.Close()
		nodes := map[string]*TreeNode{}
		parent := map[string]string{}
		var order []string
		for rows.Next() {
			var last string
			r, err := scanChat(func(dst ...any) error { return rows.Scan(append(dst, &last)...) })
			if err != nil {
				return fmt.Errorf("chat tree: %w", err)
			}
			nodes[r.uuid] = &TreeNode{Chat: summarize(r, last), Children: []*TreeNode{}}
			if r.parentUUID.Valid {
				parent[r.uuid] = r.parentUUID.String
			}
			order = append(order, r.uuid)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("chat tree: %w", err)
		}
		kids := map[string][]string{}
		for _, id := range order { // oldest first
			if p := parent[id]; p != "" && nodes[p] != nil {
				kids[p] = append(kids[p], id)
			}
		}
		// Climb to the oldest ancestor present; a cycle (hostile data) stops the climb.
		top := c.uuid
		seen := map[string]bool{top: true}
		for {
			p, ok := parent[top]
			if !ok || nodes[p] == nil || seen[p] {
				break
			}
			seen[p] = true
			top = p
		}
		root = nodes[top]
		if root == nil {
			return fmt.Errorf("chat tree: chat %s not among its owner's %d oldest chats", chatID, maxTreeChats)
		}
		// Attach children breadth-first, each chat once, so the result is a
		// tree whatever the stored links say.
		placed := map[string]bool{top: true}
		queue := []string{top}
		for len(queue) > 0 {
			id := queue[0]
			queue = queue[1:]
			for _, k := range kids[id] {
				if placed[k] {
					continue
				}
				placed[k] = true
				nodes[id].Children = append(nodes[id].Children, nodes[k])
				queue = append(queue, k)
			}
		}
		return nil
	})
	return root, err
}
