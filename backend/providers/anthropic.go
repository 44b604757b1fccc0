package providers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"hearth/backend/apperr"
)

// KindAnthropic is Anthropic's Messages API.
const KindAnthropic = "anthropic"

// defaultAnthropicMaxTokens is max_tokens when the preset sets none: the
// Messages API requires it.
const defaultAnthropicMaxTokens = 4096

// thinkingBudgets maps a reasoning effort to Claude's thinking budget in
// tokens; the budget is added to max_tokens, which must exceed it.
var thinkingBudgets = map[string]int64{"minimal": 1024, "low": 2048, "medium": 8192, "high": 24576}

// anthropicErrorStatus is the HTTP status each error type of the Messages
// API stands for, for errors sent as stream events after a 200.
var anthropicErrorStatus = map[string]int{
	"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403, "not_found_error": 404,
	"request_too_large": 413, "rate_limit_error": 429, "api_error": 500, "timeout_error": 504, "overloaded_error": 529,
}

type anthropicProvider struct {
	messages anthropic.MessageService
	models   anthropic.ModelService
	cfg      Config
}

func newAnthropic(cfg Config) (*anthropicProvider, error) {
	base, err := baseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if base == "" {
		base = DefaultAnthropicBaseURL
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(newHTTPClient(cfg.Transport)),
		option.WithMaxRetries(0),
		option.WithAPIKey(cfg.APIKey),
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	// Built directly, not through anthropic.NewClient, which would read
	// ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from the environment.
	return &anthropicProvider{
		messages: anthropic.NewMessageService(opts...),
		models:   anthropic.NewModelService(opts...),
		cfg:      cfg,
	}, nil
}

// Stream implements Provider.
func (p *anthropicProvider) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Result, error) {
	params, err := p.params(req)
	if err != nil {
		return Result{}, err
	}
	ctx, watch := watchIdle(ctx, p.cfg.IdleTimeout)
	defer watch.stop()
	return drain(ctx, watch, p.messages.NewStreaming(ctx, params), &anthropicAccumulator{}, onDelta, p.failure)
}

func (p *anthropicProvider) failure(ctx context.Context, err error) error {
	if err := interrupted(ctx, p.cfg); err != nil {
		return err
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		msg := errorText(apiErr.RawJSON())
		status := apiErr.StatusCode
		if s, ok := anthropicErrorStatus[string(apiErr.Type())]; ok && (status < 400 || status == 0) {
			status = s // an error event after a 200
		}
		var h http.Header
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		if status < 400 {
			return apperr.New(CodeRequestFailed, "the provider reported an error mid-stream: %s", shorten(msg)).
				WithDetails(map[string]any{"providerMessage": shorten(msg)})
		}
		return statusError(status, h, msg, time.Now())
	}
	return transportError(err)
}

// Models implements Provider.
func (p *anthropicProvider) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, p.cfg.IdleTimeout, errStalled)
	defer cancel()
	page, err := p.models.List(ctx, anthropic.ModelListParams{Limit: anthropic.Int(1000)})
	if err != nil {
		return nil, p.failure(ctx, err)
	}
	ids := make([]string, 0, len(page.Data))
	for _, m := range page.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

// anthropicAccumulator builds a Result from Messages stream events.
type anthropicAccumulator struct {
	reply
	calls   map[int64]*ToolCall
	order   []int64
	usage   Usage
	finish  string
	model   string
	stopped bool
}

func (a *anthropicAccumulator) add(ev anthropic.MessageStreamEventUnion) (Delta, error) {
	var d Delta
	switch ev.Type {
	case "message_start":
		a.model = ev.Message.Model
		a.usage.InputTokens = ev.Message.Usage.InputTokens + ev.Message.Usage.CacheReadInputTokens + ev.Message.Usage.CacheCreationInputTokens
		a.usage.OutputTokens = ev.Message.Usage.OutputTokens
	case "content_block_start":
		if ev.ContentBlock.Type == "tool_use" {
			if a.calls == nil {
				a.calls = map[int64]*ToolCall{}
			}
			if len(a.calls) >= maxToolCalls {
				return d, apperr.New(CodeBadResponse, "the model made more than %d tool calls in one reply", maxToolCalls)
			}
			if _, ok := a.calls[ev.Index]; !ok {
				a.order = append(a.order, ev.Index)
			}
			a.calls[ev.Index] = &ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			d.Text = ev.Delta.Text
		case "thinking_delta":
			d.Reasoning = ev.Delta.Thinking
		case "input_json_delta":
			call, ok := a.calls[ev.Index]
			if !ok {
				return d, apperr.New(CodeBadResponse, "tool input for content block %d, which is not a tool call", ev.Index)
			}
			if len(call.Arguments)+len(ev.Delta.PartialJSON) > maxToolArgsBytes {
				return d, apperr.New(CodeBadResponse, "a tool call of the reply is larger than %d KiB", maxToolArgsBytes>>10)
			}
			call.Arguments += ev.Delta.PartialJSON
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.finish = string(ev.Delta.StopReason)
		}
		if ev.Usage.OutputTokens > 0 {
			a.usage.OutputTokens = ev.Usage.OutputTokens
		}
	case "message_stop":
		a.stopped = true
	}
	if err := a.reply.add(d); err != nil {
		return Delta{}, err
	}
	return d, nil
}

func (a *anthropicAccumulator) complete() bool { return a.stopped }

func (a *anthropicAccumulator) result() Result {
	r := Result{Text: a.text.String(), Reasoning: a.reasoning.String(), Usage: a.usage, FinishReason: a.finish, Model: a.model}
	for _, i := range a.order {
		c := *a.calls[i]
		if c.Arguments == "" {
			c.Arguments = "{}" // a call without input streams no input_json_delta
		}
		r.ToolCalls = append(r.ToolCalls, c)
	}
	return r
}
