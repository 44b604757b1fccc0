package providertest

import (
	"encoding/json"
	"strings"
)

// NewGemini starts a Gemini API server on 127.0.0.1 (URL is the base URL,
// without /v1beta); Close stops it. Requests go to
// /v1beta/models/MODEL:streamGenerateContent.
func NewGemini() *Server {
	return start(func(p string) bool {
		return strings.HasPrefix(p, "/v1beta/models/") && strings.HasSuffix(p, ":streamGenerateContent")
	}, "/v1beta/models", func(ids []string) any {
		models := make([]map[string]any, 0, len(ids))
		for _, id := range ids {
			models = append(models, map[string]any{"name": "models/" + id, "displayName": id})
		}
		return map[string]any{"models": models}
	})
}

// GeminiPart is one part of a streamed candidate.
type GeminiPart map[string]any

// GText is a text part; GThought a thought part; GCall a function call.
func GText(s string) GeminiPart    { return GeminiPart{"text": s} }
func GThought(s string) GeminiPart { return GeminiPart{"text": s, "thought": true} }
func GCall(name string, args map[string]any) GeminiPart {
	return GeminiPart{"functionCall": map[string]any{"name": name, "args": args}}
}

// GChunk is a streamed GenerateContentResponse with parts, a finish reason
// (or "") and, when prompt > 0, usage.
func GChunk(finish string, prompt, candidates, thoughts int, parts ...GeminiPart) Chunk {
	cand := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}}
	if finish != "" {
		cand["finishReason"] = finish
	}
	r := map[string]any{"candidates": []any{cand}, "modelVersion": "scripted-gemini"}
	if prompt > 0 {
		r["usageMetadata"] = map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": candidates, "thoughtsTokenCount": thoughts,
			"totalTokenCount": prompt + candidates + thoughts}
	}
	b, _ := json.Marshal(r)
	return Chunk{Data: string(b)}
}

// GeminiErrorBody is a Gemini API error body; retryDelay, when set, adds
// google.rpc.RetryInfo.
func GeminiErrorBody(code int, status, message, retryDelay string) string {
	e := map[string]any{"code": code, "status": status, "message": message}
	if retryDelay != "" {
		e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retryDelay}}
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return string(b)
}
