package providers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"hearth/backend/providers"
	"hearth/backend/providers/providertest"
)

// echoedKey is a connection's key that the scripted servers below echo.
const echoedKey = "sk-proj-Q7xv93KfLm2Rt8Wz4Np6Hs1Jd5Gc0BaYe"

// keyEcho is an error text that quotes echoedKey the ways servers do:
// whole, masked between a prefix and a suffix, its first characters, a
// piece of its middle, and in an echoed Authorization header.
func keyEcho() string {
	k := echoedKey
	return fmt.Sprintf("Incorrect API key provided: %s. Masked: %s****%s. Starts with %s… Middle %s. Headers: Authorization: Bearer %s",
		k, k[:12], k[len(k)-9:], k[:10], k[15:26], k)
}

// leak is the first piece of key at least 8 bytes long found in s, or "".
func leak(key, s string) string {
	for i := 0; i+8 <= len(key); i++ {
		if strings.Contains(s, key[i:i+8]) {
			return key[i : i+8]
		}
	}
	return ""
}

// wantRedacted fails unless err is a HostError of code whose message and
// details hold no piece of echoedKey, yet still say what the server said.
func wantRedacted(t *testing.T, err error, code string) {
	t.Helper()
	ae := wantCode(t, err, code)
	texts := []string{ae.Message, ae.Error()}
	for k, v := range ae.Details {
		texts = append(texts, fmt.Sprintf("%s=%v", k, v))
	}
	for _, s := range texts {
		if frag := leak(echoedKey, s); frag != "" {
			t.Fatalf("%q holds %q of the key", s, frag)
		}
	}
	msg, _ := ae.Details["providerMessage"].(string)
	for _, s := range []string{ae.Message, msg} {
		if !strings.Contains(s, "Incorrect API key provided: [redacted].") || !strings.Contains(s, "Bearer [redacted]") {
			t.Errorf("%q lost what the server said around the key", s)
		}
	}
}

func TestEchoedKeyIsRedacted(t *testing.T) {
	t.Parallel()
	echo := keyEcho()
	cases := []struct {
		name   string
		start  func(*testing.T, providers.Config) (*providertest.Server, providers.Provider)
		script providertest.Script
		code   string
	}{
		{"openai 401", scripted, providertest.Script{Status: 401, Body: providertest.ErrorBody(echo)}, providers.CodeAuthFailed},
		{"openai error mid-stream", scripted, providertest.Script{Chunks: []providertest.Chunk{providertest.Text("Hi"),
			{Data: providertest.ErrorBody(echo)}}}, providers.CodeRequestFailed},
		{"openai 401 mid-stream", scripted, providertest.Script{Chunks: []providertest.Chunk{providertest.Text("Hi"),
			{Data: fmt.Sprintf(`{"error":{"code":401,"message":%q}}`, echo)}}}, providers.CodeAuthFailed},
		{"anthropic 401", claude, providertest.Script{Status: 401, Body: providertest.AnthropicErrorBody("authentication_error", echo)},
			providers.CodeAuthFailed},
		{"anthropic error event", claude, providertest.Script{Chunks: []providertest.Chunk{providertest.MessageStart(3),
			providertest.ErrorEvent("authentication_error", echo)}}, providers.CodeAuthFailed},
		{"gemini 403", gemini, providertest.Script{Status: 403, Body: providertest.GeminiErrorBody(403, "PERMISSION_DENIED", echo, "")},
			providers.CodeAuthFailed},
		{"gemini error mid-stream", gemini, providertest.Script{Chunks: []providertest.Chunk{providertest.GChunk("", 0, 0, 0, providertest.GText("Hi")),
			{Data: providertest.GeminiErrorBody(401, "UNAUTHENTICATED", echo, "")}}}, providers.CodeAuthFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, p := c.start(t, providers.Config{APIKey: echoedKey})
			srv.Push(c.script)
			_, _, err := collect(context.Background(), p, hello())
			wantRedacted(t, err, c.code)
		})
	}
}

func TestEchoedKeyIsRedactedFromModelLists(t *testing.T) {
	t.Parallel()
	echo := keyEcho()
	cases := []struct {
		name  string
		start func(*testing.T, providers.Config) (*providertest.Server, providers.Provider)
		body  string
	}{
		{"openai", scripted, providertest.ErrorBody(echo)},
		{"anthropic", claude, providertest.AnthropicErrorBody("authentication_error", echo)},
		{"gemini", gemini, providertest.GeminiErrorBody(401, "UNAUTHENTICATED", echo, "")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, p := c.start(t, providers.Config{APIKey: echoedKey})
			srv.ModelsError = providertest.Script{Status: 401, Body: c.body}
			_, err := p.Models(context.Background())
			wantRedacted(t, err, providers.CodeAuthFailed)
		})
	}
}

// A key too short to be more than a placeholder is redacted where it
// stands as a word, and the words that merely contain it are kept.
func TestShortKeyIsRedactedWhole(t *testing.T) {
	t.Parallel()
	srv, p := scripted(t, providers.Config{APIKey: "x7"})
	srv.Push(providertest.Script{Status: 401, Body: providertest.ErrorBody("Incorrect API key provided: x7. Expected an xx7-style key.")})
	_, _, err := collect(context.Background(), p, hello())
	ae := wantCode(t, err, providers.CodeAuthFailed)
	if want := "Incorrect API key provided: [redacted]. Expected an xx7-style key."; ae.Details["providerMessage"] != want {
		t.Errorf("providerMessage %q, want %q", ae.Details["providerMessage"], want)
	}
}
