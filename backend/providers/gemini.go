package providers

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"hearth/backend/apperr"
)

// KindGoogle is Google's Gemini API.
const KindGoogle = "google"

// geminiThinkingBudgets maps a reasoning effort to Gemini's thinking
// budget in tokens.
var geminiThinkingBudgets = map[string]int32{"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}

type geminiProvider struct {
	models *genai.Models
	cfg    Config
}

func newGemini(ctx context.Context, cfg Config) (*geminiProvider, error) {
	// Without a key the SDK would take GOOGLE_API_KEY or GEMINI_API_KEY
	// from the environment and send it to whatever base URL is set.
	if cfg.APIKey == "" {
		return nil, apperr.Invalid("a Google connection needs an API key")
	}
	opts := genai.HTTPOptions{Headers: http.Header{}}
	base, err := baseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if base == "" {
		// Set, not left to the SDK, which would take GOOGLE_GEMINI_BASE_URL
		// from the environment and send the key there.
		base = DefaultGoogleBaseURL
	}
	opts.BaseURL = base
	for k, v := range cfg.Headers {
		opts.Headers.Set(k, v)
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  newHTTPClient(notingTransport{base: cfg.Transport}),
		HTTPOptions: opts,
	})
	if err != nil {
		return nil, apperr.Invalid("the Google connection: %s", shorten(err.Error()))
	}
	return &geminiProvider{models: client.Models, cfg: cfg}, nil
}

// Stream implements Provider.
func (p *geminiProvider) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Result, error) {
	model, contents, config, err := p.params(req)
	if err != nil {
		return Result{}, err
	}
	ctx, watch := watchIdle(withStatusNote(ctx), p.cfg.IdleTimeout)
	defer watch.stop()
	// The SDK sends the request on the first pull, so the idle timeout
	// also bounds the wait for the response headers here.
	return drain(ctx, watch, pull(p.models.GenerateContentStream(ctx, model, contents, config)), &geminiAccumulator{}, onDelta, p.failure)
}

// pulled adapts the SDK's iterator to the stream loop.
type pulled[T any] struct {
	next func() (T, error, bool)
	stop func()
	cur  T
	err  error
}

func pull[T any](seq iter.Seq2[T, error]) *pulled[T] {
	next, stop := iter.Pull2(seq)
	return &pulled[T]{next: next, stop: stop}
}

func (s *pulled[T]) Next() bool {
	if s.err != nil {
		return false
	}
	v, err, ok := s.next()
	if !ok {
		return false
	}
	if err != nil {
		s.err = err
		s.stop()
		return false
	}
	s.cur = v
	return true
}

func (s *pulled[T]) Current() T   { return s.cur }
func (s *pulled[T]) Err() error   { return s.err }
func (s *pulled[T]) Close() error { s.stop(); return nil }

func (p *geminiProvider) failure(ctx context.Context, err error) error {
	if err := interrupted(ctx, p.cfg); err != nil {
		return err
	}
	if status, apiErr, ok := geminiAPIError(ctx, err); ok {
		e := statusError(status, nil, apiErr.Message, time.Now())
		if d, ok := geminiRetryDelay(apiErr.Details); ok && status == http.StatusTooManyRequests {
			e.Details["retryAfterMs"] = d.Milliseconds()
		}
		return e
	}
	if strings.Contains(err.Error(), "iterateResponseStream") {
		return apperr.New(CodeBadResponse, "the provider sent a malformed chunk: %s", shorten(err.Error()))
	}
	return transportError(err)
}

// geminiAPIError finds the SDK's error for an error answer and its HTTP
// status. The SDK reports the code the body's error object gives; a proxy's
// body may have none (0), and then the status the transport noted stands.
func geminiAPIError(ctx context.Context, err error) (int, genai.APIError, bool) {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		return 0, apiErr, false
	}
	status := apiErr.Code
	if status < 400 {
		status = notedStatus(ctx)
	}
	return status, apiErr, status >= 400
}

// geminiRetryDelay reads google.rpc.RetryInfo's retryDelay ("23s") from
// an error's details.
func geminiRetryDelay(details []map[string]any) (time.Duration, bool) {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		if s, ok := d["retryDelay"].(string); ok {
			if dur, err := time.ParseDuration(s); err == nil && dur >= 0 {
				return dur, true
			}
		}
	}
	return 0, false
}

// Models implements Provider.
func (p *geminiProvider) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeoutCause(withStatusNote(ctx), p.cfg.IdleTimeout, errStalled)
	defer cancel()
	page, err := p.models.List(ctx, &genai.ListModelsConfig{PageSize: 1000})
	if err != nil {
		return nil, p.failure(ctx, err)
	}
	ids := make([]string, 0, len(page.Items))
	for _, m := range page.Items {
		if id := strings.TrimPrefix(m.Name, "models/"); id != "" {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// geminiAccumulator builds a Result from streamed GenerateContent
// responses (candidate 0). Function calls arrive whole.
type geminiAccumulator struct {
	reply
	calls  []ToolCall
	usage  Usage
	finish string
	model  string
}

func (a *geminiAccumulator) add(r *genai.GenerateContentResponse) (Delta, error) {
	var d Delta
	if r == nil {
		return d, nil
	}
	if r.ModelVersion != "" {
		a.model = r.ModelVersion
	}
	if u := r.UsageMetadata; u != nil {
		a.usage = Usage{InputTokens: int64(u.PromptTokenCount), OutputTokens: int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
			ReasoningTokens: int64(u.ThoughtsTokenCount)}
	}
	if len(r.Candidates) == 0 || r.Candidates[0] == nil {
		return d, nil
	}
	c := r.Candidates[0]
	if c.Content != nil {
		for _, part := range c.Content.Parts {
			switch {
			case part == nil:
			case part.FunctionCall != nil:
				if len(a.calls) >= maxToolCalls {
					return Delta{}, apperr.New(CodeBadResponse, "the model made more than %d tool calls in one reply", maxToolCalls)
				}
				args, err := jsonText(part.FunctionCall.Args)
				if err != nil || len(args) > maxToolArgsBytes {
					return Delta{}, apperr.New(CodeBadResponse, "a tool call of the reply is not JSON of at most %d KiB", maxToolArgsBytes>>10)
				}
				id := part.FunctionCall.ID
				if id == "" {
					id = fmt.Sprintf("call_%d", len(a.calls))
				}
				a.calls = append(a.calls, ToolCall{ID: id, Name: part.FunctionCall.Name, Arguments: args})
			case part.Thought:
				d.Reasoning += part.Text
			default:
				d.Text += part.Text
			}
		}
	}
	if c.FinishReason != "" {
		a.finish = string(c.FinishReason)
	}
	if err := a.reply.add(d); err != nil {
		return Delta{}, err
	}
	return d, nil
}

func (a *geminiAccumulator) complete() bool { return a.finish != "" }

func (a *geminiAccumulator) result() Result {
	return Result{Text: a.text.String(), Reasoning: a.reasoning.String(), ToolCalls: a.calls, Usage: a.usage, FinishReason: a.finish, Model: a.model}
}
