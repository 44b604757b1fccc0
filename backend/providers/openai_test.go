package providers_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/providers"
	"hearth/backend/providers/providertest"
)

// scripted starts a scripted server and a provider for it.
func scripted(t *testing.T, cfg providers.Config) (*providertest.Server, providers.Provider) {
	t.Helper()
	srv := providertest.NewOpenAI()
	t.Cleanup(srv.Close)
	cfg.Kind = providers.KindOpenAICompatible
	cfg.BaseURL = srv.URL
	if cfg.Model == "" {
		cfg.Model = "scripted-model"
	}
	p, err := providers.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

func hello() providers.Request {
	return providers.Request{Messages: []providers.Message{
		{Role: providers.RoleSystem, Content: "You are Seraphina."},
		{Role: providers.RoleUser, Content: "Hello", Name: "User"},
	}}
}

// collect streams req and returns the deltas seen, the result and the error.
func collect(ctx context.Context, p providers.Provider, req providers.Request) ([]providers.Delta, providers.Result, error) {
	var deltas []providers.Delta
	res, err := p.Stream(ctx, req, func(d providers.Delta) { deltas = append(deltas, d) })
	return deltas, res, err
}

func wantCode(t *testing.T, err error, code string) *apperr.Error {
	t.Helper()
	ae := apperr.As(err)
	if ae == nil || ae.Code != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
	return ae
}

func TestStreamsTextReasoningAndUsage(t *testing.T) {
	t.Parallel()
	temp, topK, maxTokens, seed := 0.7, 40, 300, int64(7)
	srv, p := scripted(t, providers.Config{APIKey: "sk-test", Headers: map[string]string{"HTTP-Referer": "https://hearth.invalid"}})
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{
		providertest.Reasoning("reasoning_content", "The user greets. "),
		providertest.Reasoning("reasoning", "Answer warmly."),
		providertest.Text("Hel"),
		providertest.Text("lo, "),
		providertest.Text("traveller — ようこそ"),
		providertest.Finish("stop"),
		providertest.Usage(42, 7, 5),
	}, Done: true})
	req := hello()
	req.Sampling = providers.Sampling{Temperature: &temp, TopK: &topK, MaxTokens: &maxTokens, Seed: &seed, Stop: []string{"\nUser:"}}
	deltas, res, err := collect(context.Background(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	want := providers.Result{Text: "Hello, traveller — ようこそ", Reasoning: "The user greets. Answer warmly.",
		Usage: providers.Usage{InputTokens: 42, OutputTokens: 7, ReasoningTokens: 5}, FinishReason: "stop", Model: "scripted-model"}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("result\n%+v\nwant\n%+v", res, want)
	}
	if len(deltas) != 5 || deltas[0].Reasoning != "The user greets. " || deltas[2].Text != "Hel" {
		t.Fatalf("deltas %+v", deltas)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q", got)
	}
	if got := r.Header.Get("HTTP-Referer"); got != "https://hearth.invalid" {
		t.Errorf("HTTP-Referer %q", got)
	}
	b := r.Body
	checks := map[string]any{"model": "scripted-model", "stream": true, "temperature": 0.7, "top_k": float64(40),
		"max_tokens": float64(300), "seed": float64(7)}
	for k, v := range checks {
		if !reflect.DeepEqual(b[k], v) {
			t.Errorf("request %s = %#v, want %#v", k, b[k], v)
		}
	}
	if !reflect.DeepEqual(b["stop"], []any{"\nUser:"}) {
		t.Errorf("stop %#v", b["stop"])
	}
	if !reflect.DeepEqual(b["stream_options"], map[string]any{"include_usage": true}) {
		t.Errorf("stream_options %#v", b["stream_options"])
	}
	msgs, _ := b["messages"].([]any)
	wantMsgs := []any{
		map[string]any{"role": "system", "content": "You are Seraphina."},
		map[string]any{"role": "user", "content": "Hello", "name": "User"},
	}
	if !reflect.DeepEqual(msgs, wantMsgs) {
		t.Errorf("messages %#v", msgs)
	}
	for _, absent := range []string{"top_p", "min_p", "max_completion_tokens", "tools"} {
		if _, ok := b[absent]; ok {
			t.Errorf("request carries %s, which was not set", absent)
		}
	}
}

