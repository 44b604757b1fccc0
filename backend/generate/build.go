package generate

import (
	"context"
	"encoding/json"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/jsonx"
	"hearth/backend/prompt"
	"hearth/backend/worldinfo"
)

// target is the message a regenerate, swipe or continue is about.
type target struct {
	id    string
	index int
}

// built is an assembled prompt and what the run needs beside it.
type built struct {
	in       prompt.Input
	prompt   *prompt.Prompt
	target   *target
	charName string
	// speaker is the group member the reply is by ("" in a 1:1 chat).
	speaker  string
	revision int64
	// activation is what the lorebooks added (nil: none attached);
	// timed the timed-effects state to store after a real generation,
	// timedBefore the one the chat had.
	activation  *worldinfo.Activation
	timed       *worldinfo.TimedState
	timedBefore json.RawMessage
	// hooks is what the window's prompt hooks did (hooks.go).
	hooks HooksRecord
}

// build reads the chat, card, persona and preset and assembles the prompt
// of one generation, all from one snapshot of the chat.
func (s *Service) build(ctx context.Context, o *Options, preset prompt.Preset, model string, vision bool, dry bool) (*built, error) {
	b := &built{}
	if o.Hooks == nil {
		b.hooks.Skipped = SkippedNoWindow
	}
	err := s.src.Chats.ReadForPrompt(ctx, o.ChatID, func(v *chats.PromptView) error {
		b.revision = v.Revision
		in := prompt.Input{
			Type: o.Type, Preset: preset, Vision: vision, Model: model,
			ExtensionPrompts: o.ExtensionPrompts, Now: s.now(), AuthorNote: authorNote(v.Metadata),
		}
		if in.AuthorNote.Interval > 1 {
			n, err := v.UserMessages()
			if err != nil {
				return err
			}
			in.UserMessages = n
		}
		if o.QuietPrompt != nil {
			in.QuietPrompt = *o.QuietPrompt
		}
		persona, err := s.src.Persona(ctx, o.ChatID)
		if err != nil {
			return err
		}
		in.Persona = persona // before the card: a join-mode card expands {{user}}
		var charWorld, charAvatar string
		var otherWorlds []string
		if o.member != nil {
			otherWorlds = o.member.fill(&in)
			charAvatar = o.member.avatar
			charWorld = cardWorld(o.member.turn.cards[charAvatar].Data)
			b.speaker = charAvatar
		} else if v.Avatar != "" {
			charAvatar = v.Avatar
			card, err := s.src.Characters.Get(ctx, v.Avatar)
			if err != nil && apperr.CodeOf(err) != "character.not_found" {
				return err
			}
			if card != nil {
				in.Card = cardOf(card.Data)
				charWorld = cardWorld(card.Data)
			}
		}
		b.charName = in.Card.Name
		if b.charName == "" {
			b.charName = "Assistant"
		}
		hist := &history{view: v, n: v.Count}
		switch o.Type {
		case prompt.TypeRegenerate, prompt.TypeSwipe, prompt.TypeContinue:
			t, err := lastTarget(hist, o.Type)
			if err != nil {
				return err
			}
			b.target = t
			if t != nil && o.Type != prompt.TypeContinue {
				hist.n = t.index // the reply being replaced is not part of its own prompt
			}
		}
		in.History = hist
		if o.Hooks != nil && o.Hooks.Interceptor != nil {
			ih, rec, err := intercept(o.Hooks.Interceptor, v)
			if err != nil {
				return err
			}
			b.hooks.Interceptor = rec
			if ih != nil {
				in.History = ih
			}
		}
		b.timedBefore = v.Metadata[worldinfo.MetadataKey]
		books := charBooks{world: charWorld, avatar: charAvatar, others: otherWorlds}
		if b.activation, b.timed, err = s.scanWorldInfo(ctx, o, v, &in, in.History, books, dry); err != nil {
			return err
		}
		p, err := prompt.Assemble(in, s.tok)
		if err != nil {
			return err
		}
		b.in, b.prompt = in, p
		return nil
	})
	return b, err
}

// lastTarget finds the message a regenerate, swipe or continue acts on:
// the chat's last message, which for a swipe must be the character's. A
// regenerate after a message that is not the character's has nothing to
// replace (nil): like SillyTavern's, it then just writes a reply.
func lastTarget(h *history, typ string) (*target, error) {
	if h.n == 0 {
		if typ == prompt.TypeRegenerate {
			return nil, nil
		}
		return nil, apperr.Invalid("the chat has no message to %s", typ)
	}
	msgs, err := h.view.PromptPage(h.n-1, h.n)
	if err != nil {
		return nil, err
	}
	m := msgs[0]
	if typ != prompt.TypeContinue && (m.IsUser || m.IsSystem) {
		if typ == prompt.TypeRegenerate {
			return nil, nil
		}
		return nil, apperr.Invalid("the last message is not the character's: there is no reply to %s", typ)
	}
	return &target{id: m.ID, index: h.n - 1}, nil
}

// history is a prompt.History over a chat snapshot, read in pages from
// the newest end as the assembler asks for older messages. Pages start
// small (a short context needs a few dozen messages) and double.
type history struct {
	view  *chats.PromptView
	n     int
	start int // first index held in page
	page  []prompt.Message
	size  int // the next page's size
}

const (
	firstPage = 32
	maxPage   = 1024
)

