package extensions

import (
	"context"
	"path"
	"path/filepath"
	"slices"

	"hearth/backend/internal/extframe"
)

// FrameFiles returns what id's frame may load (both transports serve
// extframe.PathPrefix+id+"/…" from it): only for an installed sandboxed
// extension that is active now (enabled, not failed or blocked, and not
// in safe mode), named exactly as installed, since the frame's policy
// names its folder by that spelling. Anything else is
// extension.not_found. Its network origins count only while it holds
// the network permission.
func (s *Service) FrameFiles(ctx context.Context, id string) (extframe.Files, error) {
	e, err := s.Get(ctx, id)
	if err != nil {
		return extframe.Files{}, err
	}
	if e.ID != id || e.Mode != ModeSandboxed || e.Status != StatusActive || e.Entry == "" {
		return extframe.Files{}, notFound(id)
	}
	f := extframe.Files{Dir: filepath.Join(s.dir, e.ID), Entry: path.Clean(e.Entry)}
	if slices.Contains(e.Granted, "network") {
		f.Connect = append([]string{}, e.Network...)
	}
	return f, nil
}

// PageDir returns the folder a page-tier extension's files are served
// from (extframe.PagePathPrefix+id+"/…"): only for an installed page
// extension that is active now, named exactly as installed. Anything else
// is extension.not_found, so a disabled or failed package serves nothing,
// and nothing is served in safe mode.
func (s *Service) PageDir(ctx context.Context, id string) (string, error) {
	e, err := s.Get(ctx, id)
	if err != nil {
		return "", err
	}
	if e.ID != id || e.Mode != ModePage || e.Status != StatusActive {
		return "", notFound(id)
	}
	return filepath.Join(s.dir, e.ID), nil
}
