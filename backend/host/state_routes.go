package host

import (
	"context"
	"encoding/json"

	"hearth/backend/apperr"
	"hearth/backend/state"
)

// chatNS reads the (chatId, namespace) pair every chat-state call starts with.
func chatNS(a Args) (string, string, error) {
	id, err := a.String(0, "chatId")
	if err != nil {
		return "", "", err
	}
	ns, err := a.String(1, "namespace")
	return id, ns, err
}

func registerState(r *Router, svc *state.Service) {
	r.Register("state.getChatState", func(ctx context.Context, a Args) (any, error) {
		id, ns, err := chatNS(a)
		if err != nil {
			return nil, err
		}
		return svc.Get(ctx, id, ns)
	})
	r.Register("state.getChatStateBatch", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		if !a.IsArray(1) {
			return nil, apperr.Invalid("namespaces must be an array of strings")
		}
		var nss []string
		if err := json.Unmarshal(a[1], &nss); err != nil {
			return nil, apperr.Invalid("namespaces must be an array of strings")
		}
		return svc.GetBatch(ctx, id, nss)
	})
	r.Register("state.setChatState", func(ctx context.Context, a Args) (any, error) {
		id, ns, err := chatNS(a)
		if err != nil {
			return nil, err
		}
		if !a.Has(2) {
			return nil, apperr.Invalid("value is required (to remove a namespace use deleteChatState)")
		}
		var opts state.WriteOptions
		if err := a.OptOptions(3, &opts, "ifRevision"); err != nil {
			return nil, err
		}
		rev, err := svc.Set(ctx, id, ns, a[2], opts)
		if err != nil {
			return nil, err
		}
		return map[string]any{"ok": true, "revision": rev}, nil
	})
	r.Register("state.deleteChatState", func(ctx context.Context, a Args) (any, error) {
		id, ns, err := chatNS(a)
		if err != nil {
			return nil, err
		}
		var opts state.WriteOptions
		if err := a.OptOptions(2, &opts, "ifRevision"); err != nil {
			return nil, err
		}
		if err := svc.Delete(ctx, id, ns, opts); err != nil {
			return nil, err
		}
		return map[string]any{"ok": true}, nil
	})
	r.Register("state.beginUpdate", func(ctx context.Context, a Args) (any, error) {
		id, ns, err := chatNS(a)
		if err != nil {
			return nil, err
		}
		return svc.BeginUpdate(ctx, id, ns)
	})
	r.Register("state.endUpdate", func(ctx context.Context, a Args) (any, error) {
		id, ns, err := chatNS(a)
		if err != nil {
			return nil, err
		}
		lease, err := a.String(2, "lease")
		if err != nil {
			return nil, err
		}
		svc.EndUpdate(id, ns, lease)
		return nil, nil
	})
	r.Register("state.floorUpdate", func(ctx context.Context, a Args) (any, error) {
		id, ns, opts, err := floorArgs(a)
		if err != nil {
			return nil, err
		}
		return svc.FloorUpdate(ctx, id, ns, a.Raw(2), opts)
	})
	r.Register("state.floorGet", func(ctx context.Context, a Args) (any, error) {
		id, ns, err := chatNS(a)
		if err != nil {
			return nil, err
		}
		return svc.FloorGet(ctx, id, ns)
	})
	r.Register("state.floorPatch", func(ctx context.Context, a Args) (any, error) {
		id, ns, opts, err := floorArgs(a)
		if err != nil {
			return nil, err
		}
		if !a.IsArray(2) {
			return nil, apperr.Invalid("ops must be an array of RFC 6902 operations")
		}
		return svc.FloorPatch(ctx, id, ns, a[2], opts)
	})
	r.Register("state.getCharacterState", func(ctx context.Context, a Args) (any, error) {
		avatar, err := a.String(0, "avatar")
		if err != nil {
			return nil, err
		}
		ns, err := a.String(1, "namespace")
		if err != nil {
			return nil, err
		}
		v, err := svc.CharacterState(ctx, avatar, ns)
		if err != nil || v == nil {
			return nil, err
		}
		return v, nil
	})
	r.Register("state.setCharacterState", func(ctx context.Context, a Args) (any, error) {
		avatar, err := a.String(0, "avatar")
		if err != nil {
			return nil, err
		}
		ns, err := a.String(1, "namespace")
		if err != nil {
			return nil, err
		}
		if len(a) < 3 {
			return nil, apperr.Invalid("data is required (null deletes the namespace)")
		}
		return nil, svc.SetCharacterState(ctx, avatar, ns, a[2])
	})
}

func floorArgs(a Args) (string, string, state.FloorOptions, error) {
	var opts state.FloorOptions
	id, ns, err := chatNS(a)
	if err != nil {
		return "", "", opts, err
	}
	if !a.Has(2) {
		return "", "", opts, apperr.Invalid("the next state is required")
	}
	err = a.OptOptions(3, &opts, "floor", "swipeId", "ifRevision")
	return id, ns, opts, err
}
