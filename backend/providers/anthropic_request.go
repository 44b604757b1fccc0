package providers

import (
	"encoding/json"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"hearth/backend/apperr"
)

// params builds the Messages request of req. The system messages that
// open the conversation become the system prompt; later ones (an Author's
// Note at depth, say) go in as user turns, since the Messages API has no
// system role inside the conversation.
func (p *anthropicProvider) params(req Request) (anthropic.MessageNewParams, error) {
	model, err := p.cfg.modelFor(req)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	params := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: defaultAnthropicMaxTokens}
	lead := true
	for i, m := range req.Messages {
		if lead && m.Role == RoleSystem {
			params.System = append(params.System, anthropic.TextBlockParam{Text: m.Content})
			continue
		}
		lead = false
		mp, err := anthropicMessageParam(m)
		if err != nil {
			return anthropic.MessageNewParams{}, apperr.Invalid("message %d: %s", i, err.Error())
		}
		params.Messages = append(params.Messages, mp)
	}
	if len(params.Messages) == 0 {
		return anthropic.MessageNewParams{}, apperr.Invalid("no messages to send (besides the system prompt)")
	}
	for i, t := range req.Tools {
		tool, err := anthropicTool(t)
		if err != nil {
			return anthropic.MessageNewParams{}, apperr.Invalid("tool %d (%s): %s", i, t.Name, err.Error())
		}
		params.Tools = append(params.Tools, tool)
	}
	s := req.Sampling
	if s.MaxTokens != nil {
		params.MaxTokens = int64(*s.MaxTokens)
	}
	if budget, ok := thinkingBudgets[s.ReasoningEffort]; ok {
		params.Thinking = anthropic.ThinkingConfigParamOfEnabled(budget)
		params.MaxTokens += budget
	} else {
		// Extended thinking takes no temperature, top_p or top_k.
		if s.Temperature != nil {
			params.Temperature = anthropic.Float(*s.Temperature)
		}
		if s.TopP != nil {
			params.TopP = anthropic.Float(*s.TopP)
		}
		if s.TopK != nil {
			params.TopK = anthropic.Int(int64(*s.TopK))
		}
	}
	params.StopSequences = s.Stop
	return params, nil
}

func anthropicMessageParam(m Message) (anthropic.MessageParam, error) {
	switch m.Role {
	case RoleSystem:
		return anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)), nil
	case RoleUser:
		if len(m.Parts) == 0 {
			return anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)), nil
		}
		blocks := make([]anthropic.ContentBlockParamUnion, 0, len(m.Parts))
		for _, part := range m.Parts {
			if part.ImageURL == "" {
				blocks = append(blocks, anthropic.NewTextBlock(part.Text))
				continue
			}
			img, err := anthropicImage(part.ImageURL)
			if err != nil {
				return anthropic.MessageParam{}, err
			}
			blocks = append(blocks, img)
		}
		return anthropic.NewUserMessage(blocks...), nil
	case RoleAssistant:
		var blocks []anthropic.ContentBlockParamUnion
		if m.Content != "" || len(m.ToolCalls) == 0 {
			blocks = append(blocks, anthropic.NewTextBlock(m.Content))
		}
		for _, tc := range m.ToolCalls {
			var input any = map[string]any{}
			if strings.TrimSpace(tc.Arguments) != "" {
				if err := json.Unmarshal([]byte(tc.Arguments), &input); err != nil {
					return anthropic.MessageParam{}, errString("the arguments of tool call " + tc.ID + " are not JSON")
				}
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
		}
		return anthropic.NewAssistantMessage(blocks...), nil
	case RoleTool:
		if m.ToolCallID == "" {
			return anthropic.MessageParam{}, errString("a tool message needs the id of the call it answers")
		}
		return anthropic.NewUserMessage(anthropic.NewToolResultBlock(m.ToolCallID, m.Content, false)), nil
	default:
		return anthropic.MessageParam{}, errString("unknown role " + string(m.Role))
	}
}

// anthropicImage is an image block from a data: URL (sent inline) or an
// https: URL (fetched by Anthropic).
func anthropicImage(url string) (anthropic.ContentBlockParamUnion, error) {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		meta, data, ok := strings.Cut(rest, ",")
		mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
		if !ok || !isBase64 || mediaType == "" {
			return anthropic.ContentBlockParamUnion{}, errString("an image data: URL must be base64 with a media type")
		}
		return anthropic.NewImageBlockBase64(mediaType, data), nil
	}
	if strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://") {
		return anthropic.NewImageBlock(anthropic.URLImageSourceParam{URL: url}), nil
	}
	return anthropic.ContentBlockParamUnion{}, errString("an image must be a data: or http(s): URL")
}

func anthropicTool(t Tool) (anthropic.ToolUnionParam, error) {
	if t.Name == "" {
		return anthropic.ToolUnionParam{}, errString("a tool needs a name")
	}
	schema := anthropic.ToolInputSchemaParam{}
	if len(t.Parameters) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(t.Parameters, &obj); err != nil {
			return anthropic.ToolUnionParam{}, errString("its parameters are not a JSON object: " + err.Error())
		}
		schema.Properties = obj["properties"]
		if req, ok := obj["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					schema.Required = append(schema.Required, s)
				}
			}
		}
		extra := map[string]any{}
		for k, v := range obj {
			if k != "type" && k != "properties" && k != "required" {
				extra[k] = v
			}
		}
		if len(extra) > 0 {
			schema.ExtraFields = extra
		}
	}
	tool := anthropic.ToolUnionParamOfTool(schema, t.Name)
	if t.Description != "" {
		tool.OfTool.Description = anthropic.String(t.Description)
	}
	return tool, nil
}
