package host

import (
	"context"
	"encoding/json"

	"hearth/backend/presets"
)

func registerPresets(r *Router, svc *presets.Service) {
	r.Register("presets.list", func(ctx context.Context, a Args) (any, error) {
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
	r.Register("presets.get", withID(func(ctx context.Context, id string) (any, error) { return svc.Get(ctx, id) }))
	r.Register("presets.delete", withID(func(ctx context.Context, id string) (any, error) { return nil, svc.Delete(ctx, id) }))
	r.Register("presets.export", withID(func(ctx context.Context, id string) (any, error) { return svc.Export(ctx, id) }))
	r.Register("presets.save", func(ctx context.Context, a Args) (any, error) {
		if !a.Has(0) {
			return nil, invalid("preset is required")
		}
		p, err := presets.Decode(a.Raw(0))
		if err != nil {
			return nil, err
		}
		return svc.Save(ctx, p)
	})
	r.Register("presets.import", func(ctx context.Context, a Args) (any, error) {
		var in struct {
			FileName *string         `json:"fileName"`
			JSON     json.RawMessage `json:"json"`
		}
		if err := a.Object(0, "import", &in); err != nil {
			return nil, err
		}
		if isNull(in.JSON) {
			return nil, invalid("json is required: the preset file's text or its object")
		}
		name := ""
		if in.FileName != nil {
			name = *in.FileName
		}
		return svc.Import(ctx, name, in.JSON)
	})
	r.Register("presets.select", func(ctx context.Context, a Args) (any, error) {
		var id *string // null (or nothing): the built-in default
		if a.Has(0) {
			if err := json.Unmarshal(a.Raw(0), &id); err != nil {
				return nil, invalid("id must be a string or null")
			}
		}
		return svc.Select(ctx, id)
	})
	r.Register("presets.active", func(ctx context.Context, a Args) (any, error) {
		return svc.Active(ctx)
	})
}