func TestAssemblesToolCalls(t *testing.T) {
	t.Parallel()
	srv, p := scripted(t, providers.Config{})
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{
		providertest.Text("Let me look."),
		providertest.ToolCall(1, "call_b", "workspace_write_file", `{"path":`),
		providertest.ToolCall(0, "call_a", "chat_search", `{"query":"tav`),
		providertest.ToolCall(0, "", "", `ern"}`),
		providertest.ToolCall(1, "", "", `"notes.md"}`),
		providertest.Finish("tool_calls"),
	}, Done: true})
	req := hello()
	req.Tools = []providers.Tool{{Name: "chat_search", Description: "Search the chat", Parameters: []byte(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}}
	req.Messages = append(req.Messages,
		providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "call_0", Name: "chat_search", Arguments: `{"query":"x"}`}}},
		providers.Message{Role: providers.RoleTool, ToolCallID: "call_0", Content: "no hits"},
	)
	_, res, err := collect(context.Background(), p, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []providers.ToolCall{
		{ID: "call_a", Name: "chat_search", Arguments: `{"query":"tavern"}`},
		{ID: "call_b", Name: "workspace_write_file", Arguments: `{"path":"notes.md"}`},
	}
	if !reflect.DeepEqual(res.ToolCalls, want) || res.FinishReason != "tool_calls" || res.Text != "Let me look." {
		t.Fatalf("result %+v", res)
	}
	body := srv.Requests()[0].Body
	tools, _ := body["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools %#v", body["tools"])
	}
	fn, _ := tools[0].(map[string]any)["function"].(map[string]any)
	if fn["name"] != "chat_search" || fn["description"] != "Search the chat" {
		t.Errorf("tool %#v", fn)
	}
	msgs, _ := body["messages"].([]any)
	asst, _ := msgs[2].(map[string]any)
	calls, _ := asst["tool_calls"].([]any)
	if len(calls) != 1 || asst["role"] != "assistant" {
		t.Fatalf("assistant message %#v", asst)
	}
	if _, ok := asst["content"]; ok {
		t.Errorf("an assistant message with only tool calls carries content %#v", asst["content"])
	}
	tool, _ := msgs[3].(map[string]any)
	if tool["role"] != "tool" || tool["tool_call_id"] != "call_0" || tool["content"] != "no hits" {
		t.Errorf("tool message %#v", tool)
	}
}

func TestHTTPErrorsMapToModelCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		script providertest.Script
		code   string
		check  func(t *testing.T, ae *apperr.Error)
	}{
		{"401", providertest.Script{Status: 401, Body: providertest.ErrorBody("Incorrect API key provided")}, providers.CodeAuthFailed,
			func(t *testing.T, ae *apperr.Error) {
				if ae.Details["providerMessage"] != "Incorrect API key provided" || ae.Details["status"] != 401 {
					t.Errorf("details %#v", ae.Details)
				}
			}},
		{"429 seconds", providertest.Script{Status: 429, Headers: map[string]string{"Retry-After": "3"}, Body: providertest.ErrorBody("slow down")},
			providers.CodeRateLimited, func(t *testing.T, ae *apperr.Error) {
				if ae.Details["retryAfterMs"] != int64(3000) {
					t.Errorf("retryAfterMs %#v", ae.Details["retryAfterMs"])
				}
			}},
		{"429 ms", providertest.Script{Status: 429, Headers: map[string]string{"Retry-After-Ms": "1500", "Retry-After": "9"}, Body: "{}"},
			providers.CodeRateLimited, func(t *testing.T, ae *apperr.Error) {
				if ae.Details["retryAfterMs"] != int64(1500) {
					t.Errorf("retryAfterMs %#v", ae.Details["retryAfterMs"])
				}
			}},
		{"500", providertest.Script{Status: 500, Body: providertest.ErrorBody("boom")}, providers.CodeUnavailable, nil},
		{"503 not json", providertest.Script{Status: 503, Body: "<html>Service Unavailable</html>"}, providers.CodeUnavailable, nil},
		{"400", providertest.Script{Status: 400, Body: providertest.ErrorBody("max_tokens is too large")}, providers.CodeRequestFailed,
			func(t *testing.T, ae *apperr.Error) {
				if !strings.Contains(ae.Message, "max_tokens is too large") {
					t.Errorf("message %q", ae.Message)
				}
			}},
		{"in-stream error", providertest.Script{Chunks: []providertest.Chunk{providertest.Text("Hi"),
			{Data: `{"error":{"code":502,"message":"upstream provider went away"}}`}}}, providers.CodeUnavailable, nil},
		{"malformed chunk", providertest.Script{Chunks: []providertest.Chunk{providertest.Text("Hi"), {Data: `{"choices": [`}}}, providers.CodeBadResponse, nil},
		{"cut before finish", providertest.Script{Chunks: []providertest.Chunk{providertest.Text("Hi")}}, providers.CodeBadResponse, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, p := scripted(t, providers.Config{})
			srv.Push(c.script)
			_, res, err := collect(context.Background(), p, hello())
			ae := wantCode(t, err, c.code)
			if c.check != nil {
				c.check(t, ae)
			}
			if len(c.script.Chunks) > 0 && res.Text != "Hi" {
				t.Errorf("partial text %q, want what arrived", res.Text)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("%d requests: the provider layer must not retry", len(srv.Requests()))
			}
		})
	}
}

