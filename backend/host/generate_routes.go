package host

import (
	"context"

	"hearth/backend/generate"
)

func registerGenerate(r *Router, svc *generate.Service) {
	options := func(a Args) (generate.Options, error) {
		var o generate.Options
		err := a.Object(0, "options", &o)
		return o, err
	}
	r.Register("generate.start", func(ctx context.Context, a Args) (any, error) {
		o, err := options(a)
		if err != nil {
			return nil, err
		}
		return svc.Start(ctx, o)
	})
	r.Register("generate.run", func(ctx context.Context, a Args) (any, error) {
		o, err := options(a)
		if err != nil {
			return nil, err
		}
		return svc.Run(ctx, o)
	})
	r.Register("generate.dryRun", func(ctx context.Context, a Args) (any, error) {
		o, err := options(a)
		if err != nil {
			return nil, err
		}
		return svc.DryRun(ctx, o)
	})
	r.Register("generate.stop", func(ctx context.Context, a Args) (any, error) {
		id := ""
		if a.Has(0) {
			var err error
			if id, err = a.String(0, "generationId"); err != nil {
				return nil, err
			}
		}
		return svc.Stop(id), nil
	})
	r.Register("generate.status", func(ctx context.Context, a Args) (any, error) {
		if a.Has(0) {
			id, err := a.String(0, "generationId")
			if err != nil {
				return nil, err
			}
			return svc.Record(ctx, id)
		}
		return svc.Current(), nil
	})
}
