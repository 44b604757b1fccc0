package host

import (
	"context"

	"hearth/backend/characters"
	"hearth/backend/jsonx"
)

func registerCharacters(r *Router, svc *characters.Service) {
	r.Register("characters.list", func(ctx context.Context, a Args) (any, error) {
		return svc.List(ctx)
	})
	r.Register("characters.get", func(ctx context.Context, a Args) (any, error) {
		avatar, err := a.String(0, "avatar")
		if err != nil {
			return nil, err
		}
		return svc.Get(ctx, avatar)
	})
	r.Register("characters.create", func(ctx context.Context, a Args) (any, error) {
		fields, err := objectArg(a, 0, "fields")
		if err != nil {
			return nil, err
		}
		var opts characters.CreateOptions
		if err := a.OptObject(1, "options", &opts); err != nil {
			return nil, err
		}
		return svc.Create(ctx, fields, opts)
	})
	r.Register("characters.update", func(ctx context.Context, a Args) (any, error) {
		avatar, err := a.String(0, "avatar")
		if err != nil {
			return nil, err
		}
		patch, err := objectArg(a, 1, "patch")
		if err != nil {
			return nil, err
		}
		return svc.Update(ctx, avatar, patch)
	})
	r.Register("characters.importCard", func(ctx context.Context, a Args) (any, error) {
		var in characters.ImportInput
		if err := a.Object(0, "file", &in); err != nil {
			return nil, err
		}
		return svc.ImportCard(ctx, in)
	})
	r.Register("characters.exportCard", func(ctx context.Context, a Args) (any, error) {
		avatar, err := a.String(0, "avatar")
		if err != nil {
			return nil, err
		}
		var opts characters.ExportOptions
		if err := a.OptObject(1, "options", &opts); err != nil {
			return nil, err
		}
		return svc.ExportCard(ctx, avatar, opts)
	})
	r.Register("characters.delete", func(ctx context.Context, a Args) (any, error) {
		avatar, err := a.String(0, "avatar")
		if err != nil {
			return nil, err
		}
		var opts characters.DeleteOptions
		if err := a.OptObject(1, "options", &opts); err != nil {
			return nil, err
		}
		return nil, svc.Delete(ctx, avatar, opts)
	})
}

// objectArg returns argument i as a raw JSON object.
func objectArg(a Args, i int, name string) (jsonx.Object, error) {
	if !a.Has(i) {
		return nil, invalid("%s is required", name)
	}
	return jsonx.DecodeObject(a[i], name)
}