func TestStalledStreamTimesOutKeepingWhatArrived(t *testing.T) {
	t.Parallel()
	// The idle bound is far above the pause between the two chunks, so a
	// busy machine cannot time the stream out before the stall.
	srv, p := scripted(t, providers.Config{IdleTimeout: 1500 * time.Millisecond})
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{
		providertest.Text("The tavern"),
		{Data: providertest.Text(" fell quiet").Data, Delay: 20 * time.Millisecond},
	}, Stall: true})
	_, res, err := collect(context.Background(), p, hello())
	ae := wantCode(t, err, providers.CodeTimeout)
	u, _ := url.Parse(srv.URL)
	if ae.Details["idleMs"] != int64(1500) || ae.Message != u.Host+" took too long to answer (nothing for 1.5 s)" {
		t.Errorf("%q, details %#v", ae.Message, ae.Details)
	}
	if res.Text != "The tavern fell quiet" {
		t.Errorf("partial text %q", res.Text)
	}
}

func TestSlowHeadersTimeOut(t *testing.T) {
	t.Parallel()
	srv, p := scripted(t, providers.Config{HeaderTimeout: 200 * time.Millisecond})
	srv.Push(providertest.Script{HeaderDelay: 5 * time.Second})
	_, _, err := collect(context.Background(), p, hello())
	wantCode(t, err, providers.CodeTimeout)
}

func TestCancelKeepsPartialText(t *testing.T) {
	t.Parallel()
	srv, p := scripted(t, providers.Config{})
	srv.Push(providertest.Script{Chunks: []providertest.Chunk{providertest.Text("Once upon"), providertest.Text(" a time")}, Stall: true})
	ctx, cancel := context.WithCancel(context.Background())
	res, err := p.Stream(ctx, hello(), func(d providers.Delta) {
		if d.Text == " a time" {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if res.Text != "Once upon a time" {
		t.Errorf("partial text %q", res.Text)
	}
}

// TestUnreachableServer: a server that does not listen reads as a
// sentence naming its address, for every kind, from a reply and from the
// model list alike.
func TestUnreachableServer(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	want := "Nothing answered at " + addr
	for _, kind := range []string{providers.KindOpenAICompatible, providers.KindAnthropic, providers.KindGoogle} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			p, err := providers.New(providers.Config{Kind: kind, BaseURL: "http://" + addr + "/v1", Model: "m", APIKey: "sk-unreachable-1234"})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = collect(context.Background(), p, hello())
			if ae := wantCode(t, err, providers.CodeUnreachable); ae.Message != want || ae.Details["address"] != addr {
				t.Errorf("stream: %q %v, want %q", ae.Message, ae.Details, want)
			}
			_, err = p.Models(context.Background())
			if ae := wantCode(t, err, providers.CodeUnreachable); ae.Message != want {
				t.Errorf("models: %q, want %q", ae.Message, want)
			}
		})
	}
}

func TestOversizedReplyFails(t *testing.T) {
	t.Parallel()
	srv, p := scripted(t, providers.Config{})
	big := providertest.Text(strings.Repeat("x", 1<<20))
	var chunks []providertest.Chunk
	for range 9 {
		chunks = append(chunks, big)
	}
	srv.Push(providertest.Script{Chunks: append(chunks, providertest.Finish("stop")), Done: true})
	_, res, err := collect(context.Background(), p, hello())
	wantCode(t, err, providers.CodeBadResponse)
	if len(res.Text) > 8<<20 {
		t.Errorf("kept %d bytes past the bound", len(res.Text))
	}
}

