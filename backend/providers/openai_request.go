package providers

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"hearth/backend/apperr"
)

// params builds the Chat Completions request of req.
func (p *openAI) params(req Request) (openai.ChatCompletionNewParams, error) {
	model, err := p.cfg.modelFor(req)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	if len(req.Messages) == 0 {
		return openai.ChatCompletionNewParams{}, apperr.Invalid("no messages to send")
	}
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages))
	for i, m := range req.Messages {
		pm, err := openAIMessage(m)
		if err != nil {
			return openai.ChatCompletionNewParams{}, apperr.Invalid("message %d: %s", i, err.Error())
		}
		msgs = append(msgs, pm)
	}
	params := openai.ChatCompletionNewParams{
		Model:         model,
		Messages:      msgs,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	for i, t := range req.Tools {
		tool, err := openAITool(t)
		if err != nil {
			return openai.ChatCompletionNewParams{}, apperr.Invalid("tool %d (%s): %s", i, t.Name, err.Error())
		}
		params.Tools = append(params.Tools, tool)
	}
	p.sampling(&params, req.Sampling)
	return params, nil
}

// sampling sets the sampler fields; the ones OpenAI does not define go
// out as extra JSON fields, which servers that do not know them ignore.
func (p *openAI) sampling(params *openai.ChatCompletionNewParams, s Sampling) {
	if s.Temperature != nil {
		params.Temperature = openai.Float(*s.Temperature)
	}
	if s.TopP != nil {
		params.TopP = openai.Float(*s.TopP)
	}
	if s.FrequencyPenalty != nil {
		params.FrequencyPenalty = openai.Float(*s.FrequencyPenalty)
	}
	if s.PresencePenalty != nil {
		params.PresencePenalty = openai.Float(*s.PresencePenalty)
	}
	if s.MaxTokens != nil {
		if p.officialAPI {
			params.MaxCompletionTokens = openai.Int(int64(*s.MaxTokens))
		} else {
			params.MaxTokens = openai.Int(int64(*s.MaxTokens))
		}
	}
	if len(s.Stop) > 0 {
		params.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: s.Stop}
	}
	if s.Seed != nil {
		params.Seed = openai.Int(*s.Seed)
	}
	if s.ReasoningEffort != "" {
		params.ReasoningEffort = shared.ReasoningEffort(s.ReasoningEffort)
	}
	extra := map[string]any{}
	if s.TopK != nil {
		extra["top_k"] = *s.TopK
	}
	if s.MinP != nil {
		extra["min_p"] = *s.MinP
	}
	if s.RepetitionPenalty != nil {
		extra["repetition_penalty"] = *s.RepetitionPenalty
	}
	if len(extra) > 0 {
		params.SetExtraFields(extra)
	}
}

// openAIMessage converts one message.
func openAIMessage(m Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case RoleSystem:
		msg := openai.SystemMessage(m.Content)
		if m.Name != "" {
			msg.OfSystem.Name = openai.String(m.Name)
		}
		return msg, nil
	case RoleUser:
		var msg openai.ChatCompletionMessageParamUnion
		if len(m.Parts) > 0 {
			parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(m.Parts))
			for _, part := range m.Parts {
				if part.ImageURL != "" {
					parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: part.ImageURL}))
				} else {
					parts = append(parts, openai.TextContentPart(part.Text))
				}
			}
			msg = openai.UserMessage(parts)
		} else {
			msg = openai.UserMessage(m.Content)
		}
		if m.Name != "" {
			msg.OfUser.Name = openai.String(m.Name)
		}
		return msg, nil
	case RoleAssistant:
		a := &openai.ChatCompletionAssistantMessageParam{}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = openai.String(m.Content)
		}
		if m.Name != "" {
			a.Name = openai.String(m.Name)
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
				},
			})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: a}, nil
	case RoleTool:
		if m.ToolCallID == "" {
			return openai.ChatCompletionMessageParamUnion{}, errString("a tool message needs the id of the call it answers")
		}
		return openai.ToolMessage(m.Content, m.ToolCallID), nil
	default:
		return openai.ChatCompletionMessageParamUnion{}, errString("unknown role " + string(m.Role))
	}
}

// openAITool converts one tool definition.
func openAITool(t Tool) (openai.ChatCompletionToolUnionParam, error) {
	if t.Name == "" {
		return openai.ChatCompletionToolUnionParam{}, errString("a tool needs a name")
	}
	def := shared.FunctionDefinitionParam{Name: t.Name}
	if t.Description != "" {
		def.Description = openai.String(t.Description)
	}
	if len(t.Parameters) > 0 {
		var schema map[string]any
		if err := json.Unmarshal(t.Parameters, &schema); err != nil {
			return openai.ChatCompletionToolUnionParam{}, errString("its parameters are not a JSON object: " + err.Error())
		}
		def.Parameters = schema
	}
	return openai.ChatCompletionFunctionTool(def), nil
}

// errString is a plain error with a fixed message.
type errString string

func (e errString) Error() string { return string(e) }
