package prompt

import (
	"slices"

	"hearth/backend/providers"
)

// SourceHook is the source of a message a prompt hook added or rewrote
// (SillyTavern's CHAT_COMPLETION_PROMPT_READY handlers, backend/generate).
const SourceHook = "promptHook"

// Replace makes msgs p's messages: what a window's prompt hook left of
// them. A message equal to one of p's keeps that block, its source and
// its count (each block is matched once, in order); any other is a
// SourceHook block counted with c. The token counts are summed again;
// what the assembler dropped to fit stays as it reported it. A prompt
// whose last message is no longer the assistant's is no longer a prefill.
func (p *Prompt) Replace(msgs []providers.Message, c Counter) {
	used := make([]bool, len(p.Blocks))
	next := 0 // the first block not yet matched: hooks mostly keep the order
	blocks := make([]Block, 0, len(msgs))
	for _, m := range msgs {
		j := -1
		for k := next; k < len(p.Blocks) && j < 0; k++ {
			if !used[k] && SameMessage(p.Blocks[k].Message, m) {
				j = k
			}
		}
		for k := 0; k < next && j < 0; k++ {
			if !used[k] && SameMessage(p.Blocks[k].Message, m) {
				j = k
			}
		}
		if j >= 0 {
			used[j] = true
			if j == next {
				next++
			}
			blocks = append(blocks, p.Blocks[j])
			continue
		}
		b := Block{Source: SourceHook, Message: m}
		b.Tokens = blockCost(&b, c)
		blocks = append(blocks, b)
	}
	p.Blocks = blocks
	if p.Prefill && (len(blocks) == 0 || blocks[len(blocks)-1].Message.Role != providers.RoleAssistant) {
		p.Prefill = false
	}
	p.Tokens.Total, p.Tokens.Parts = tokensReply, nil
	p.Tokens.sum(blocks)
}

// SameMessage says whether a and b send the same thing: role, name, text
// and parts (tool calls play no part in an assembled prompt).
func SameMessage(a, b providers.Message) bool {
	return a.Role == b.Role && a.Name == b.Name && a.Content == b.Content && slices.Equal(a.Parts, b.Parts)
}

// blockCost counts b's tokens: its text and parts, and the framing of a
// message and of a name.
func blockCost(b *Block, c Counter) int {
	n := tokensPerMessage + c.Count(b.Message.Content)
	for _, p := range b.Message.Parts {
		if p.ImageURL != "" {
			n += tokensPerImage
		} else {
			n += c.Count(p.Text)
		}
	}
	if b.Message.Name != "" {
		n += tokensPerName
	}
	return n
}