func TestListsModels(t *testing.T) {
	t.Parallel()
	srv, p := scripted(t, providers.Config{APIKey: "sk-list"})
	srv.Models = []string{"llama-3.1-8b", "qwen2.5-14b"}
	got, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, srv.Models) {
		t.Fatalf("models %v", got)
	}
	if r := srv.Requests()[0]; r.Method != "GET" || r.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer sk-list" {
		t.Errorf("request %s %s %q", r.Method, r.Path, r.Header.Get("Authorization"))
	}
}

// The environment's OPENAI_* settings never reach a configured server.
func TestIgnoresOpenAIEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_ORG_ID", "org-leak")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: yes")
	srv, p := scripted(t, providers.Config{})
	srv.Push(providertest.Reply("ok", 8))
	if _, _, err := collect(context.Background(), p, hello()); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	for _, k := range []string{"Authorization", "Openai-Organization", "X-Leak"} {
		if v := h.Get(k); strings.Contains(v, "environment") || strings.Contains(v, "leak") || v == "yes" {
			t.Errorf("%s: %q came from the environment", k, v)
		}
	}
}

func TestRejectsBadRequests(t *testing.T) {
	t.Parallel()
	_, p := scripted(t, providers.Config{})
	bad := []providers.Request{
		{},
		{Messages: []providers.Message{{Role: "narrator", Content: "x"}}},
		{Messages: []providers.Message{{Role: providers.RoleTool, Content: "x"}}},
		{Messages: []providers.Message{{Role: providers.RoleUser, Content: "x"}}, Tools: []providers.Tool{{Name: "t", Parameters: []byte(`[1]`)}}},
	}
	for i, req := range bad {
		if _, err := p.Stream(context.Background(), req, nil); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("request %d: error %v, want %s", i, err, apperr.CodeInvalidArgument)
		}
	}
	for _, cfg := range []providers.Config{
		{Kind: "palm", BaseURL: "http://127.0.0.1:1"},
		{Kind: providers.KindOpenAICompatible},
		{Kind: providers.KindOpenAICompatible, BaseURL: "file:///etc/passwd"},
	} {
		if _, err := providers.New(cfg); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("config %+v: error %v", cfg, err)
		}
	}
}

// ofKind starts a scripted server and a provider of kind for it.
func ofKind(t *testing.T, kind string) (*providertest.Server, providers.Provider) {
	t.Helper()
	switch kind {
	case providers.KindOpenAICompatible:
		return scripted(t, providers.Config{})
	case providers.KindAnthropic:
		return claude(t, providers.Config{})
	default:
		return gemini(t, providers.Config{})
	}
}

// An error page larger than any answer is cut off, not read into memory.
func TestHugeErrorBodyIsCut(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{providers.KindOpenAICompatible, providers.KindAnthropic, providers.KindGoogle} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			srv, p := ofKind(t, kind)
			srv.Push(providertest.Script{Status: 500, Body: strings.Repeat("x", 70<<20)})
			_, _, err := collect(context.Background(), p, hello())
			ae := apperr.As(err)
			if ae == nil || !strings.HasPrefix(ae.Code, "model.") {
				t.Fatalf("error %v, want a model.* HostError", err)
			}
			if len(ae.Message) > 2000 {
				t.Fatalf("error %.300s (%d bytes): want it short", ae.Message, len(ae.Message))
			}
			// The OpenAI SDK is handed error answers read up to 64 KiB
			// (errorAnswers); the others read them through the 64 MiB cap.
			if kind == providers.KindOpenAICompatible {
				if ae.Code != providers.CodeUnavailable || !strings.HasPrefix(ae.Details["providerMessage"].(string), "xxx") {
					t.Fatalf("error %s %.300s %v: want the start of the body as a 500's message", ae.Code, ae.Message, ae.Details["status"])
				}
			} else if !strings.Contains(ae.Message, "larger than 64 MiB") {
				t.Fatalf("error %.300s: want the body cut at 64 MiB", ae.Message)
			}
		})
	}
}
