package host

import (
	"context"
	"encoding/json"

	"hearth/backend/chats"
	"hearth/backend/jsonx"
	"hearth/backend/worldinfo"
)

func registerWorldInfo(r *Router, svc *worldinfo.Service, chatSvc *chats.Service) {
	r.Register("worldinfo.list", func(ctx context.Context, a Args) (any, error) {
		return svc.List(ctx)
	})
	r.Register("worldinfo.get", func(ctx context.Context, a Args) (any, error) {
		name, err := a.String(0, "name")
		if err != nil {
			return nil, err
		}
		return svc.Get(ctx, name)
	})
	r.Register("worldinfo.save", func(ctx context.Context, a Args) (any, error) {
		name, err := a.String(0, "name")
		if err != nil {
			return nil, err
		}
		if !a.Has(1) {
			return nil, invalid("book is required")
		}
		book, err := worldinfo.ParseBook(a.Raw(1))
		if err != nil {
			return nil, err
		}
		return nil, svc.Save(ctx, name, book)
	})
	r.Register("worldinfo.delete", func(ctx context.Context, a Args) (any, error) {
		name, err := a.String(0, "name")
		if err != nil {
			return nil, err
		}
		return nil, svc.Delete(ctx, name)
	})
	r.Register("worldinfo.rename", func(ctx context.Context, a Args) (any, error) {
		from, err := a.String(0, "oldName")
		if err != nil {
			return nil, err
		}
		to, err := a.String(1, "newName")
		if err != nil {
			return nil, err
		}
		return nil, svc.Rename(ctx, from, to)
	})
	r.Register("worldinfo.importBook", func(ctx context.Context, a Args) (any, error) {
		var in worldinfo.ImportInput
		if err := a.Object(0, "file", &in); err != nil {
			return nil, err
		}
		return svc.Import(ctx, in)
	})
	r.Register("worldinfo.exportBook", func(ctx context.Context, a Args) (any, error) {
		name, err := a.String(0, "name")
		if err != nil {
			return nil, err
		}
		return svc.Export(ctx, name)
	})
	r.Register("worldinfo.bindToChat", func(ctx context.Context, a Args) (any, error) {
		chatID, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		// The book is required, null included: a call that forgot it must
		// not unbind the chat (as personas.lockToChat).
		if len(a) < 2 {
			return nil, invalid("name is required: a lorebook name, or null to unbind the chat")
		}
		var name *string
		if err := json.Unmarshal(a[1], &name); err != nil {
			return nil, invalid("name must be a lorebook name or null")
		}
		if name != nil && *name == "" {
			return nil, invalid(`name must be a lorebook name or null (to unbind the chat), not ""`)
		}
		with := jsonx.Object{"world_info": json.RawMessage("null")}
		if name != nil {
			if _, err := svc.Get(ctx, *name); err != nil {
				return nil, err
			}
			with.Set("world_info", *name)
		}
		rev, err := chatSvc.SaveMetadata(ctx, chatID, with, chats.WriteOptions{})
		if err != nil {
			return nil, err
		}
		return map[string]any{"chatId": chatID, "revision": rev}, nil
	})
	r.Register("worldinfo.lastActivation", func(ctx context.Context, a Args) (any, error) {
		chatID, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		return svc.LastActivation(ctx, chatID)
	})
	r.Register("worldinfo.getSettings", func(ctx context.Context, a Args) (any, error) {
		return svc.Config(ctx)
	})
	r.Register("worldinfo.saveSettings", func(ctx context.Context, a Args) (any, error) {
		if !a.Has(0) {
			return nil, invalid("settings are required")
		}
		return svc.SaveConfig(ctx, a.Raw(0))
	})
}
