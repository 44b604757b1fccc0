package host

import (
	"context"
	"encoding/json"
	"io"
	"strconv"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/jsonx"
)

// writeOpts decodes the options argument every chat write takes.
func writeOpts(a Args, i int) (chats.WriteOptions, error) {
	var o chats.WriteOptions
	err := optWriteOptions(a, i, &o)
	return o, err
}

// optWriteOptions decodes the write options i into dst (chats.WriteOptions
// or a struct embedding it), refusing null in ifRevision, in silent and in
// the other boolean members named in bools: the decoder would read a null
// boolean as false, so { silent: null } wrote and sent events.
func optWriteOptions(a Args, i int, dst any, bools ...string) error {
	if err := a.OptOptions(i, dst, "ifRevision"); err != nil || !a.Has(i) {
		return err
	}
	return jsonx.RefuseNullBools(a[i], "options", append([]string{"silent"}, bools...)...)
}

// oneOrMany returns argument i as a list, and whether it was a single value.
func oneOrMany(a Args, i int, name string) ([]json.RawMessage, bool, error) {
	if !a.Has(i) {
		return nil, false, apperr.Invalid("%s is required", name)
	}
	if !a.IsArray(i) {
		return []json.RawMessage{a[i]}, true, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(a[i], &list); err != nil {
		return nil, false, apperr.Invalid("%s must be an array", name)
	}
	return list, false, nil
}

func rangeArg(a Args, i int) (*chats.Range, error) {
	if !a.Has(i) {
		return nil, nil
	}
	o, err := objectArg(a, i, "range")
	if err != nil {
		return nil, err
	}
	r := &chats.Range{}
	members := map[string]**int{"start": &r.Start, "end": &r.End, "tail": &r.Tail, "before": &r.Before, "limit": &r.Limit}
	for key, raw := range o {
		dst, ok := members[key]
		if !ok {
			return nil, apperr.Invalid("unknown range field %q (allowed: start, end, tail, before, limit)", key).
				WithDetails(map[string]any{"field": "range." + key})
		}
		n, err := jsonx.Int(raw, "range."+key)
		if err != nil {
			return nil, err
		}
		*dst = &n
	}
	return r, nil
}

func registerChats(r *Router, svc *chats.Service) {
	registerChatLifecycle(r, svc)
	registerChatReads(r, svc)
	registerChatWrites(r, svc)
	registerSpindle(r, svc)
	registerBranches(r, svc)
	registerJsonl(r, svc)
	registerUndo(r, svc)
}

func registerChatLifecycle(r *Router, svc *chats.Service) {
	r.Register("chat.list", func(ctx context.Context, a Args) (any, error) {
		var owner chats.Owner
		if err := a.Object(0, "owner", &owner); err != nil {
			return nil, err
		}
		return svc.List(ctx, owner)
	})
	r.Register("chat.create", func(ctx context.Context, a Args) (any, error) {
		var owner chats.Owner
		if err := a.Object(0, "owner", &owner); err != nil {
			return nil, err
		}
		var opts chats.CreateOptions
		if err := a.OptObject(1, "options", &opts); err != nil {
			return nil, err
		}
		return svc.Create(ctx, owner, opts)
	})
	r.Register("chat.get", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		return svc.Get(ctx, id)
	})
	r.Register("chat.resolve", func(ctx context.Context, a Args) (any, error) {
		var ref chats.Ref
		if err := a.Object(0, "ref", &ref); err != nil {
			return nil, err
		}
		return svc.Resolve(ctx, ref)
	})
	r.Register("chat.rename", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		name, err := a.String(1, "newFileName")
		if err != nil {
			return nil, err
		}
		return svc.Rename(ctx, id, name)
	})
	r.Register("chat.delete", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		return nil, svc.Delete(ctx, id)
	})
}

// rangeRead adapts a (chatId, range?) read to a handler.
func rangeRead(read func(ctx context.Context, chatID string, rng *chats.Range) (any, error)) Handler {
	return func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		rng, err := rangeArg(a, 1)
		if err != nil {
			return nil, err
		}
		return read(ctx, id, rng)
	}
}

