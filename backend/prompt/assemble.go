package prompt

import (
	"sort"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/providers"
)

// Sources of blocks that are not prompt-order identifiers.
const (
	SourceAuthorsNote     = "authorsNote"
	SourceDepthPrompt     = "depthPrompt"
	SourcePersonaDepth    = "personaDepth"
	SourceNewChat         = "newChat"
	SourceContinueNudge   = "continueNudge"
	SourceContinuePrefill = "continuePrefill"
	SourceImpersonate     = "impersonate"
	SourceQuiet           = "quietPrompt"
	SourceGroupNudge      = "groupNudge"
)

// SillyTavern's extension-prompt keys of the built-in injections: the key
// order decides how texts at one depth and role combine, so they keep
// SillyTavern's keys.
const (
	keyAuthorsNote = "2_floating_prompt"
	keyDepthPrompt = "DEPTH_PROMPT"
	keyPersona     = "PERSONA_DESCRIPTION"
)

// Assemble builds the prompt of in, counting tokens with c.
//
// Order: the preset's enabled prompt-order items, each from its source;
// extension prompts (and an Author's Note) before or after the main
// prompt; the history with in-chat injections at their depths; for
// continue, impersonate and quiet a last instruction. The budget
// (maxContext − maxTokens) goes first to everything but history and
// examples — if that alone does not fit, the error says so — then to the
// history from the newest message back, then to example dialogues.
func Assemble(in Input, c Counter) (*Prompt, error) {
	a := &assembler{in: &in, c: c}
	return a.run()
}

type assembler struct {
	in      *Input
	c       Counter
	m       *Macros
	histLen int      // history messages eligible (the continued one excluded)
	cont    *Message // the message a continue extends
}

// item is one placed piece before budgeting: a block, or the history or
// examples slot.
type item struct {
	block *Block
	slot  string // "", IdentChatHistory or IdentDialogueExamples
}

func (a *assembler) run() (*Prompt, error) {
	in := a.in
	if in.History == nil {
		in.History = Messages(nil)
	}
	a.histLen = in.History.Len()
	if in.Type == TypeContinue {
		if a.histLen == 0 {
			return nil, apperr.Invalid("there is no message to continue")
		}
		last, err := in.History.At(a.histLen - 1)
		if err != nil {
			return nil, err
		}
		a.cont = &last
		// With prefill the message leaves the history to end the prompt
		// as the assistant's unfinished turn; with a nudge it stays where
		// it is and an instruction follows.
		if in.Preset.ContinuePrefill && last.Role == "assistant" {
			a.histLen--
		}
	}
	if err := a.macros(); err != nil {
		return nil, err
	}

	items, err := a.order()
	if err != nil {
		return nil, err
	}
	inj := a.injections()
	tail := a.tail()

	budget := in.Preset.MaxContext - in.Preset.Sampling.MaxTokens
	fixed := tokensReply
	for _, it := range items {
		if it.block != nil {
			fixed += a.cost(it.block)
		}
	}
	for i := range inj {
		fixed += a.cost(&inj[i].block)
	}
	var newChat, nudge *Block
	newChatText := in.Preset.NewChatPrompt
	if in.Group != nil {
		newChatText = in.Preset.NewGroupChatPrompt
	}
	if text := a.m.Expand(newChatText); strings.TrimSpace(text) != "" && hasSlot(items, IdentChatHistory) {
		newChat = &Block{Source: SourceNewChat, Message: providers.Message{Role: providers.RoleSystem, Content: text}}
		fixed += a.cost(newChat)
	}
	// The group nudge ends the history (SillyTavern puts it at the end of
	// its chatHistory collection, for every type but impersonate).
	if in.Group != nil && in.Type != TypeImpersonate && hasSlot(items, IdentChatHistory) {
		if nudge = a.block(SourceGroupNudge, "system", a.m.Expand(in.Preset.GroupNudge)); nudge != nil {
			fixed += a.cost(nudge)
		}
	}
	for i := range tail {
		fixed += a.cost(&tail[i])
	}
	if in.Preset.MaxContext > 0 && fixed > budget {
		return nil, tooLarge("the prompt without the chat history", fixed, budget, in)
	}
	left := budget - fixed
	if in.Preset.MaxContext <= 0 {
		left = int(^uint(0) >> 1)
	}

	var hist []Block
	dropped := 0
	if hasSlot(items, IdentChatHistory) {
		hist, dropped, left, err = a.history(left)
		if err != nil {
			return nil, err
		}
	}
	var examples []Block
	examplesDropped := 0
	if hasSlot(items, IdentDialogueExamples) {
		examples, examplesDropped = a.examples(left)
	}

	p := &Prompt{Sampling: sampling(in.Preset.Sampling)}
	for _, it := range items {
		switch it.slot {
		case "":
			p.Blocks = append(p.Blocks, *it.block)
		case IdentDialogueExamples:
			p.Blocks = append(p.Blocks, examples...)
		case IdentChatHistory:
			if newChat != nil {
				p.Blocks = append(p.Blocks, *newChat)
			}
			p.Blocks = append(p.Blocks, placeInjections(hist, inj)...)
			if nudge != nil {
				p.Blocks = append(p.Blocks, *nudge)
			}
		}
	}
	p.Blocks = append(p.Blocks, tail...)
	p.Prefill = len(tail) > 0 && tail[len(tail)-1].Source == SourceContinuePrefill
	p.Tokens = a.counts(p.Blocks, len(hist), dropped, examplesDropped)
	return p, nil
}

