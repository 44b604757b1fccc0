package host

import (
	"context"
	"sort"
	"strings"

	"hearth/backend/jsonx"
	"hearth/backend/search"
)

// searchOptionKeys are the options chat.search understands; any other key
// is refused (a misspelt filter must not silently widen a search).
var searchOptionKeys = map[string]bool{"limit": true, "role": true, "start": true, "end": true, "includeHidden": true}

// registerSearch adds chat.search(chatId | null, query, options?):
// full-text search of one chat, or of every chat when chatId is null.
func registerSearch(r *Router, svc *search.Service) {
	r.Register("chat.search", func(ctx context.Context, a Args) (any, error) {
		query, err := a.String(1, "query")
		if err != nil {
			return nil, err
		}
		opts, err := searchOptions(a, 2)
		if err != nil {
			return nil, err
		}
		if !a.Has(0) {
			return svc.SearchAll(ctx, query, opts)
		}
		id, err := a.String(0, "chatId")
		if err != nil {
			return nil, invalid("chatId must be a string, or null to search every chat")
		}
		return svc.Search(ctx, id, query, opts)
	})
}

// searchOptions decodes chat.search's options strictly: known keys only,
// integers that are integers, a string role, a boolean includeHidden. A
// key set to null is refused too: it is what JSON makes of NaN.
func searchOptions(a Args, i int) (search.Options, error) {
	var opts search.Options
	if !a.Has(i) {
		return opts, nil
	}
	o, err := objectArg(a, i, "options")
	if err != nil {
		return opts, err
	}
	var unknown []string
	for k := range o {
		if !searchOptionKeys[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return opts, invalid("unknown search option %q (allowed: limit, role, start, end, includeHidden)", strings.Join(unknown, ", "))
	}
	optInt := func(key string) (*int, error) {
		raw, ok := o[key]
		if !ok {
			return nil, nil
		}
		n, err := jsonx.Int(raw, "options."+key)
		return &n, err
	}
	if opts.Limit, err = optInt("limit"); err != nil {
		return opts, err
	}
	if opts.Start, err = optInt("start"); err != nil {
		return opts, err
	}
	if opts.End, err = optInt("end"); err != nil {
		return opts, err
	}
	if raw, ok := o["role"]; ok {
		role, err := jsonx.String(raw, "options.role")
		if err != nil {
			return opts, err
		}
		opts.Role = &role
	}
	if raw, ok := o["includeHidden"]; ok {
		if opts.IncludeHidden, err = jsonx.Bool(raw, "options.includeHidden"); err != nil {
			return opts, err
		}
	}
	return opts, nil
}
