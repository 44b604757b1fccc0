package prompt

import (
	"fmt"
	"testing"
	"time"
)

// The fixtures of the golden matrix: one card, one persona, one chat.

func seraphina() Card {
	return Card{
		Name:        "Seraphina",
		Description: "{{char}} is a guardian of the forest glade, kind to {{user}}.",
		Personality: "gentle, watchful",
		Scenario:    "<USER> wakes in {{char}}'s glade.",
		MesExample:  "<START>\n{{user}}: Who are you?\n{{char}}: I am {{char}}, keeper of this glade.\n<START>\n{{user}}: Is it safe?\n{{char}}: While I watch, yes.\nShe smiles.",
	}
}

func wren() Persona {
	return Persona{Name: "Wren", Description: "{{user}} is a lost traveler.", Position: PersonaInPrompt, Depth: 2}
}

func chat() Messages {
	return Messages{
		{Name: "Seraphina", Role: "assistant", Text: "*You wake in a glade.* Welcome, {{user}}."},
		{Name: "Wren", Role: "user", Text: "Where am I?"},
		{Name: "Seraphina", Role: "assistant", Text: "In my forest."},
		{Name: "Narrator", Role: "system", Text: "The wind rises."},
		{Name: "Wren", Role: "user", Text: "Can I stay?"},
		{Name: "Wren", Role: "user", Text: "Just for tonight."},
	}
}

func base() Input {
	return Input{
		Type: TypeNormal, Card: seraphina(), Persona: wren(), Preset: DefaultPreset(),
		History: chat(), UserMessages: 3, Vision: true, Model: "test-model",
		Now: time.Date(2026, 11, 22, 15, 4, 5, 0, time.UTC),
	}
}

// with returns base() changed by fn.
func with(fn func(in *Input)) Input {
	in := base()
	fn(&in)
	return in
}

func enable(p *Preset, ident string, on bool) {
	for i := range p.Prompts {
		if p.Prompts[i].Identifier == ident {
			p.Prompts[i].Enabled = on
		}
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	cases := map[string]Input{
		"normal": base(),
		"card_overrides": with(func(in *Input) {
			in.Card.SystemPrompt = "{{original}} Stay in character as {{char}}."
			in.Card.PostHistoryInstructions = "Reply in under 100 words. {{original}}"
			in.Card.DepthPrompt = DepthPrompt{Text: "{{char}} never lies.", Depth: 2, Role: "system"}
		}),
		"persona_top_an": with(func(in *Input) {
			in.Persona.Position = PersonaTopAN
			in.AuthorNote = AuthorNote{Prompt: "Keep the mood calm.", Interval: 1, Depth: 4, Position: PositionInChat}
		}),
		"persona_bottom_an": with(func(in *Input) {
			in.Persona.Position = PersonaBottomAN
			in.AuthorNote = AuthorNote{Prompt: "Keep the mood calm.", Interval: 1, Depth: 1, Position: PositionInChat, Role: RoleUser}
		}),
		"persona_at_depth": with(func(in *Input) {
			in.Persona.Position = PersonaAtDepth
			in.Persona.Depth = 1
			in.Persona.Role = RoleUser
		}),
		"persona_none": with(func(in *Input) { in.Persona.Position = PersonaNowhere }),
		"extension_prompts": with(func(in *Input) {
			in.ExtensionPrompts = []ExtensionPrompt{
				{Key: "zeta", Value: "Z in chat at 0", Position: PositionInChat, Depth: 0},
				{Key: "alpha", Value: "A in chat at 0", Position: PositionInChat, Depth: 0},
				{Key: "user-side", Value: "as the user, depth 0", Position: PositionInChat, Depth: 0, Role: RoleUser},
				{Key: "assistant-side", Value: "as the assistant, depth 0", Position: PositionInChat, Depth: 0, Role: RoleAssistant},
				{Key: "deep", Value: "past the start", Position: PositionInChat, Depth: 50},
				{Key: "mid", Value: "at depth 2", Position: PositionInChat, Depth: 2},
				{Key: "before", Value: "before main", Position: PositionBefore},
				{Key: "after", Value: "after main", Position: PositionIn},
				{Key: "none", Value: "never sent", Position: PositionNone},
				{Key: "empty", Value: "  ", Position: PositionInChat},
			}
		}),
		"extension_prompts_empty_history": with(func(in *Input) {
			in.History = Messages{}
			in.UserMessages = 0
			in.ExtensionPrompts = []ExtensionPrompt{
				{Key: "a", Value: "depth 0", Position: PositionInChat, Depth: 0},
				{Key: "b", Value: "depth 4", Position: PositionInChat, Depth: 4},
			}
		}),
		"author_note_interval_hit": with(func(in *Input) {
			in.UserMessages = 6
			in.AuthorNote = AuthorNote{Prompt: "[Style: {{char}} speaks softly]", Interval: 3, Depth: 2, Position: PositionInChat}
		}),
		"author_note_interval_miss": with(func(in *Input) {
			in.UserMessages = 4
			in.AuthorNote = AuthorNote{Prompt: "[Style: {{char}} speaks softly]", Interval: 3, Depth: 2, Position: PositionInChat}
		}),
		"author_note_disabled": with(func(in *Input) {
			in.AuthorNote = AuthorNote{Prompt: "never", Interval: 0, Depth: 2, Position: PositionInChat}
		}),
		"author_note_before_main": with(func(in *Input) {
			in.AuthorNote = AuthorNote{Prompt: "Note before the main prompt.", Interval: 1, Position: PositionBefore}
		}),
		"preset_reordered": with(func(in *Input) {
			p := &in.Preset
			p.Prompts[0], p.Prompts[3] = p.Prompts[3], p.Prompts[0] // description before main
			enable(p, IdentCharPersonality, false)
			enable(p, IdentEnhanceDefinitions, true)
			p.Prompts = append(p.Prompts,
				Item{Identifier: "custom-tone", Name: "Tone", Enabled: true, Role: "user", Content: "Write in present tense."},
				Item{Identifier: "custom-inchat", Name: "Reminder", Enabled: true, Role: "system", Content: "Remember: {{user}} is tired.", InChat: true, Depth: 1},
				Item{Identifier: "custom-off", Name: "Off", Enabled: false, Content: "not sent"},
			)
			p.Prompts[len(p.Prompts)-4].Content = "Post-history: stay brief."
		}),
		"names_and_merge": with(func(in *Input) {
			in.Preset.NamesInHistory = true
			in.Preset.MergeConsecutive = true
		}),
		"continue_nudge": with(func(in *Input) {
			in.Type = TypeContinue
			in.History = append(chat(), Message{Name: "Seraphina", Role: "assistant", Text: "Of course you may"})
		}),
		"continue_prefill": with(func(in *Input) {
			in.Type = TypeContinue
			in.Preset.ContinuePrefill = true
			in.History = append(chat(), Message{Name: "Seraphina", Role: "assistant", Text: "Of course you may"})
		}),
		"impersonate": with(func(in *Input) { in.Type = TypeImpersonate }),
		"quiet": with(func(in *Input) {
			in.Type = TypeQuiet
			in.QuietPrompt = "Summarize the chat so far in one sentence about {{char}}."
		}),
		"trim_oldest": with(func(in *Input) {
			in.Preset.MaxContext = 700
			in.Preset.Sampling.MaxTokens = 200
			in.History = longChat(40)
		}),
		"too_large_fixed": with(func(in *Input) {
			in.Preset.MaxContext = 600
			in.Preset.Sampling.MaxTokens = 550
		}),
		"tight_budget": with(func(in *Input) {
			in.Preset.MaxContext = 600
			in.Preset.Sampling.MaxTokens = 500
		}),
		"too_large_last_message": with(func(in *Input) {
			in.Preset.MaxContext = 1000
			in.Preset.Sampling.MaxTokens = 100
			in.History = Messages{{Name: "Wren", Role: "user", Text: repeatWords("long", 2000)}}
		}),
		"media_vision": with(func(in *Input) { in.History = mediaChat() }),
		"media_blind": with(func(in *Input) {
			in.History = mediaChat()
			in.Vision = false
		}),
		"media_small_window": with(func(in *Input) {
			in.History = mediaChat()
			in.Media = MediaPolicy{Window: 3, ImageMessages: 1}
		}),
		"world_info_slot": with(func(in *Input) {
			in.WorldInfo = WorldInfo{Before: "Lore before.", After: "Lore after.",
				Depth: []ExtensionPrompt{{Key: "customDepthWI_4_0", Value: "Lore at depth 4.", Position: PositionInChat, Depth: 4}}}
		}),
		"macros": with(func(in *Input) {
			in.History = Messages{
				{Name: "Wren", Role: "user", Text: "It is {{time}} on {{weekday}}, {{date}} ({{isodate}} {{isotime}}). {{// a comment}}Model: {{model}}. {{unknown}} stays. <BOT> and <user>."},
			}
			in.UserMessages = 1
		}),
		"sampling": with(func(in *Input) {
			t, p, k, mp, fp, pp, rp, seed := 0.8, 0.95, 40, 0.05, 0.2, 0.1, 1.1, int64(7)
			in.Preset.Sampling = Sampling{Temperature: &t, TopP: &p, TopK: &k, MinP: &mp, FrequencyPenalty: &fp,
				PresencePenalty: &pp, RepetitionPenalty: &rp, MaxTokens: 300, Stop: []string{"\nWren:"}, Seed: &seed, ReasoningEffort: "low"}
		}),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkGolden(t, name, in)
		})
	}
}

