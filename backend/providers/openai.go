package providers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"hearth/backend/apperr"
)

// Bounds on what one streamed reply may hold: a server that sends more is
// broken or hostile, and the call fails instead of filling memory.
const (
	maxReplyBytes    = 8 << 20
	maxToolCalls     = 128
	maxToolArgsBytes = 1 << 20
	maxModels        = 10000
)

// openAI speaks the Chat Completions wire format, through the official SDK
// pointed at the connection's base URL (OpenAI, OpenRouter, DeepSeek,
// llama.cpp, Ollama, vLLM, LM Studio, KoboldCpp…).
type openAI struct {
	chat   openai.ChatCompletionService
	models openai.ModelService
	cfg    Config
	// officialAPI: api.openai.com wants max_completion_tokens, which
	// other servers do not all read; they get max_tokens.
	officialAPI bool
}

func newOpenAI(cfg Config) (*openAI, error) {
	base, err := baseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if base == "" {
		return nil, apperr.Invalid("the connection has no base URL")
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(newHTTPClient(cfg.Transport)),
		option.WithMaxRetries(0),
		option.WithAPIKey(cfg.APIKey),
		option.WithMiddleware(errorAnswers),
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	// The services are built directly, not through openai.NewClient,
	// which would add OPENAI_API_KEY, OPENAI_ORG_ID, OPENAI_CUSTOM_HEADERS…
	// from the environment: a connection sends what the user set, and a
	// local server never receives the user's OpenAI key.
	return &openAI{
		chat:        openai.NewChatCompletionService(opts...),
		models:      openai.NewModelService(opts...),
		cfg:         cfg,
		officialAPI: strings.Contains(base, "://api.openai.com"),
	}, nil
}

// errorAnswers hands answers of 400 and up to readErrorAnswer before the
// SDK reads them.
func errorAnswers(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res.StatusCode < 400 {
		return res, err
	}
	return nil, readErrorAnswer(res)
}

// Stream implements Provider.
func (p *openAI) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Result, error) {
	params, err := p.params(req)
	if err != nil {
		return Result{}, err
	}
	ctx, watch := watchIdle(ctx, p.cfg.IdleTimeout)
	defer watch.stop()
	return drain(ctx, watch, p.chat.NewStreaming(ctx, params), &accumulator{}, onDelta, p.failure)
}

// failure turns a stream's error into what the caller sees: the caller's
// own cancel as is, silence as model.timeout, the rest as model.* codes.
func (p *openAI) failure(ctx context.Context, err error) error {
	if err := interrupted(ctx, p.cfg); err != nil {
		return err
	}
	if ae := apperr.As(err); ae != nil {
		return ae // an error answer (errorAnswers)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return inStreamError(streamErr.Event.Data)
	}
	return transportError(err)
}

// inStreamError maps an error a server sent as a stream event
// ({"error": {"message", "code"}}) after answering 200.
func inStreamError(data []byte) *apperr.Error {
	var body struct {
		Error struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(data, &body)
	msg := body.Error.Message
	if msg == "" {
		msg = string(data)
	}
	if status, ok := describeStatus(body.Error.Code); ok {
		return statusError(status, nil, msg, time.Now())
	}
	return apperr.New(CodeRequestFailed, "the provider reported an error mid-stream: %s", shorten(msg)).
		WithDetails(map[string]any{"providerMessage": shorten(msg)})
}

// Models implements Provider.
func (p *openAI) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, p.cfg.IdleTimeout, errStalled)
	defer cancel()
	page, err := p.models.List(ctx)
	if err != nil {
		return nil, p.failure(ctx, err)
	}
	if len(page.Data) > maxModels {
		return nil, apperr.New(CodeBadResponse, "the provider listed %d models (at most %d are read)", len(page.Data), maxModels)
	}
	ids := make([]string, 0, len(page.Data))
	for _, m := range page.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}
