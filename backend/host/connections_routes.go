package host

import (
	"context"
	"encoding/json"

	"hearth/backend/connections"
)

func registerConnections(r *Router, svc *connections.Service) {
	r.Register("connections.save", func(ctx context.Context, a Args) (any, error) {
		var in connections.Input
		if err := a.Object(0, "connection", &in); err != nil {
			return nil, err
		}
		return svc.Save(ctx, in)
	})
	r.Register("connections.probe", func(ctx context.Context, a Args) (any, error) {
		var in connections.Input
		if err := a.Object(0, "settings", &in); err != nil {
			return nil, err
		}
		return svc.Probe(ctx, in)
	})
	r.Register("connections.list", func(ctx context.Context, a Args) (any, error) {
		return svc.List(ctx)
	})
	withID := func(fn func(ctx context.Context, id string) (any, error)) Handler {
		return func(ctx context.Context, a Args) (any, error) {
			id, err := a.String(0, "id")
			if err != nil {
				return nil, err
			}
			return fn(ctx, id)
		}
	}
	r.Register("connections.get", withID(func(ctx context.Context, id string) (any, error) { return svc.Get(ctx, id) }))
	r.Register("connections.delete", withID(func(ctx context.Context, id string) (any, error) { return nil, svc.Delete(ctx, id) }))
	r.Register("connections.test", withID(func(ctx context.Context, id string) (any, error) { return svc.Test(ctx, id) }))
	r.Register("connections.models", withID(func(ctx context.Context, id string) (any, error) { return svc.Models(ctx, id) }))
	r.Register("connections.select", func(ctx context.Context, a Args) (any, error) {
		var id *string // null (or nothing): no active connection
		if a.Has(0) {
			if err := json.Unmarshal(a.Raw(0), &id); err != nil {
				return nil, invalid("id must be a string or null")
			}
		}
		return svc.Select(ctx, id)
	})
	r.Register("connections.active", func(ctx context.Context, a Args) (any, error) {
		return svc.Active(ctx)
	})
}
