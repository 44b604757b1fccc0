package host

import (
	"context"
	"encoding/json"
	"strings"

	"hearth/backend/extensions"
)

// registerExtensions adds api.extensions (EXTENSIONS.md §3): the registry
// and, under api.extensions.storage, each extension's own storage, named
// by { extensionId } (the UI's and the console's calls; a frame's are
// held to its own namespace by the runtime).
func registerExtensions(r *Router, svc *extensions.Service) {
	r.Register("extensions.list", func(ctx context.Context, _ Args) (any, error) {
		return svc.List(ctx)
	})
	r.Register("extensions.install", func(ctx context.Context, a Args) (any, error) {
		var src extensions.Source
		if err := a.Object(0, "source", &src); err != nil {
			return nil, err
		}
		if src.FileName != "" && src.Base64 == "" || src.FileName == "" && src.Base64 != "" {
			return nil, invalid("source: a zip is { fileName, base64 }, both required")
		}
		var opts extensions.InstallOptions
		if err := a.OptOptions(1, &opts); err != nil {
			return nil, err
		}
		return svc.Install(ctx, src, opts)
	})
	withID := func(fn func(ctx context.Context, id string, a Args) (any, error)) Handler {
		return func(ctx context.Context, a Args) (any, error) {
			id, err := a.String(0, "id")
			if err != nil {
				return nil, err
			}
			if strings.TrimSpace(id) == "" {
				return nil, invalid("id must not be empty")
			}
			return fn(ctx, id, a)
		}
	}
	r.Register("extensions.remove", withID(func(ctx context.Context, id string, a Args) (any, error) {
		var opts extensions.RemoveOptions
		if err := a.OptOptions(1, &opts); err != nil {
			return nil, err
		}
		return nil, svc.Remove(ctx, id, opts)
	}))
	r.Register("extensions.update", withID(func(ctx context.Context, id string, _ Args) (any, error) {
		return svc.Update(ctx, id)
	}))
	r.Register("extensions.enable", withID(func(ctx context.Context, id string, _ Args) (any, error) {
		return svc.Enable(ctx, id)
	}))
	r.Register("extensions.disable", withID(func(ctx context.Context, id string, _ Args) (any, error) {
		return svc.Disable(ctx, id)
	}))
	permissions := func(a Args) ([]string, error) {
		var perms []string
		if !a.IsArray(1) || json.Unmarshal(a.Raw(1), &perms) != nil {
			return nil, invalid("permissions must be an array of permission names")
		}
		return perms, nil
	}
	r.Register("extensions.grant", withID(func(ctx context.Context, id string, a Args) (any, error) {
		perms, err := permissions(a)
		if err != nil {
			return nil, err
		}
		return svc.Grant(ctx, id, perms)
	}))
	r.Register("extensions.revoke", withID(func(ctx context.Context, id string, a Args) (any, error) {
		perms, err := permissions(a)
		if err != nil {
			return nil, err
		}
		return svc.Revoke(ctx, id, perms)
	}))
	r.Register("extensions.compatReport", withID(func(ctx context.Context, id string, _ Args) (any, error) {
		return svc.CompatReport(ctx, id)
	}))
	r.Register("extensions.reportFailure", withID(func(ctx context.Context, id string, a Args) (any, error) {
		reason, err := a.String(1, "error")
		if err != nil {
			return nil, err
		}
		if len(reason) > maxFailureBytes {
			reason = strings.ToValidUTF8(reason[:maxFailureBytes], "")
		}
		if err := svc.MarkFailed(ctx, id, reason); err != nil {
			return nil, err
		}
		return svc.Get(ctx, id)
	}))
	r.Register("extensions.safeMode", func(ctx context.Context, _ Args) (any, error) {
		return svc.SafeMode(ctx)
	})
	r.Register("extensions.setSafeMode", func(ctx context.Context, a Args) (any, error) {
		var p extensions.SafeModePatch
		if err := a.Object(0, "options", &p); err != nil {
			return nil, err
		}
		return svc.SetSafeMode(ctx, p)
	})
	registerExtensionStorage(r, svc)
}

// maxFailureBytes bounds the error text a window reports (a stack trace
// is plenty at 8 KiB).
const maxFailureBytes = 8 << 10

// registerExtensionStorage adds api.extensions.storage: get(key, opts),
// set(key, value, opts), delete(key, opts), list(prefix?, opts), where
// opts is { extensionId }.
func registerExtensionStorage(r *Router, svc *extensions.Service) {
	owner := func(a Args, i int) (string, error) {
		var opts struct {
			ExtensionID string `json:"extensionId"`
		}
		if err := a.Object(i, "options", &opts); err != nil {
			return "", invalid("options { extensionId } are required: they name whose storage this is")
		}
		if opts.ExtensionID == "" {
			return "", invalid("options.extensionId is required")
		}
		return opts.ExtensionID, nil
	}
	keyed := func(fn func(ctx context.Context, id, key string, a Args) (any, error), optsAt int) Handler {
		return func(ctx context.Context, a Args) (any, error) {
			key, err := a.String(0, "key")
			if err != nil {
				return nil, err
			}
			id, err := owner(a, optsAt)
			if err != nil {
				return nil, err
			}
			return fn(ctx, id, key, a)
		}
	}
	r.Register("extensions.storage.get", keyed(func(ctx context.Context, id, key string, _ Args) (any, error) {
		return svc.StorageGet(ctx, id, key)
	}, 1))
	r.Register("extensions.storage.set", keyed(func(ctx context.Context, id, key string, a Args) (any, error) {
		if len(a) < 2 {
			return nil, invalid("value is required (null stores null)")
		}
		value := a[1]
		if len(strings.TrimSpace(string(value))) == 0 {
			value = json.RawMessage("null")
		}
		return nil, svc.StorageSet(ctx, id, key, value)
	}, 2))
	r.Register("extensions.storage.delete", keyed(func(ctx context.Context, id, key string, _ Args) (any, error) {
		return nil, svc.StorageDelete(ctx, id, key)
	}, 1))
	r.Register("extensions.storage.list", func(ctx context.Context, a Args) (any, error) {
		prefix := ""
		if a.Has(0) {
			p, err := a.String(0, "prefix")
			if err != nil {
				return nil, err
			}
			prefix = p
		}
		id, err := owner(a, 1)
		if err != nil {
			return nil, err
		}
		return svc.StorageList(ctx, id, prefix)
	})
}