func registerChatReads(r *Router, svc *chats.Service) {
	r.Register("chat.getMessages", rangeRead(func(ctx context.Context, id string, rng *chats.Range) (any, error) {
		return svc.Messages(ctx, id, rng)
	}))
	r.Register("chat.getStMessages", rangeRead(func(ctx context.Context, id string, rng *chats.Range) (any, error) {
		return Streamed{
			Write: func(w io.Writer) error { return svc.WriteStMessagesJSON(ctx, id, rng, w) },
			Whole: func() (json.RawMessage, error) { return svc.StMessagesJSON(ctx, id, rng) },
		}, nil
	}))
	r.Register("chat.count", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		return svc.Count(ctx, id)
	})
	r.Register("chat.getMetadata", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		return svc.Metadata(ctx, id)
	})
}

type revisionResult struct {
	Revision int64 `json:"revision"`
}

type swipeResult struct {
	SwipeID int `json:"swipeId"`
}

func registerChatWrites(r *Router, svc *chats.Service) {
	r.Register("chat.addMessages", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		msgs, single, err := oneOrMany(a, 1, "messages")
		if err != nil {
			return nil, err
		}
		opts, err := writeOpts(a, 2)
		if err != nil {
			return nil, err
		}
		idx, err := svc.AddMessages(ctx, id, msgs, opts)
		if err != nil {
			return nil, err
		}
		if single {
			return idx[0], nil
		}
		return idx, nil
	})
	r.Register("chat.updateMessages", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		raws, single, err := oneOrMany(a, 1, "updates")
		if err != nil {
			return nil, err
		}
		if err := chats.CheckMessageCount(len(raws), "updates"); err != nil {
			return nil, err
		}
		updates := make([]chats.Update, len(raws))
		for i, raw := range raws {
			label := "updates[" + strconv.Itoa(i) + "]"
			if single {
				label = "update"
			}
			o, err := jsonx.DecodeObject(raw, label)
			if err != nil {
				return nil, err
			}
			if updates[i].Index, err = jsonx.Int(o["index"], label+".index"); err != nil {
				return nil, err
			}
			if updates[i].Patch, err = jsonx.DecodeObject(o["patch"], label+".patch"); err != nil {
				return nil, err
			}
		}
		opts, err := writeOpts(a, 2)
		if err != nil {
			return nil, err
		}
		return nil, svc.UpdateMessages(ctx, id, updates, opts)
	})
	r.Register("chat.deleteMessages", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		raws, single, err := oneOrMany(a, 1, "index")
		if err != nil {
			return nil, err
		}
		indexes := make([]int, len(raws))
		for i, raw := range raws {
			if indexes[i], err = jsonx.Int(raw, "index"); err != nil {
				return nil, err
			}
		}
		var opts chats.DeleteOptions
		if a.Has(2) {
			o, err := objectArg(a, 2, "options")
			if err != nil {
				return nil, err
			}
			if err := optWriteOptions(a, 2, &opts.WriteOptions); err != nil {
				return nil, err
			}
			// Present means a swipe: null (NaN) is refused, never read as
			// "delete the whole message".
			if raw, ok := o["swipe"]; ok {
				n, err := jsonx.Int(raw, "options.swipe")
				if err != nil {
					return nil, err
				}
				opts.Swipe = &n
			}
		}
		deleted, err := svc.DeleteMessages(ctx, id, indexes, opts)
		if err != nil {
			return nil, err
		}
		if single {
			return deleted[0], nil
		}
		return deleted, nil
	})
	r.Register("chat.patch", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		if !a.IsArray(1) {
			return nil, apperr.New(apperr.CodePatchInvalid, "ops must be an array of RFC 6902 operations")
		}
		var ops []json.RawMessage
		if err := json.Unmarshal(a[1], &ops); err != nil {
			return nil, apperr.New(apperr.CodePatchInvalid, "ops must be an array: %v", err)
		}
		opts, err := writeOpts(a, 2)
		if err != nil {
			return nil, err
		}
		rev, err := svc.Patch(ctx, id, ops, opts)
		if err != nil {
			return nil, err
		}
		return revisionResult{rev}, nil
	})
	r.Register("chat.saveMetadata", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		with := jsonx.Object{}
		if a.Has(1) {
			if with, err = objectArg(a, 1, "withMetadata"); err != nil {
				return nil, err
			}
		}
		opts, err := writeOpts(a, 2)
		if err != nil {
			return nil, err
		}
		rev, err := svc.SaveMetadata(ctx, id, with, opts)
		if err != nil {
			return nil, err
		}
		return revisionResult{rev}, nil
	})
	r.Register("chat.swipe", func(ctx context.Context, a Args) (any, error) {
		id, index, err := chatAndIndex(a)
		if err != nil {
			return nil, err
		}
		o, err := objectArg(a, 2, "target")
		if err != nil {
			return nil, err
		}
		var t chats.SwipeTarget
		if raw, ok := o["to"]; ok {
			n, err := jsonx.Int(raw, "to")
			if err != nil {
				return nil, err
			}
			t.To = &n
		}
		if raw, ok := o["direction"]; ok {
			if t.Direction, err = jsonx.String(raw, "direction"); err != nil {
				return nil, err
			}
		}
		opts, err := writeOpts(a, 3)
		if err != nil {
			return nil, err
		}
		sid, err := svc.Swipe(ctx, id, index, t, opts)
		if err != nil {
			return nil, err
		}
		return swipeResult{sid}, nil
	})
	r.Register("chat.addSwipe", func(ctx context.Context, a Args) (any, error) {
		id, index, err := chatAndIndex(a)
		if err != nil {
			return nil, err
		}
		content, err := a.String(2, "content")
		if err != nil {
			return nil, err
		}
		var opts struct {
			chats.WriteOptions
			Select bool `json:"select"`
		}
		if err := optWriteOptions(a, 3, &opts, "select"); err != nil {
			return nil, err
		}
		sid, err := svc.AddSwipe(ctx, id, index, content, opts.Select, opts.WriteOptions)
		if err != nil {
			return nil, err
		}
		return swipeResult{sid}, nil
	})
	r.Register("chat.deleteSwipe", func(ctx context.Context, a Args) (any, error) {
		id, index, err := chatAndIndex(a)
		if err != nil {
			return nil, err
		}
		swipeID, err := a.Int(2, "swipeId")
		if err != nil {
			return nil, err
		}
		opts, err := writeOpts(a, 3)
		if err != nil {
			return nil, err
		}
		_, newID, err := svc.DeleteSwipe(ctx, id, index, swipeID, opts)
		if err != nil {
			return nil, err
		}
		return swipeResult{newID}, nil
	})
}