// macros prepares the macro values, which need the last messages.
func (a *assembler) macros() error {
	in := a.in
	var last, lastUser, lastChar string
	n := in.History.Len()
	for i, seen := n-1, 0; i >= 0 && seen < 100 && (lastUser == "" || lastChar == "" || i == n-1); i, seen = i-1, seen+1 {
		msg, err := in.History.At(i)
		if err != nil {
			return err
		}
		if i == n-1 {
			last = msg.Text
		}
		if msg.Role == "user" && lastUser == "" {
			lastUser = msg.Text
		}
		if msg.Role == "assistant" && lastChar == "" {
			lastChar = msg.Text
		}
	}
	a.m = NewMacros(in, last, lastUser, lastChar)
	return nil
}

// order turns the enabled prompt-order items into blocks and slots, with
// the extension prompts placed around the main prompt.
func (a *assembler) order() ([]item, error) {
	in := a.in
	before, after := a.aroundMain()
	var items []item
	placedAround := false
	for i := range in.Preset.Prompts {
		it := &in.Preset.Prompts[i]
		if !it.Enabled || it.InChat {
			continue
		}
		switch it.Identifier {
		case IdentChatHistory, IdentDialogueExamples:
			if !hasSlot(items, it.Identifier) {
				items = append(items, item{slot: it.Identifier})
			}
			continue
		}
		text := a.itemText(it)
		if it.Identifier == IdentMain {
			items = append(items, before...)
			if b := a.block(it.Identifier, it.Role, text); b != nil {
				items = append(items, item{block: b})
			}
			items = append(items, after...)
			placedAround = true
			continue
		}
		if b := a.block(it.Identifier, it.Role, text); b != nil {
			items = append(items, item{block: b})
		}
	}
	if !placedAround {
		items = append(append(before, after...), items...)
	}
	return items, nil
}

// itemText is the text of one prompt-order item.
func (a *assembler) itemText(it *Item) string {
	in := a.in
	switch it.Identifier {
	case IdentMain:
		return a.override(it.Content, in.Card.SystemPrompt)
	case IdentPostHistory:
		return a.override(it.Content, in.Card.PostHistoryInstructions)
	case IdentPersonaDescription:
		if in.Persona.Position != PersonaInPrompt {
			return ""
		}
		return a.m.Expand(in.Persona.Description)
	case IdentCharDescription:
		return a.m.Expand(in.Card.Description)
	case IdentCharPersonality:
		return a.m.Expand(in.Card.Personality)
	case IdentScenario:
		return a.m.Expand(in.Card.Scenario)
	case IdentWorldInfoBefore:
		return in.WorldInfo.Before
	case IdentWorldInfoAfter:
		return in.WorldInfo.After
	}
	if it.Marker {
		return "" // a marker this version does not know
	}
	return a.m.Expand(it.Content)
}

// override is the card's replacement for a preset prompt, where it has one.
func (a *assembler) override(preset, card string) string {
	own := a.m.Expand(preset)
	if strings.TrimSpace(card) == "" {
		return own
	}
	return a.m.With("original", own).Expand(card)
}

// block makes a block of text, or nil when there is nothing to send.
func (a *assembler) block(source, role, text string) *Block {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return &Block{Source: source, Message: providers.Message{Role: roleOf(role), Content: text}}
}

// aroundMain returns the extension prompts (and Author's Note) that go
// before and after the main prompt, in key order.
func (a *assembler) aroundMain() (before, after []item) {
	in := a.in
	eps := sortedPrompts(in.ExtensionPrompts)
	if note, ok := a.authorNote(); ok && (in.AuthorNote.Position == PositionBefore || in.AuthorNote.Position == PositionIn) {
		eps = append(eps, ExtensionPrompt{Key: keyAuthorsNote, Value: note, Position: in.AuthorNote.Position, Role: in.AuthorNote.Role})
		eps = sortedPrompts(eps)
	}
	for _, ep := range eps {
		source := ep.Key
		if ep.Key == keyAuthorsNote {
			source = SourceAuthorsNote
		}
		b := a.block(source, roleName(ep.Role), ep.Value)
		if b == nil {
			continue
		}
		switch ep.Position {
		case PositionBefore:
			before = append(before, item{block: b})
		case PositionIn:
			after = append(after, item{block: b})
		}
	}
	return before, after
}

