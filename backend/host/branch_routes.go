package host

import (
	"context"

	"hearth/backend/chats"
)

// registerBranches adds checkpoints, branches and the chat tree (HOST-ABI §3.7).
func registerBranches(r *Router, svc *chats.Service) {
	r.Register("chat.createCheckpoint", func(ctx context.Context, a Args) (any, error) {
		id, index, err := chatIndex(a)
		if err != nil {
			return nil, err
		}
		var opts chats.CheckpointOptions
		if err := a.OptObject(2, "options", &opts); err != nil {
			return nil, err
		}
		return svc.CreateCheckpoint(ctx, id, index, opts)
	})
	r.Register("chat.createBranch", func(ctx context.Context, a Args) (any, error) {
		id, index, err := chatIndex(a)
		if err != nil {
			return nil, err
		}
		var opts chats.BranchOptions
		if err := a.OptOptions(2, &opts, "swipeId"); err != nil {
			return nil, err
		}
		return svc.CreateBranch(ctx, id, index, opts)
	})
	r.Register("chat.tree", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		return svc.Tree(ctx, id)
	})
}

func chatIndex(a Args) (string, int, error) {
	id, err := a.String(0, "chatId")
	if err != nil {
		return "", 0, err
	}
	index, err := a.Int(1, "index")
	return id, index, err
}
