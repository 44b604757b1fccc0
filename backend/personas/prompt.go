package personas

import (
	"context"

	"hearth/backend/prompt"
)

// ForPrompt is the persona of chatID as prompt assembly takes it (the
// shape of generate.Sources.Persona): the effective persona, or with none
// a nameless description-less one named by UserName's fallbacks. Position,
// depth and role pass through unchanged; the numbering is the same
// (SillyTavern's).
func (s *Service) ForPrompt(ctx context.Context, chatID string) (prompt.Persona, error) {
	p, err := s.Effective(ctx, chatID)
	if err != nil {
		return prompt.Persona{}, err
	}
	if p == nil {
		return prompt.Persona{Name: s.UserName(ctx, chatID), Position: PositionNone, Depth: DefaultDepth, Role: DefaultRole}, nil
	}
	return prompt.Persona{Name: p.Name, Description: p.Description, Position: p.Position, Depth: p.Depth, Role: p.Role, Lorebook: p.Lorebook}, nil
}