// Len implements prompt.History.
func (h *history) Len() int { return h.n }

// At implements prompt.History.
func (h *history) At(i int) (prompt.Message, error) {
	if i < h.start || i >= h.start+len(h.page) {
		if h.size == 0 {
			h.size = firstPage
		}
		end := min(h.n, i+1)
		if i >= h.start+len(h.page) {
			end = min(h.n, i+h.size)
		}
		start := max(0, end-h.size)
		h.size = min(2*h.size, maxPage)
		msgs, err := h.view.PromptPage(start, end)
		if err != nil {
			return prompt.Message{}, err
		}
		h.start, h.page = start, make([]prompt.Message, len(msgs))
		for j := range msgs {
			h.page[j] = messageOf(&msgs[j])
		}
	}
	return h.page[i-h.start], nil
}

// messageOf maps a stored message onto the prompt's view: is_system
// messages (hidden from the prompt with /hide) are empty and so skipped.
func messageOf(m *chats.PromptMessage) prompt.Message {
	if m.IsSystem {
		return prompt.Message{}
	}
	out := prompt.Message{Name: m.Name, Text: m.Mes, Role: "assistant", Media: mediaOf(m)}
	switch {
	case m.IsUser:
		out.Role = "user"
	case m.Type == "narrator":
		out.Role = "system"
	}
	return out
}

// mediaItem is one entry of extra.media[] or extra.files[].
type mediaItem struct {
	URL   string `json:"url"`
	Type  string `json:"type"`
	Title string `json:"title"`
	Name  string `json:"name"`
	MIME  string `json:"mime"`
}

// mediaOf reads extra.media[] and extra.files[] (and the legacy
// extra.image a SillyTavern chat may still carry).
func mediaOf(m *chats.PromptMessage) []prompt.Media {
	var out []prompt.Media
	var items []mediaItem
	if len(m.Media) > 0 && json.Unmarshal(m.Media, &items) == nil {
		for _, it := range items {
			kind := it.Type
			if kind == "" {
				kind = "image"
			}
			out = append(out, prompt.Media{Kind: kind, URL: it.URL, Name: firstOf(it.Title, it.Name), MIME: it.MIME})
		}
	}
	items = nil
	if len(m.Files) > 0 && json.Unmarshal(m.Files, &items) == nil {
		for _, it := range items {
			out = append(out, prompt.Media{Kind: "file", URL: it.URL, Name: firstOf(it.Name, it.Title), MIME: it.MIME})
		}
	}
	if m.Image != "" {
		out = append(out, prompt.Media{Kind: "image", URL: m.Image})
	}
	return out
}

// cardOf reads the prompt's fields of a character card.
func cardOf(d jsonx.Object) prompt.Card {
	c := prompt.Card{
		Name: jsonString(d["name"]), Description: jsonString(d["description"]),
		Personality: jsonString(d["personality"]), Scenario: jsonString(d["scenario"]),
		MesExample: jsonString(d["mes_example"]), SystemPrompt: jsonString(d["system_prompt"]),
		PostHistoryInstructions: jsonString(d["post_history_instructions"]),
	}
	var ext struct {
		DepthPrompt *struct {
			Prompt string `json:"prompt"`
			Depth  *int   `json:"depth"`
			Role   string `json:"role"`
		} `json:"depth_prompt"`
	}
	if raw, ok := d["extensions"]; ok && json.Unmarshal(raw, &ext) == nil && ext.DepthPrompt != nil {
		depth := 4
		if ext.DepthPrompt.Depth != nil {
			depth = *ext.DepthPrompt.Depth
		}
		c.DepthPrompt = prompt.DepthPrompt{Text: ext.DepthPrompt.Prompt, Depth: depth, Role: ext.DepthPrompt.Role}
	}
	return c
}

// cardWorld is the card's primary lorebook, extensions.world.
func cardWorld(d jsonx.Object) string {
	var ext struct {
		World string `json:"world"`
	}
	_ = json.Unmarshal(d["extensions"], &ext)
	return ext.World
}

// authorNote reads the chat's Author's Note (SillyTavern's chat metadata
// keys, with its defaults: interval 1, depth 4, in chat, system).
func authorNote(meta jsonx.Object) prompt.AuthorNote {
	n := prompt.AuthorNote{Prompt: jsonString(meta["note_prompt"]), Interval: 1, Depth: 4, Position: prompt.PositionInChat, Role: prompt.RoleSystem}
	if v, ok := jsonInt(meta["note_interval"]); ok {
		n.Interval = v
	}
	if v, ok := jsonInt(meta["note_depth"]); ok && v >= 0 {
		n.Depth = v
	}
	if v, ok := jsonInt(meta["note_position"]); ok {
		n.Position = v
	}
	if v, ok := jsonInt(meta["note_role"]); ok && v >= 0 && v <= 2 {
		n.Role = v
	}
	return n
}

func jsonString(raw json.RawMessage) string {
	var s string
	if raw != nil && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// jsonInt reads a number (SillyTavern sometimes stores these as strings).
func jsonInt(raw json.RawMessage) (int, bool) {
	if raw == nil {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return int(f), true
	}
	var s json.Number
	if json.Unmarshal([]byte(strings.Trim(string(raw), `"`)), &s) == nil {
		if v, err := s.Int64(); err == nil {
			return int(v), true
		}
	}
	return 0, false
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
