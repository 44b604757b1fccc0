package host

import (
	"context"

	"hearth/backend/generate"
	"hearth/backend/groups"
	"hearth/backend/jsonx"
)

func registerGroups(r *Router, svc *groups.Service) {
	r.Register("groups.list", func(ctx context.Context, a Args) (any, error) {
		return svc.List(ctx)
	})
	r.Register("groups.get", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "id")
		if err != nil {
			return nil, err
		}
		return svc.Get(ctx, id)
	})
	r.Register("groups.create", func(ctx context.Context, a Args) (any, error) {
		fields, err := objectArg(a, 0, "fields")
		if err != nil {
			return nil, err
		}
		return svc.Create(ctx, fields)
	})
	r.Register("groups.update", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "id")
		if err != nil {
			return nil, err
		}
		patch, err := objectArg(a, 1, "patch")
		if err != nil {
			return nil, err
		}
		return svc.Update(ctx, id, patch)
	})
	r.Register("groups.delete", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "id")
		if err != nil {
			return nil, err
		}
		var opts groups.DeleteOptions
		if err := a.OptObject(1, "options", &opts); err != nil {
			return nil, err
		}
		if a.Has(1) {
			if err := jsonx.RefuseNullBools(a[1], "options", "deleteChats"); err != nil {
				return nil, err
			}
		}
		return nil, svc.Delete(ctx, id, opts)
	})
}

// registerGroupAuto registers group chats' auto mode, which the generate
// service runs (generate/group_auto.go).
func registerGroupAuto(r *Router, gen *generate.Service) {
	r.Register("groups.setAutoMode", func(ctx context.Context, a Args) (any, error) {
		chatID, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		on, err := a.Bool(1, "on")
		if err != nil {
			return nil, err
		}
		return gen.SetAutoMode(ctx, chatID, on)
	})
	r.Register("groups.autoMode", func(ctx context.Context, a Args) (any, error) {
		chatID, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		return gen.AutoModeOf(ctx, chatID)
	})
}