// longChat is n alternating messages, each a numbered sentence.
func longChat(n int) Messages {
	out := make(Messages, n)
	for i := range out {
		role, name := "user", "Wren"
		if i%2 == 1 {
			role, name = "assistant", "Seraphina"
		}
		out[i] = Message{Name: name, Role: role, Text: fmt.Sprintf("Message %d: the lanterns sway over the glade tonight.", i)}
	}
	return out
}

func repeatWords(w string, n int) string {
	b := make([]byte, 0, n*(len(w)+1))
	for i := 0; i < n; i++ {
		b = append(b, w...)
		b = append(b, ' ')
	}
	return string(b)
}

// mediaChat has images old and new, a duplicate, an image from the
// character, and a file.
func mediaChat() Messages {
	img := func(url, name string) Media { return Media{Kind: "image", URL: url, Name: name, MIME: "image/png"} }
	return Messages{
		{Name: "Wren", Role: "user", Text: "An old map.", Media: []Media{img("/media/old.png", "old.png")}},
		{Name: "Seraphina", Role: "assistant", Text: "I see."},
		{Name: "Wren", Role: "user", Text: "The cat.", Media: []Media{img("/media/cat.png", "cat.png")}},
		{Name: "Wren", Role: "user", Text: "A dog.", Media: []Media{img("/media/dog.png", "dog.png")}},
		{Name: "Seraphina", Role: "assistant", Text: "Here is my drawing.", Media: []Media{img("/media/drawing.png", "drawing.png")}},
		{Name: "Wren", Role: "user", Text: "My notes.", Media: []Media{{Kind: "file", URL: "/media/notes.txt", Name: "notes.txt", MIME: "text/plain"}}},
		{Name: "Wren", Role: "user", Text: "The cat again, and a bird.", Media: []Media{img("/media/cat.png", "cat.png"), img("/media/bird.png", "bird.png")}},
	}
}
