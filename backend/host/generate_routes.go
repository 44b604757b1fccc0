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
	// The starting window's answer to PROMPT_HOOK_REQUEST: what its
	// CHAT_COMPLETION_PROMPT_READY listeners and its extension frames'
	// hooks left of the prompt (null: they left it alone), and { warnings }
	// for the frames it skipped. Not on window.__HEARTH__.api: the window's
	// prompt hook calls it, and no extension frame can.
	r.Register("generate.promptHookReply", func(ctx context.Context, a Args) (any, error) {
		token, err := a.String(0, "token")
		if err != nil {
			return nil, err
		}
		var opts generate.HookReplyOptions
		if err := a.OptOptions(2, &opts); err != nil {
			return nil, err
		}
		return svc.PromptHookReply(token, a.Raw(1), opts)
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
