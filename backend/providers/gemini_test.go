package providers_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"hearth/backend/providers"
	"hearth/backend/providers/providertest"
)

func gemini(t *testing.T, cfg providers.Config) (*providertest.Server, providers.Provider) {
	t.Helper()
	srv := providertest.NewGemini()
	t.Cleanup(srv.Close)
	cfg.Kind = providers.KindGoogle
	cfg.BaseURL = srv.URL
	if cfg.Model == "" {
		cfg.Model = "gemini-test"
	}
	if cfg.APIKey == "" {
		cfg.APIKey = "AIza-test"
	}
	p, err := providers.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

func TestGeminiStreamsThoughtsTextAndCalls(t *testing.T) {
	t.Parallel()
	srv, p := gemini(t, providers.Config{})
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{
		providertest.GChunk("", 0, 0, 0, providertest.GThought("Plan the greeting.")),
		providertest.GChunk("", 0, 0, 0, providertest.GText("Welcome, "), providertest.GText("traveller")),
		providertest.GChunk("", 0, 0, 0, providertest.GCall("chat_search", map[string]any{"query": "tavern"}), providertest.GCall("skill_list", nil)),
		providertest.GChunk("STOP", 50, 12, 8, providertest.GText(" — ようこそ")),
	}})
	temp, topK, maxTokens := 0.9, 20, 256
	req := providers.Request{
		Messages: []providers.Message{
			{Role: providers.RoleSystem, Content: "You are Seraphina."},
			{Role: providers.RoleUser, Content: "Hello"},
			{Role: providers.RoleAssistant, Content: "Checking.", ToolCalls: []providers.ToolCall{{ID: "c0", Name: "chat_search", Arguments: `{"query":"x"}`}}},
			{Role: providers.RoleTool, ToolCallID: "c0", Content: "no hits"},
			{Role: providers.RoleUser, Parts: []providers.Part{{Text: "Look:"}, {ImageURL: "data:image/png;base64,iVBORw0KGgo="}}},
		},
		Tools:    []providers.Tool{{Name: "chat_search", Description: "Search", Parameters: []byte(`{"type":"object","properties":{"query":{"type":"string"}}}`)}},
		Sampling: providers.Sampling{Temperature: &temp, TopK: &topK, MaxTokens: &maxTokens, ReasoningEffort: "medium", Stop: []string{"User:"}},
	}
	deltas, res, err := collect(context.Background(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	want := providers.Result{Text: "Welcome, traveller — ようこそ", Reasoning: "Plan the greeting.",
		ToolCalls: []providers.ToolCall{{ID: "call_0", Name: "chat_search", Arguments: `{"query":"tavern"}`}, {ID: "call_1", Name: "skill_list", Arguments: "{}"}},
		Usage:     providers.Usage{InputTokens: 50, OutputTokens: 20, ReasoningTokens: 8}, FinishReason: "STOP", Model: "scripted-gemini"}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("result\n%+v\nwant\n%+v", res, want)
	}
	if len(deltas) != 3 {
		t.Errorf("deltas %+v", deltas)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1beta/models/gemini-test:streamGenerateContent" || r.Header.Get("X-Goog-Api-Key") != "AIza-test" {
		t.Fatalf("request %s, key %q", r.Path, r.Header.Get("X-Goog-Api-Key"))
	}
	b := r.Body
	sys := b["systemInstruction"].(map[string]any)["parts"].([]any)[0].(map[string]any)
	if sys["text"] != "You are Seraphina." {
		t.Errorf("systemInstruction %#v", b["systemInstruction"])
	}
	contents := b["contents"].([]any)
	roles := []string{}
	for _, c := range contents {
		roles = append(roles, c.(map[string]any)["role"].(string))
	}
	if !reflect.DeepEqual(roles, []string{"user", "model", "user", "user"}) {
		t.Errorf("roles %v", roles)
	}
	resp := contents[2].(map[string]any)["parts"].([]any)[0].(map[string]any)["functionResponse"].(map[string]any)
	if resp["name"] != "chat_search" || !reflect.DeepEqual(resp["response"], map[string]any{"output": "no hits"}) {
		t.Errorf("functionResponse %#v", resp)
	}
	img := contents[3].(map[string]any)["parts"].([]any)[1].(map[string]any)["inlineData"].(map[string]any)
	if img["mimeType"] != "image/png" || img["data"] != "iVBORw0KGgo=" {
		t.Errorf("inlineData %#v", img)
	}
	gc := b["generationConfig"].(map[string]any)
	if gc["temperature"] != 0.9 || gc["topK"] != float64(20) || gc["maxOutputTokens"] != float64(256) ||
		!reflect.DeepEqual(gc["thinkingConfig"], map[string]any{"includeThoughts": true, "thinkingBudget": float64(8192)}) {
		t.Errorf("generationConfig %#v", gc)
	}
	fd := b["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)[0].(map[string]any)
	if fd["name"] != "chat_search" || fd["parametersJsonSchema"] == nil {
		t.Errorf("functionDeclarations %#v", fd)
	}
}

func TestGeminiErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		script providertest.Script
		code   string
	}{
		{"403", providertest.Script{Status: 403, Body: providertest.GeminiErrorBody(403, "PERMISSION_DENIED", "API key not valid", "")}, providers.CodeAuthFailed},
		{"429", providertest.Script{Status: 429, Body: providertest.GeminiErrorBody(429, "RESOURCE_EXHAUSTED", "quota", "23s")}, providers.CodeRateLimited},
		{"503", providertest.Script{Status: 503, Body: providertest.GeminiErrorBody(503, "UNAVAILABLE", "overloaded", "")}, providers.CodeUnavailable},
		{"400", providertest.Script{Status: 400, Body: providertest.GeminiErrorBody(400, "INVALID_ARGUMENT", "bad model", "")}, providers.CodeRequestFailed},
		{"error mid-stream", providertest.Script{Chunks: []providertest.Chunk{providertest.GChunk("", 0, 0, 0, providertest.GText("Hi")),
			{Data: providertest.GeminiErrorBody(500, "INTERNAL", "boom", "")}}}, providers.CodeUnavailable},
		{"cut", providertest.Script{Chunks: []providertest.Chunk{providertest.GChunk("", 0, 0, 0, providertest.GText("Hi"))}}, providers.CodeBadResponse},
		{"malformed", providertest.Script{Chunks: []providertest.Chunk{providertest.GChunk("", 0, 0, 0, providertest.GText("Hi")), {Data: `{"candidates": [`}}}, providers.CodeBadResponse},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, p := gemini(t, providers.Config{})
			srv.Push(c.script)
			_, res, err := collect(context.Background(), p, hello())
			ae := wantCode(t, err, c.code)
			if c.code == providers.CodeRateLimited && ae.Details["retryAfterMs"] != int64(23000) {
				t.Errorf("details %#v", ae.Details)
			}
			if len(c.script.Chunks) > 0 && res.Text != "Hi" {
				t.Errorf("partial text %q", res.Text)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests: the provider layer must not retry", n)
			}
		})
	}
}

