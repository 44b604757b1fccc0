package prompt

import (
	"hearth/backend/apperr"
	"hearth/backend/providers"
)

// CodeTooLarge: the parts that must be sent do not fit in the context.
const CodeTooLarge = "prompt.too_large"

// Prompt is an assembled request.
type Prompt struct {
	// Blocks are the messages in order, each with where it came from.
	Blocks   []Block
	Sampling providers.Sampling
	Tokens   TokenCounts
	// Prefill is set when the last block is an assistant message the
	// model continues (continue with prefill): the reply is appended to it.
	Prefill bool
}

// Block is one message of the prompt and the part of the prompt order (or
// the injection) it came from.
type Block struct {
	// Source is a prompt-order identifier ("main", "chatHistory", …), an
	// extension prompt's key, or one of "authorsNote", "depthPrompt",
	// "personaDepth", "newChat", "examples", "continueNudge",
	// "impersonate", "quietPrompt", "continuePrefill".
	Source  string
	Message providers.Message
	Tokens  int
}

// TokenCounts is the budget of a prompt.
type TokenCounts struct {
	// Total is what the prompt costs, framing included.
	Total int `json:"total"`
	// MaxContext and MaxTokens are the preset's; Budget is what the
	// prompt may use: MaxContext − MaxTokens.
	MaxContext int `json:"maxContext"`
	MaxTokens  int `json:"maxTokens"`
	Budget     int `json:"budget"`
	// Parts sums the tokens per source, in prompt order.
	Parts []PartTokens `json:"parts"`
	// HistoryMessages were sent; HistoryDropped did not fit (oldest first).
	HistoryMessages int `json:"historyMessages"`
	HistoryDropped  int `json:"historyDropped"`
	// ExamplesDropped counts example dialogues that did not fit.
	ExamplesDropped int `json:"examplesDropped"`
	// Tokenizer names the vocabulary counted with.
	Tokenizer string `json:"tokenizer"`
}

// PartTokens is one source's share of the prompt.
type PartTokens struct {
	Source string `json:"source"`
	Tokens int    `json:"tokens"`
}

// Messages returns the prompt's messages.
func (p *Prompt) Messages() []providers.Message {
	out := make([]providers.Message, len(p.Blocks))
	for i, b := range p.Blocks {
		out[i] = b.Message
	}
	return out
}

func tooLarge(what string, need, budget int, in *Input) error {
	return apperr.New(CodeTooLarge, "%s takes %d tokens, but only %d fit (context %d minus reply %d); raise the context size, lower the reply length, or shorten it",
		what, need, budget, in.Preset.MaxContext, in.Preset.Sampling.MaxTokens).
		WithDetails(map[string]any{"part": what, "tokens": need, "budget": budget,
			"maxContext": in.Preset.MaxContext, "maxTokens": in.Preset.Sampling.MaxTokens})
}
