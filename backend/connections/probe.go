package connections

import (
	"context"

	"hearth/backend/apperr"
	"hearth/backend/providers"
)

// ProbeResult is connections.probe's answer: the models the server lists,
// or the model.* error that says why not.
type ProbeResult struct {
	OK bool `json:"ok"`
	// Models is the list when OK (it may be empty), else empty.
	Models []string      `json:"models"`
	Error  *apperr.Error `json:"error,omitempty"`
}

// Probe asks the server of settings not saved yet for its models, so that
// a form can offer them before its first save (a newcomer has no model
// name to type). in is read as save reads it — provider, baseUrl, headers
// and apiKey; with an id, the fields left out are the stored
// connection's — and nothing is written and no event is sent; name and
// model are not needed.
//
// The key sent is in's apiKey when given ("" sends none). Without one,
// the stored connection's key is sent only when it was entered for the
// origin and provider probed (keyFor), the rule save keeps a key by: a
// probe of another address never carries it there.
func (s *Service) Probe(ctx context.Context, in Input) (*ProbeResult, error) {
	c := &Connection{}
	if in.ID != nil {
		cur, err := s.get(ctx, s.db.Reader(), *in.ID)
		if err != nil {
			return nil, err
		}
		c = cur
	}
	in.Name, in.Model = nil, nil
	if err := in.set(c); err != nil {
		return nil, err
	}
	if err := reachable(c); err != nil {
		return nil, err
	}
	if _, err := providers.Origin(c.Provider, c.BaseURL); err != nil {
		return nil, err
	}
	key := ""
	switch {
	case in.APIKey != nil:
		key = *in.APIKey
	case in.ID != nil:
		e, err := s.secrets.get(c.ID)
		if err != nil {
			return nil, err
		}
		key = keyFor(e, c)
	}
	p, err := providers.New(providers.Config{Kind: c.Provider, BaseURL: c.BaseURL, APIKey: key,
		Headers: c.Headers, Transport: s.Transport, IdleTimeout: s.IdleTimeout})
	if err != nil {
		if ae := apperr.As(err); ae != nil {
			return &ProbeResult{Models: []string{}, Error: ae}, nil // say, Google without a key
		}
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	models, err := p.Models(ctx)
	if err != nil {
		res, err := failed(c, err)
		if err != nil {
			return nil, err
		}
		return &ProbeResult{Models: []string{}, Error: res.Error}, nil
	}
	return &ProbeResult{OK: true, Models: models}, nil
}