func TestGeminiStallCancelAndModels(t *testing.T) {
	t.Parallel()
	srv, p := gemini(t, providers.Config{IdleTimeout: time.Second})
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{providertest.GChunk("", 0, 0, 0, providertest.GText("Once"))}, Stall: true})
	_, res, err := collect(context.Background(), p, hello())
	wantCode(t, err, providers.CodeTimeout)
	if res.Text != "Once" {
		t.Errorf("partial text %q", res.Text)
	}
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{providertest.GChunk("", 0, 0, 0, providertest.GText("Once"))}, Stall: true})
	ctx, cancel := context.WithCancel(context.Background())
	res, err = p.Stream(ctx, hello(), func(providers.Delta) { cancel() })
	if !errors.Is(err, context.Canceled) || res.Text != "Once" {
		t.Fatalf("error %v, text %q", err, res.Text)
	}
	srv.Models = []string{"gemini-2.5-flash", "gemini-2.5-pro"}
	got, err := p.Models(context.Background())
	if err != nil || !reflect.DeepEqual(got, srv.Models) {
		t.Fatalf("models %v, %v", got, err)
	}
}

func TestGeminiNeedsAKeyAndIgnoresTheEnvironment(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "AIza-from-the-environment")
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
	if _, err := providers.New(providers.Config{Kind: providers.KindGoogle, BaseURL: "http://127.0.0.1:1", Model: "m"}); err == nil ||
		!strings.Contains(err.Error(), "API key") {
		t.Fatalf("a Google connection without a key: %v", err)
	}
	srv, p := gemini(t, providers.Config{APIKey: "AIza-set"})
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{providertest.GChunk("STOP", 1, 1, 0, providertest.GText("ok"))}})
	if _, _, err := collect(context.Background(), p, hello()); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Header.Get("X-Goog-Api-Key") != "AIza-set" || !strings.HasPrefix(r.Path, "/v1beta/models/") {
		t.Fatalf("request %s with key %q: the environment chose the backend or key", r.Path, r.Header.Get("X-Goog-Api-Key"))
	}
}
