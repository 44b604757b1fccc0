// Package providers talks to language-model APIs: one request and stream
// shape for every wire format, so generation and agent runs never see a
// provider's own types.
//
// A Provider streams one completion: text and reasoning deltas as they
// arrive, and at the end the whole text, the tool calls the model made and
// the token usage. Failures come back as HostErrors with stable model.*
// codes (see errors.go) and the connection's key taken out of their text,
// since some servers echo it (see redact.go). Retries are the caller's
// choice (generation and agent runs have their own policies), so the SDKs'
// own retries are off.
package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"hearth/backend/apperr"
)

// Kinds of provider.
const (
	KindOpenAICompatible = "openai-compatible"
)

// Role is who speaks a message.
type Role string

// Roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Part is one piece of a message with images: text, or an image given as
// a URL (https: or data:).
type Part struct {
	Text     string
	ImageURL string
}

// Message is one turn of the conversation sent to the model.
type Message struct {
	Role Role
	// Content is the text; when Parts is set it is ignored.
	Content string
	// Parts carries text and images (user messages to vision models).
	Parts []Part
	// Name optionally names the speaker (OpenAI's "name").
	Name string
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID is the call a tool message answers.
	ToolCallID string
}

// ToolCall is one function call the model made. Arguments is the JSON
// text as the model wrote it: callers validate it against the tool.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a function the model may call. Parameters is a JSON Schema
// object.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Sampling holds the generation settings; nil and empty mean the
// server's default. TopK, MinP and RepetitionPenalty are not OpenAI's, but
// most local servers (llama.cpp, vLLM, KoboldCpp, Ollama) read them.
type Sampling struct {
	Temperature       *float64
	TopP              *float64
	TopK              *int
	MinP              *float64
	FrequencyPenalty  *float64
	PresencePenalty   *float64
	RepetitionPenalty *float64
	MaxTokens         *int
	Stop              []string
	Seed              *int64
	// ReasoningEffort is "low", "medium" or "high" (or "minimal"), for
	// models that think before answering.
	ReasoningEffort string
}

// Request is one completion to stream.
type Request struct {
	// Model overrides the connection's model when set.
	Model    string
	Messages []Message
	Tools    []Tool
	Sampling Sampling
}

// Delta is what one streamed chunk added.
type Delta struct {
	Text      string
	Reasoning string
}

// Usage counts tokens as the provider reported them (zero when it did not).
type Usage struct {
	InputTokens     int64 `json:"inputTokens"`
	OutputTokens    int64 `json:"outputTokens"`
	ReasoningTokens int64 `json:"reasoningTokens,omitempty"`
}

// Result is a whole completion. After a failure or a cancel it holds what
// had arrived, so a stopped generation can keep its partial text.
type Result struct {
	Text         string
	Reasoning    string
	ToolCalls    []ToolCall
	Usage        Usage
	FinishReason string
	// Model is the model that answered, as the provider named it.
	Model string
}

// Provider streams completions from one connection.
type Provider interface {
	// Stream sends req and calls onDelta (from the calling goroutine) for
	// each chunk of text or reasoning. It returns when the completion ends,
	// fails, or ctx is done; on cancel the error is ctx's.
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (Result, error)
	// Models lists the model ids the server offers.
	Models(ctx context.Context) ([]string, error)
}

// Default timeouts of a connection.
const (
	// DefaultConnectTimeout bounds dialing and the TLS handshake.
	DefaultConnectTimeout = 15 * time.Second
	// DefaultHeaderTimeout bounds the wait for the response headers: a
	// local model may take this long to load before it answers.
	DefaultHeaderTimeout = 5 * time.Minute
	// DefaultIdleTimeout bounds the silence between two chunks of a
	// stream (and the whole of a call that does not stream).
	DefaultIdleTimeout = 90 * time.Second
)

// Config is one connection.
type Config struct {
	Kind    string
	BaseURL string
	Model   string
	APIKey  string
	// Headers are sent with every request (OpenRouter's HTTP-Referer…).
	Headers map[string]string
	// Timeouts; zero means the default.
	ConnectTimeout time.Duration
	HeaderTimeout  time.Duration
	IdleTimeout    time.Duration
	// Transport replaces the HTTP transport (tests); nil builds one with
	// the timeouts above.
	Transport http.RoundTripper
}

// New returns the Provider of cfg.
func New(cfg Config) (Provider, error) {
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.HeaderTimeout <= 0 {
		cfg.HeaderTimeout = DefaultHeaderTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.Transport == nil {
		cfg.Transport = newTransport(cfg)
	}
	cfg.Transport = cappedTransport{base: cfg.Transport}
	r := redactor{key: cfg.APIKey}
	p, err := newProvider(cfg)
	if err != nil {
		return nil, r.err(err)
	}
	return redactingProvider{inner: p, r: r}, nil
}

// newProvider builds the Provider of cfg's kind.
func newProvider(cfg Config) (Provider, error) {
	switch cfg.Kind {
	case KindOpenAICompatible:
		return newOpenAI(cfg)
	case KindAnthropic:
		return newAnthropic(cfg)
	case KindGoogle:
		return newGemini(context.Background(), cfg)
	default:
		return nil, apperr.Invalid("unknown provider %q (want %q, %q or %q)", cfg.Kind, KindOpenAICompatible, KindAnthropic, KindGoogle)
	}
}

// baseURL is a connection's base URL, trimmed and ending in "/"; "" when
// none is set (the provider's own address, where there is one).
func baseURL(raw string) (string, error) {
	base := strings.TrimSpace(raw)
	if base == "" {
		return "", nil
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return "", apperr.Invalid("the base URL %q is not http: or https:", shorten(base))
	}
	return strings.TrimRight(base, "/") + "/", nil
}

// modelFor is the model a request goes to: its own, else the connection's.
func (c Config) modelFor(req Request) (string, error) {
	if req.Model != "" {
		return req.Model, nil
	}
	if c.Model == "" {
		return "", apperr.Invalid("no model: the connection names none and the request neither")
	}
	return c.Model, nil
}
