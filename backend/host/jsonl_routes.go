package host

import (
	"context"

	"hearth/backend/chats"
)

// registerJsonl adds SillyTavern JSONL import and export (HOST-ABI §3.8).
func registerJsonl(r *Router, svc *chats.Service) {
	r.Register("chat.exportJsonl", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		// Encoded by the service line by line: a whole chat as one string.
		return svc.ExportJsonlJSON(ctx, id)
	})
	r.Register("chat.importJsonl", func(ctx context.Context, a Args) (any, error) {
		var owner chats.Owner
		if err := a.Object(0, "owner", &owner); err != nil {
			return nil, err
		}
		var file chats.JsonlImport
		if err := a.Object(1, "file", &file); err != nil {
			return nil, err
		}
		return svc.ImportJsonl(ctx, owner, file)
	})
}
