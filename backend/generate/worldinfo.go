package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"hearth/backend/chats"
	"hearth/backend/jsonx"
	"hearth/backend/prompt"
	"hearth/backend/worldinfo"
)

// scanWorldInfo activates the lorebooks of the chat for the prompt in in
// (the history and card already set) and places what they add: before
// and after the character definitions, around the Author's Note, and at
// depth. It scans hist, the messages the prompt is assembled from: the
// stored chat's, or what the window's interceptors made of them (the scan
// reads what the model will). Without any book attached it costs nothing.
// The chat's timed
// effects are read from metadata timedWorldInfo; the new state is
// returned for the caller to store after a real generation.
// charBooks are the character's side of a scan: its card's lorebook and
// avatar (the entries' character filter), and in a group's join modes the
// other included members' lorebooks.
type charBooks struct {
	world, avatar string
	others        []string
}

func (s *Service) scanWorldInfo(ctx context.Context, o *Options, v *chats.PromptView, in *prompt.Input, hist prompt.History, books charBooks, dry bool) (*worldinfo.Activation, *worldinfo.TimedState, error) {
	wi := s.src.WorldInfo
	if wi == nil {
		return nil, nil, nil
	}
	var chatWorld string
	_ = json.Unmarshal(v.Metadata["world_info"], &chatWorld)
	cfg, err := wi.Config(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(cfg.GlobalSelect) == 0 && chatWorld == "" && books.world == "" && len(books.others) == 0 && in.Persona.Lorebook == "" {
		return nil, nil, nil
	}
	// newest reads the n newest messages the prompt sees (hidden ones
	// skipped, as the scan never sees them), oldest first.
	newest := func(n int) ([]worldinfo.Message, error) {
		msgs := make([]worldinfo.Message, 0, min(n, hist.Len()))
		for i := hist.Len() - 1; i >= 0 && len(msgs) < n; i-- {
			m, err := hist.At(i)
			if err != nil {
				return nil, err
			}
			if m.Role != "" {
				msgs = append(msgs, worldinfo.Message{Name: m.Name, Text: m.Text})
			}
		}
		slices.Reverse(msgs)
		return msgs, nil
	}
	timed, _ := worldinfo.ParseTimedState(v.Metadata[worldinfo.MetadataKey])
	macros := prompt.NewMacros(in, "", "", "")
	res, act, err := wi.ActivateFor(ctx, worldinfo.Request{
		ChatID: o.ChatID, CharacterWorld: books.world, MemberWorlds: books.others, ChatWorld: chatWorld, PersonaWorld: in.Persona.Lorebook,
		Input: worldinfo.Input{
			ChatLength: hist.Len(),
			Global: worldinfo.GlobalScanData{
				PersonaDescription: in.Persona.Description, CharacterDescription: in.Card.Description,
				CharacterPersonality: in.Card.Personality, CharacterDepthPrompt: in.Card.DepthPrompt.Text,
				Scenario: in.Card.Scenario,
			},
			MaxContext: in.Preset.MaxContext, Tokens: s.tok.Count, Substitute: macros.Expand,
			Trigger: o.Type, CharacterFile: trimExt(books.avatar), Timed: timed, DryRun: dry,
		},
		Messages: newest,
	})
	if err != nil {
		return nil, nil, err
	}
	in.WorldInfo = prompt.WorldInfo{Before: res.Before, After: res.After}
	for _, d := range res.Depth {
		in.WorldInfo.Depth = append(in.WorldInfo.Depth, prompt.ExtensionPrompt{
			Key: "customDepthWI", Value: d.Content, Position: prompt.PositionInChat, Depth: d.Depth, Role: d.Role,
		})
	}
	if len(res.ANTop)+len(res.ANBottom) > 0 && in.AuthorNote.Prompt != "" {
		in.AuthorNote.Prompt = res.AuthorNote(in.AuthorNote.Prompt)
	}
	if len(res.EMTop)+len(res.EMBottom) > 0 {
		in.Card.MesExample = joinExamples(res.EMTop, in.Card.MesExample, res.EMBottom)
	}
	return act, &res.Timed, nil
}

// joinExamples puts example-message entries around the card's examples,
// each as its own <START> block, as SillyTavern does.
func joinExamples(top []string, mes string, bottom []string) string {
	out := ""
	add := func(block string) {
		if block == "" {
			return
		}
		if out != "" {
			out += "\n"
		}
		out += "<START>\n" + block
	}
	for _, t := range top {
		add(t)
	}
	if mes != "" {
		if out != "" {
			out += "\n"
		}
		out += mes
	}
	for _, b := range bottom {
		add(b)
	}
	return out
}

// trimExt is a card's file name without its extension.
func trimExt(avatar string) string {
	for i := len(avatar) - 1; i >= 0; i-- {
		if avatar[i] == '.' {
			return avatar[:i]
		}
	}
	return avatar
}

// saveTimed stores a real generation's new timed World Info state in the
// chat's metadata when it changed.
func (s *Service) saveTimed(ctx context.Context, chatID string, before json.RawMessage, next *worldinfo.TimedState) {
	if next == nil {
		return
	}
	if len(before) == 0 && len(next.Sticky) == 0 && len(next.Cooldown) == 0 {
		return
	}
	raw, err := next.MarshalJSON()
	var was bytes.Buffer
	if err != nil || json.Compact(&was, before) == nil && bytes.Equal(was.Bytes(), raw) {
		return
	}
	if _, err := s.src.Chats.SaveMetadata(ctx, chatID, jsonx.Object{worldinfo.MetadataKey: raw}, chats.WriteOptions{}); err != nil {
		s.log.Warn("generate: keep timed World Info", "chat", chatID, "err", err)
	}
}
