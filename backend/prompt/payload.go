package prompt

import "hearth/backend/providers"

// Payload is a prompt as an OpenAI chat-completion request body: the shape
// SillyTavern's CHAT_COMPLETION_PROMPT_READY and the agent's prompt
// snapshots carry, whatever wire format the connection then speaks.
type Payload struct {
	Model             string           `json:"model"`
	Messages          []PayloadMessage `json:"messages"`
	Stream            bool             `json:"stream"`
	Temperature       *float64         `json:"temperature,omitempty"`
	TopP              *float64         `json:"top_p,omitempty"`
	TopK              *int             `json:"top_k,omitempty"`
	MinP              *float64         `json:"min_p,omitempty"`
	FrequencyPenalty  *float64         `json:"frequency_penalty,omitempty"`
	PresencePenalty   *float64         `json:"presence_penalty,omitempty"`
	RepetitionPenalty *float64         `json:"repetition_penalty,omitempty"`
	MaxTokens         *int             `json:"max_tokens,omitempty"`
	Stop              []string         `json:"stop,omitempty"`
	Seed              *int64           `json:"seed,omitempty"`
	ReasoningEffort   string           `json:"reasoning_effort,omitempty"`
}

// PayloadMessage is one message of a Payload; Content is a string, or a
// list of parts when the message carries images.
type PayloadMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
	Name    string `json:"name,omitempty"`
	// Source says which part of the prompt the message came from (a
	// Hearth addition; providers never see it).
	Source string `json:"source,omitempty"`
}

// ContentPart is one part of a message with images.
type ContentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL is an image part's address.
type ImageURL struct {
	URL string `json:"url"`
}

// Payload returns p as a chat-completion body for model.
func (p *Prompt) Payload(model string) Payload {
	s := p.Sampling
	out := Payload{
		Model: model, Stream: true, Messages: make([]PayloadMessage, 0, len(p.Blocks)),
		Temperature: s.Temperature, TopP: s.TopP, TopK: s.TopK, MinP: s.MinP,
		FrequencyPenalty: s.FrequencyPenalty, PresencePenalty: s.PresencePenalty,
		RepetitionPenalty: s.RepetitionPenalty, MaxTokens: s.MaxTokens, Stop: s.Stop,
		Seed: s.Seed, ReasoningEffort: s.ReasoningEffort,
	}
	for _, b := range p.Blocks {
		out.Messages = append(out.Messages, payloadMessage(b))
	}
	return out
}

func payloadMessage(b Block) PayloadMessage {
	m := b.Message
	pm := PayloadMessage{Role: string(m.Role), Content: m.Content, Name: m.Name, Source: b.Source}
	if len(m.Parts) > 0 {
		parts := make([]ContentPart, 0, len(m.Parts))
		for _, part := range m.Parts {
			if part.ImageURL != "" {
				parts = append(parts, ContentPart{Type: "image_url", ImageURL: &ImageURL{URL: part.ImageURL}})
			} else {
				parts = append(parts, ContentPart{Type: "text", Text: part.Text})
			}
		}
		pm.Content = parts
	}
	return pm
}

// Request returns p as a provider request.
func (p *Prompt) Request(model string) providers.Request {
	return providers.Request{Model: model, Messages: p.Messages(), Sampling: p.Sampling}
}
