package app

import (
	"context"

	"hearth/backend/prompt"
)

// presetFor is the generation's preset source: the preset with id, or
// the active one for "".
func (a *App) presetFor(ctx context.Context, id string) (prompt.Preset, error) {
	if id == "" {
		return a.Presets.Active(ctx)
	}
	return a.Presets.Get(ctx, id)
}
