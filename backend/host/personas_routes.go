package host

import (
	"context"
	"encoding/json"

	"hearth/backend/personas"
)

func registerPersonas(r *Router, svc *personas.Service) {
	r.Register("personas.save", func(ctx context.Context, a Args) (any, error) {
		var in personas.Input
		// null (NaN) in an integer field is refused: the decoder reads it
		// as left out, so an update changed nothing yet fired
		// PERSONA_CHANGED, and a create took the defaults.
		if err := a.Object(0, "persona", &in, "position", "depth", "role"); err != nil {
			return nil, err
		}
		return svc.Save(ctx, in)
	})
	r.Register("personas.list", func(ctx context.Context, a Args) (any, error) {
		return svc.List(ctx)
	})
	r.Register("personas.get", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "id")
		if err != nil {
			return nil, err
		}
		return svc.Get(ctx, id)
	})
	r.Register("personas.delete", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "id")
		if err != nil {
			return nil, err
		}
		return nil, svc.Delete(ctx, id)
	})
	r.Register("personas.setActive", func(ctx context.Context, a Args) (any, error) {
		id, err := optID(a, 0, "id")
		if err != nil {
			return nil, err
		}
		return svc.SetActive(ctx, id)
	})
	r.Register("personas.active", func(ctx context.Context, a Args) (any, error) {
		return svc.Active(ctx)
	})
	r.Register("personas.setDefault", func(ctx context.Context, a Args) (any, error) {
		id, err := optID(a, 0, "id")
		if err != nil {
			return nil, err
		}
		return svc.SetDefault(ctx, id)
	})
	r.Register("personas.lockToChat", func(ctx context.Context, a Args) (any, error) {
		chatID, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		// The persona is required, null included: a call that forgot it
		// must not unlock the chat.
		if len(a) < 2 {
			return nil, invalid("id is required: a persona id, or null to unlock the chat")
		}
		id, err := optID(a, 1, "id")
		if err != nil {
			return nil, err
		}
		return svc.LockToChat(ctx, chatID, id)
	})
	r.Register("personas.effective", func(ctx context.Context, a Args) (any, error) {
		chatID, err := optID(a, 0, "chatId")
		if err != nil {
			return nil, err
		}
		if chatID == nil {
			return svc.Effective(ctx, "")
		}
		return svc.Effective(ctx, *chatID)
	})
}

// optID reads argument i as a string or null (absent counts as null).
func optID(a Args, i int, name string) (*string, error) {
	if !a.Has(i) {
		return nil, nil
	}
	var id string
	if err := json.Unmarshal(a.Raw(i), &id); err != nil {
		return nil, invalid("%s must be a string or null", name)
	}
	return &id, nil
}
