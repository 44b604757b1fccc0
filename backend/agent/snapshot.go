package agent

import (
	"bytes"
	"encoding/json"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/generate"
	"hearth/backend/providers"
)

// Limits of a prompt snapshot handed in through the ABI.
const (
	maxSnapshotBytes    = 16 << 20
	maxSnapshotMessages = 20_000
)

// Snapshot is the prompt a run starts from (the seed's AgentPromptSnapshot):
// a chat-completion payload, and the lorebook entries activated for it.
type Snapshot struct {
	ChatCompletionPayload json.RawMessage `json:"chatCompletionPayload"`
	WorldInfoActivation   *Activation     `json:"worldInfoActivation,omitempty"`
}

// Activation is the lorebook activation of a snapshot: generate.dryRun's
// shape, which is the seed's.
type Activation = generate.WorldInfoActivation

// ActivationEntry is one activated lorebook entry.
type ActivationEntry = generate.WorldInfoEntry

// payload is the part of a chat-completion body a run reads.
type payload struct {
	Model             string           `json:"model"`
	Messages          []payloadMessage `json:"messages"`
	Temperature       *float64         `json:"temperature"`
	TopP              *float64         `json:"top_p"`
	TopK              *int             `json:"top_k"`
	MinP              *float64         `json:"min_p"`
	FrequencyPenalty  *float64         `json:"frequency_penalty"`
	PresencePenalty   *float64         `json:"presence_penalty"`
	RepetitionPenalty *float64         `json:"repetition_penalty"`
	MaxTokens         *int             `json:"max_tokens"`
	Stop              json.RawMessage  `json:"stop"`
	Seed              *int64           `json:"seed"`
	ReasoningEffort   string           `json:"reasoning_effort"`
	Tools             json.RawMessage  `json:"tools"`
	ToolChoice        json.RawMessage  `json:"tool_choice"`
	Functions         json.RawMessage  `json:"functions"`
}

type payloadMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type payloadPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// present reports whether a raw JSON field holds something.
func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null")) && !bytes.Equal(t, []byte("[]"))
}

// parsePayload checks a snapshot's payload and returns its messages as the
// provider layer's, the model it names and its sampling. Tools, tool
// choices and tool turns are refused: a run brings its own tools.
func parsePayload(raw json.RawMessage) ([]providers.Message, string, providers.Sampling, error) {
	var s providers.Sampling
	if len(raw) == 0 || !present(raw) {
		return nil, "", s, apperr.New(CodeChatCompletionRequired, "the prompt snapshot has no chatCompletionPayload")
	}
	if len(raw) > maxSnapshotBytes {
		return nil, "", s, apperr.Invalid("the prompt snapshot is larger than %d MiB", maxSnapshotBytes>>20)
	}
	var p payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, "", s, apperr.New(CodeChatCompletionRequired, "chatCompletionPayload is not a chat-completion body: %v", err)
	}
	if len(p.Messages) == 0 {
		return nil, "", s, apperr.New(CodeChatCompletionRequired, "chatCompletionPayload has no messages")
	}
	if len(p.Messages) > maxSnapshotMessages {
		return nil, "", s, apperr.Invalid("chatCompletionPayload has %d messages; at most %d", len(p.Messages), maxSnapshotMessages)
	}
	if present(p.Tools) || present(p.ToolChoice) || present(p.Functions) {
		return nil, "", s, apperr.New(CodeExternalTools, "the prompt snapshot carries its own tools; an agent run brings its own and cannot mix them in")
	}
	msgs := make([]providers.Message, 0, len(p.Messages))
	for i, m := range p.Messages {
		if m.Role == "tool" || m.Role == "function" || present(m.ToolCalls) || m.ToolCallID != "" {
			return nil, "", s, apperr.New(CodeExternalTools, "message %d of the prompt snapshot is a tool turn; an agent run cannot continue someone else's tool calls", i).
				WithDetails(map[string]any{"index": i})
		}
		msg, err := providerMessage(i, m)
		if err != nil {
			return nil, "", s, err
		}
		msgs = append(msgs, msg)
	}
	s = providers.Sampling{Temperature: p.Temperature, TopP: p.TopP, TopK: p.TopK, MinP: p.MinP,
		FrequencyPenalty: p.FrequencyPenalty, PresencePenalty: p.PresencePenalty, RepetitionPenalty: p.RepetitionPenalty,
		MaxTokens: p.MaxTokens, Seed: p.Seed, ReasoningEffort: p.ReasoningEffort}
	if present(p.Stop) {
		var one string
		if json.Unmarshal(p.Stop, &one) == nil {
			s.Stop = []string{one}
		} else if err := json.Unmarshal(p.Stop, &s.Stop); err != nil {
			return nil, "", s, apperr.Invalid("chatCompletionPayload.stop is neither a string nor a list of strings")
		}
	}
	return msgs, p.Model, s, nil
}

// providerMessage converts one payload message.
func providerMessage(i int, m payloadMessage) (providers.Message, error) {
	var role providers.Role
	switch m.Role {
	case "system", "developer":
		role = providers.RoleSystem
	case "user":
		role = providers.RoleUser
	case "assistant":
		role = providers.RoleAssistant
	default:
		return providers.Message{}, apperr.Invalid("message %d of the prompt snapshot has role %q (want system, user or assistant)", i, m.Role)
	}
	out := providers.Message{Role: role, Name: m.Name}
	var text string
	if json.Unmarshal(m.Content, &text) == nil {
		out.Content = text
		return out, nil
	}
	var parts []payloadPart
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return providers.Message{}, apperr.Invalid("message %d of the prompt snapshot: content is neither text nor a list of parts", i)
	}
	for j, p := range parts {
		switch {
		case p.Type == "text":
			out.Parts = append(out.Parts, providers.Part{Text: p.Text})
		case p.Type == "image_url" && p.ImageURL != nil:
			out.Parts = append(out.Parts, providers.Part{ImageURL: p.ImageURL.URL})
		default:
			return providers.Message{}, apperr.Invalid("message %d of the prompt snapshot: part %d has type %q (want text or image_url)", i, j, p.Type)
		}
	}
	return out, nil
}

// activationText renders an activation entry for worldinfo.read_activated.
func activationRef(i int, e ActivationEntry) string {
	return fmt.Sprintf("%d:%s:%v", i, e.World, e.UID)
}
