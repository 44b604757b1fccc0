package providers

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"google.golang.org/genai"

	"hearth/backend/apperr"
)

// params builds a GenerateContent request. As for Anthropic, the leading
// system messages are the system instruction and later ones user turns;
// a tool result names its function, which Gemini matches by name.
func (p *geminiProvider) params(req Request) (string, []*genai.Content, *genai.GenerateContentConfig, error) {
	model, err := p.cfg.modelFor(req)
	if err != nil {
		return "", nil, nil, err
	}
	config := &genai.GenerateContentConfig{}
	var contents []*genai.Content
	names := map[string]string{} // tool call id → function name
	lead := true
	for i, m := range req.Messages {
		if lead && m.Role == RoleSystem {
			if config.SystemInstruction == nil {
				config.SystemInstruction = &genai.Content{}
			}
			config.SystemInstruction.Parts = append(config.SystemInstruction.Parts, &genai.Part{Text: m.Content})
			continue
		}
		lead = false
		c, err := geminiContent(m, names)
		if err != nil {
			return "", nil, nil, apperr.Invalid("message %d: %s", i, err.Error())
		}
		contents = append(contents, c)
	}
	if len(contents) == 0 {
		return "", nil, nil, apperr.Invalid("no messages to send (besides the system prompt)")
	}
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for i, t := range req.Tools {
			if t.Name == "" {
				return "", nil, nil, apperr.Invalid("tool %d: a tool needs a name", i)
			}
			fd := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if len(t.Parameters) > 0 {
				var schema map[string]any
				if err := json.Unmarshal(t.Parameters, &schema); err != nil {
					return "", nil, nil, apperr.Invalid("tool %d (%s): its parameters are not a JSON object", i, t.Name)
				}
				fd.ParametersJsonSchema = schema
			}
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, fd)
		}
		config.Tools = []*genai.Tool{tool}
	}
	geminiSampling(config, req.Sampling)
	return model, contents, config, nil
}

func geminiSampling(c *genai.GenerateContentConfig, s Sampling) {
	f32 := func(v *float64) *float32 {
		if v == nil {
			return nil
		}
		x := float32(*v)
		return &x
	}
	c.Temperature = f32(s.Temperature)
	c.TopP = f32(s.TopP)
	c.PresencePenalty = f32(s.PresencePenalty)
	c.FrequencyPenalty = f32(s.FrequencyPenalty)
	if s.TopK != nil {
		k := float32(*s.TopK)
		c.TopK = &k
	}
	if s.MaxTokens != nil {
		c.MaxOutputTokens = int32(*s.MaxTokens)
	}
	if s.Seed != nil {
		seed := int32(*s.Seed)
		c.Seed = &seed
	}
	c.StopSequences = s.Stop
	if budget, ok := geminiThinkingBudgets[s.ReasoningEffort]; ok {
		c.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: &budget}
	}
}

func geminiContent(m Message, names map[string]string) (*genai.Content, error) {
	switch m.Role {
	case RoleSystem:
		return &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: m.Content}}}, nil
	case RoleUser:
		c := &genai.Content{Role: genai.RoleUser}
		if len(m.Parts) == 0 {
			c.Parts = []*genai.Part{{Text: m.Content}}
			return c, nil
		}
		for _, part := range m.Parts {
			if part.ImageURL == "" {
				c.Parts = append(c.Parts, &genai.Part{Text: part.Text})
				continue
			}
			blob, err := geminiImage(part.ImageURL)
			if err != nil {
				return nil, err
			}
			c.Parts = append(c.Parts, &genai.Part{InlineData: blob})
		}
		return c, nil
	case RoleAssistant:
		c := &genai.Content{Role: genai.RoleModel}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			c.Parts = append(c.Parts, &genai.Part{Text: m.Content})
		}
		for _, tc := range m.ToolCalls {
			args := map[string]any{}
			if strings.TrimSpace(tc.Arguments) != "" {
				if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
					return nil, errString("the arguments of tool call " + tc.ID + " are not a JSON object")
				}
			}
			names[tc.ID] = tc.Name
			c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: tc.ID, Name: tc.Name, Args: args}})
		}
		return c, nil
	case RoleTool:
		name, ok := names[m.ToolCallID]
		if !ok {
			return nil, errString("a tool message must answer a call of an earlier assistant message")
		}
		return &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
			ID: m.ToolCallID, Name: name, Response: map[string]any{"output": m.Content}}}}}, nil
	default:
		return nil, errString("unknown role " + string(m.Role))
	}
}

// geminiImage is an inline image from a data: URL; Gemini fetches no
// URLs of its own.
func geminiImage(url string) (*genai.Blob, error) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return nil, errString("Gemini takes images inline: use a data: URL")
	}
	meta, data, ok := strings.Cut(rest, ",")
	mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isBase64 || mediaType == "" {
		return nil, errString("an image data: URL must be base64 with a media type")
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, errString("an image data: URL is not valid base64")
	}
	return &genai.Blob{MIMEType: mediaType, Data: raw}, nil
}

// jsonText is v as JSON text ("{}" for nil).
func jsonText(v map[string]any) (string, error) {
	if v == nil {
		return "{}", nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}