// authorNote is the Author's Note text when this generation gets it:
// SillyTavern counts the user's messages and inserts every interval-th
// one (interval 1: always; 0: never), with a TOP_AN/BOTTOM_AN persona
// description around it.
func (a *assembler) authorNote() (string, bool) {
	in := a.in
	n := in.AuthorNote
	if n.Interval <= 0 {
		return "", false
	}
	if n.Interval > 1 && (in.UserMessages < n.Interval || in.UserMessages%n.Interval != 0) {
		return "", false
	}
	text := a.m.Expand(n.Prompt)
	if d := strings.TrimSpace(a.m.Expand(in.Persona.Description)); d != "" {
		switch in.Persona.Position {
		case PersonaTopAN:
			text = joinNonEmpty("\n", d, text)
		case PersonaBottomAN:
			text = joinNonEmpty("\n", text, d)
		}
	}
	return text, strings.TrimSpace(text) != ""
}

// tail is what goes after everything: the continue, impersonate or quiet
// instruction.
func (a *assembler) tail() []Block {
	in := a.in
	var out []Block
	add := func(source, role, text string) {
		if b := a.block(source, role, text); b != nil {
			out = append(out, *b)
		}
	}
	switch in.Type {
	case TypeContinue:
		if in.Preset.ContinuePrefill && a.cont.Role == "assistant" {
			add(SourceContinuePrefill, "assistant", a.m.Expand(a.cont.Text))
		} else {
			add(SourceContinueNudge, "system", a.m.With("lastchatmessage", a.cont.Text).Expand(in.Preset.ContinueNudge))
		}
	case TypeImpersonate:
		add(SourceImpersonate, "system", a.m.Expand(in.Preset.ImpersonationPrompt))
	case TypeQuiet:
		add(SourceQuiet, "system", a.m.Expand(in.QuietPrompt))
	}
	return out
}

// cost counts a block's tokens (and remembers them on it).
func (a *assembler) cost(b *Block) int {
	b.Tokens = blockCost(b, a.c)
	return b.Tokens
}

// counts sums the blocks per source.
func (a *assembler) counts(blocks []Block, sent, dropped, examplesDropped int) TokenCounts {
	in := a.in
	tc := TokenCounts{
		Total: tokensReply, MaxContext: in.Preset.MaxContext, MaxTokens: in.Preset.Sampling.MaxTokens,
		Budget:          in.Preset.MaxContext - in.Preset.Sampling.MaxTokens,
		HistoryMessages: sent, HistoryDropped: dropped, ExamplesDropped: examplesDropped,
		Tokenizer: Encoding,
	}
	tc.sum(blocks)
	return tc
}

// sum adds blocks' tokens to the total and to their sources' parts.
func (tc *TokenCounts) sum(blocks []Block) {
	at := map[string]int{}
	for _, b := range blocks {
		tc.Total += b.Tokens
		i, ok := at[b.Source]
		if !ok {
			i = len(tc.Parts)
			at[b.Source] = i
			tc.Parts = append(tc.Parts, PartTokens{Source: b.Source})
		}
		tc.Parts[i].Tokens += b.Tokens
	}
}

func hasSlot(items []item, slot string) bool {
	for _, it := range items {
		if it.slot == slot {
			return true
		}
	}
	return false
}

// sortedPrompts returns the non-empty prompts in key order (SillyTavern
// combines extension prompts by sorted key).
func sortedPrompts(eps []ExtensionPrompt) []ExtensionPrompt {
	out := make([]ExtensionPrompt, 0, len(eps))
	for _, ep := range eps {
		if strings.TrimSpace(ep.Value) != "" && ep.Position != PositionNone {
			out = append(out, ep)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func roleOf(role string) providers.Role {
	switch role {
	case "user":
		return providers.RoleUser
	case "assistant":
		return providers.RoleAssistant
	}
	return providers.RoleSystem
}

func roleName(role int) string {
	switch role {
	case RoleUser:
		return "user"
	case RoleAssistant:
		return "assistant"
	}
	return "system"
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

// sampling maps a preset's samplers onto the provider request.
func sampling(s Sampling) providers.Sampling {
	out := providers.Sampling{
		Temperature: s.Temperature, TopP: s.TopP, TopK: s.TopK, MinP: s.MinP,
		FrequencyPenalty: s.FrequencyPenalty, PresencePenalty: s.PresencePenalty,
		RepetitionPenalty: s.RepetitionPenalty, Stop: s.Stop, Seed: s.Seed,
		ReasoningEffort: s.ReasoningEffort,
	}
	if s.MaxTokens > 0 {
		n := s.MaxTokens
		out.MaxTokens = &n
	}
	return out
}
