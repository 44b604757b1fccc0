package host

import (
	"context"

	"hearth/backend/chats"
)

// registerUndo adds chat.undo and chat.redo: an editor's undo history over
// the chat's change journal, shared by every window of the chat; and
// chat.undoStatus, what they would act on next, for a window's Undo and
// Redo to say before they are pressed.
func registerUndo(r *Router, svc *chats.Service) {
	step := func(do func(context.Context, string, chats.WriteOptions) (*chats.StepResult, error)) Handler {
		return func(ctx context.Context, a Args) (any, error) {
			id, err := a.String(0, "chatId")
			if err != nil {
				return nil, err
			}
			opts, err := writeOpts(a, 1)
			if err != nil {
				return nil, err
			}
			return do(ctx, id, opts)
		}
	}
	r.Register("chat.undo", step(svc.Undo))
	r.Register("chat.redo", step(svc.Redo))
	r.Register("chat.undoStatus", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		return svc.UndoStatus(ctx, id)
	})
}
