package providers_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"hearth/backend/providers"
	"hearth/backend/providers/providertest"
)

func claude(t *testing.T, cfg providers.Config) (*providertest.Server, providers.Provider) {
	t.Helper()
	srv := providertest.NewAnthropic()
	t.Cleanup(srv.Close)
	cfg.Kind = providers.KindAnthropic
	cfg.BaseURL = srv.URL
	if cfg.Model == "" {
		cfg.Model = "claude-test"
	}
	p, err := providers.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

func TestAnthropicStreamsThinkingTextAndToolCalls(t *testing.T) {
	t.Parallel()
	srv, p := claude(t, providers.Config{APIKey: "sk-ant-test"})
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{
		providertest.MessageStart(120),
		providertest.BlockStart(0, "thinking", "", ""),
		providertest.ThinkingDelta(0, "She should check "),
		providertest.ThinkingDelta(0, "the notes."),
		providertest.BlockStop(0),
		providertest.BlockStart(1, "text", "", ""),
		providertest.TextDelta(1, "Let me "),
		providertest.TextDelta(1, "look — 少々"),
		providertest.BlockStop(1),
		providertest.BlockStart(2, "tool_use", "toolu_1", "chat_search"),
		providertest.InputDelta(2, `{"query":`),
		providertest.InputDelta(2, `"tavern"}`),
		providertest.BlockStop(2),
		providertest.BlockStart(3, "tool_use", "toolu_2", "skill_list"),
		providertest.BlockStop(3),
		providertest.MessageDelta("tool_use", 33),
		providertest.MessageStop(),
	}})
	effort, maxTokens := "low", 500
	req := providers.Request{
		Messages: []providers.Message{
			{Role: providers.RoleSystem, Content: "You are Seraphina."},
			{Role: providers.RoleSystem, Content: "Stay in character."},
			{Role: providers.RoleUser, Content: "Hello"},
			{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "toolu_0", Name: "chat_search", Arguments: `{"query":"x"}`}}},
			{Role: providers.RoleTool, ToolCallID: "toolu_0", Content: "no hits"},
			{Role: providers.RoleSystem, Content: "[Author's note: keep it short]"},
		},
		Tools:    []providers.Tool{{Name: "chat_search", Description: "Search", Parameters: []byte(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`)}},
		Sampling: providers.Sampling{ReasoningEffort: effort, MaxTokens: &maxTokens, Stop: []string{"\nUser:"}},
	}
	deltas, res, err := collect(context.Background(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	want := providers.Result{Text: "Let me look — 少々", Reasoning: "She should check the notes.",
		ToolCalls: []providers.ToolCall{{ID: "toolu_1", Name: "chat_search", Arguments: `{"query":"tavern"}`}, {ID: "toolu_2", Name: "skill_list", Arguments: "{}"}},
		Usage:     providers.Usage{InputTokens: 120, OutputTokens: 33}, FinishReason: "tool_use", Model: "scripted-claude"}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("result\n%+v\nwant\n%+v", res, want)
	}
	if len(deltas) != 4 {
		t.Errorf("%d deltas: %+v", len(deltas), deltas)
	}
	r := srv.Requests()[0]
	if r.Header.Get("X-Api-Key") != "sk-ant-test" || r.Header.Get("Anthropic-Version") == "" {
		t.Errorf("headers: x-api-key %q, anthropic-version %q", r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"))
	}
	b := r.Body
	if b["model"] != "claude-test" || b["stream"] != true || b["max_tokens"] != float64(500+2048) {
		t.Errorf("model %v, stream %v, max_tokens %v", b["model"], b["stream"], b["max_tokens"])
	}
	if !reflect.DeepEqual(b["thinking"], map[string]any{"type": "enabled", "budget_tokens": float64(2048)}) {
		t.Errorf("thinking %#v", b["thinking"])
	}
	if _, ok := b["temperature"]; ok {
		t.Error("temperature sent with extended thinking")
	}
	system, _ := b["system"].([]any)
	if len(system) != 2 || system[0].(map[string]any)["text"] != "You are Seraphina." {
		t.Errorf("system %#v", b["system"])
	}
	msgs, _ := b["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("messages %#v", msgs)
	}
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if !reflect.DeepEqual(roles, []string{"user", "assistant", "user", "user"}) {
		t.Errorf("roles %v: the late system message goes in as a user turn", roles)
	}
	use := msgs[1].(map[string]any)["content"].([]any)[0].(map[string]any)
	if use["type"] != "tool_use" || use["id"] != "toolu_0" || !reflect.DeepEqual(use["input"], map[string]any{"query": "x"}) {
		t.Errorf("tool_use block %#v", use)
	}
	result := msgs[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	if result["type"] != "tool_result" || result["tool_use_id"] != "toolu_0" {
		t.Errorf("tool_result block %#v", result)
	}
	tool := b["tools"].([]any)[0].(map[string]any)
	schema := tool["input_schema"].(map[string]any)
	if tool["name"] != "chat_search" || schema["type"] != "object" || schema["additionalProperties"] != false ||
		!reflect.DeepEqual(schema["required"], []any{"query"}) {
		t.Errorf("tool %#v", tool)
	}
}

func TestAnthropicErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		script providertest.Script
		code   string
	}{
		{"401", providertest.Script{Status: 401, Body: providertest.AnthropicErrorBody("authentication_error", "invalid x-api-key")}, providers.CodeAuthFailed},
		{"429", providertest.Script{Status: 429, Headers: map[string]string{"Retry-After": "20"}, Body: providertest.AnthropicErrorBody("rate_limit_error", "slow")}, providers.CodeRateLimited},
		{"529", providertest.Script{Status: 529, Body: providertest.AnthropicErrorBody("overloaded_error", "Overloaded")}, providers.CodeUnavailable},
		{"overloaded mid-stream", providertest.Script{Chunks: []providertest.Chunk{providertest.MessageStart(5), providertest.BlockStart(0, "text", "", ""),
			providertest.TextDelta(0, "Hi"), providertest.ErrorEvent("overloaded_error", "Overloaded")}}, providers.CodeUnavailable},
		{"cut", providertest.Script{Chunks: []providertest.Chunk{providertest.MessageStart(5), providertest.BlockStart(0, "text", "", ""),
			providertest.TextDelta(0, "Hi")}}, providers.CodeBadResponse},
		{"malformed", providertest.Script{Chunks: []providertest.Chunk{providertest.MessageStart(5), {Event: "content_block_delta", Data: `{"type":`}}}, providers.CodeBadResponse},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, p := claude(t, providers.Config{})
			srv.Push(c.script)
			_, res, err := collect(context.Background(), p, hello())
			ae := wantCode(t, err, c.code)
			if c.code == providers.CodeRateLimited && ae.Details["retryAfterMs"] != int64(20000) {
				t.Errorf("details %#v", ae.Details)
			}
			if c.name == "overloaded mid-stream" && res.Text != "Hi" {
				t.Errorf("partial text %q", res.Text)
			}
		})
	}
}

func TestAnthropicStallAndCancel(t *testing.T) {
	t.Parallel()
	srv, p := claude(t, providers.Config{IdleTimeout: time.Second})
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{providertest.MessageStart(5), providertest.BlockStart(0, "text", "", ""),
		providertest.TextDelta(0, "Once")}, Stall: true})
	_, res, err := collect(context.Background(), p, hello())
	wantCode(t, err, providers.CodeTimeout)
	if res.Text != "Once" {
		t.Errorf("partial text %q", res.Text)
	}

	srv.Push(providertest.Script{Chunks: []providertest.Chunk{providertest.MessageStart(5), providertest.BlockStart(0, "text", "", ""),
		providertest.TextDelta(0, "Once")}, Stall: true})
	ctx, cancel := context.WithCancel(context.Background())
	res, err = p.Stream(ctx, hello(), func(providers.Delta) { cancel() })
	if !errors.Is(err, context.Canceled) || res.Text != "Once" {
		t.Fatalf("error %v, text %q", err, res.Text)
	}
}

func TestAnthropicListsModels(t *testing.T) {
	t.Parallel()
	srv, p := claude(t, providers.Config{})
	srv.Models = []string{"claude-sonnet-4-5", "claude-haiku-4-5"}
	got, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, srv.Models) {
		t.Fatalf("models %v", got)
	}
}