func chatAndIndex(a Args) (string, int, error) {
	id, err := a.String(0, "chatId")
	if err != nil {
		return "", 0, err
	}
	index, err := a.Int(1, "index")
	return id, index, err
}

func registerSpindle(r *Router, svc *chats.Service) {
	r.Register("chat.appendMessage", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		var in chats.AppendInput
		if err := a.Object(1, "message", &in); err != nil {
			return nil, err
		}
		opts, err := writeOpts(a, 2)
		if err != nil {
			return nil, err
		}
		return svc.AppendMessage(ctx, id, in, opts)
	})
	r.Register("chat.updateMessage", func(ctx context.Context, a Args) (any, error) {
		id, mid, err := chatAndMessage(a)
		if err != nil {
			return nil, err
		}
		patch, err := objectArg(a, 2, "patch")
		if err != nil {
			return nil, err
		}
		return nil, svc.UpdateMessage(ctx, id, mid, patch)
	})
	r.Register("chat.deleteMessage", func(ctx context.Context, a Args) (any, error) {
		id, mid, err := chatAndMessage(a)
		if err != nil {
			return nil, err
		}
		return nil, svc.DeleteMessage(ctx, id, mid)
	})
	r.Register("chat.setMessageHidden", func(ctx context.Context, a Args) (any, error) {
		id, mid, err := chatAndMessage(a)
		if err != nil {
			return nil, err
		}
		hidden, err := a.Bool(2, "hidden")
		if err != nil {
			return nil, err
		}
		return nil, svc.SetMessagesHidden(ctx, id, []string{mid}, hidden)
	})
	r.Register("chat.setMessagesHidden", func(ctx context.Context, a Args) (any, error) {
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, err
		}
		if !a.IsArray(1) {
			return nil, apperr.Invalid("ids must be an array of message ids")
		}
		ids, err := jsonx.StrictStrings(a[1], "ids")
		if err != nil {
			return nil, err
		}
		hidden, err := a.Bool(2, "hidden")
		if err != nil {
			return nil, err
		}
		return nil, svc.SetMessagesHidden(ctx, id, ids, hidden)
	})
	r.Register("chat.isMessageHidden", func(ctx context.Context, a Args) (any, error) {
		id, mid, err := chatAndMessage(a)
		if err != nil {
			return nil, err
		}
		return svc.IsMessageHidden(ctx, id, mid)
	})
}

func chatAndMessage(a Args) (string, string, error) {
	id, err := a.String(0, "chatId")
	if err != nil {
		return "", "", err
	}
	mid, err := a.String(1, "messageId")
	return id, mid, err
}
