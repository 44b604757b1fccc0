package providertest

import (
	"encoding/json"
	"strings"
)

// Chunk builders for the usual events of a Chat Completions stream.

func chunkJSON(delta map[string]any, finish string, extra map[string]any) string {
	choice := map[string]any{"index": 0, "delta": delta, "finish_reason": nil}
	if finish != "" {
		choice["finish_reason"] = finish
	}
	c := map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1700000000,
		"model": "scripted-model", "choices": []any{choice}}
	for k, v := range extra {
		c[k] = v
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// Text is a chunk adding text to the reply.
func Text(s string) Chunk { return Chunk{Data: chunkJSON(map[string]any{"content": s}, "", nil)} }

// Reasoning is a chunk adding reasoning in the given field
// ("reasoning_content" or "reasoning").
func Reasoning(field, s string) Chunk {
	return Chunk{Data: chunkJSON(map[string]any{field: s}, "", nil)}
}

// ToolCall is a fragment of tool call index: the first names it (id,
// name), later ones carry more of its arguments.
func ToolCall(index int, id, name, args string) Chunk {
	fn := map[string]any{"arguments": args}
	call := map[string]any{"index": index, "function": fn}
	if id != "" {
		call["id"] = id
		call["type"] = "function"
	}
	if name != "" {
		fn["name"] = name
	}
	return Chunk{Data: chunkJSON(map[string]any{"tool_calls": []any{call}}, "", nil)}
}

// Finish is the chunk ending the reply with a finish reason.
func Finish(reason string) Chunk { return Chunk{Data: chunkJSON(map[string]any{}, reason, nil)} }

// Usage is the final usage chunk (choices empty), as sent when the request
// asked for stream_options.include_usage.
func Usage(prompt, completion, reasoning int) Chunk {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1700000000,
		"model": "scripted-model", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"completion_tokens_details": map[string]any{"reasoning_tokens": reasoning}}})
	return Chunk{Data: string(b)}
}

// Reply is a whole streamed reply: the text in pieces of about size
// bytes, a finish, usage and [DONE].
func Reply(text string, size int) Script {
	var chunks []Chunk
	for len(text) > 0 {
		n := min(size, len(text))
		for n < len(text) && !isRuneStart(text[n]) {
			n++
		}
		chunks = append(chunks, Text(text[:n]))
		text = text[n:]
	}
	chunks = append(chunks, Finish("stop"), Usage(10, len(chunks), 0))
	return Script{Chunks: chunks, Done: true}
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// ErrorBody is an OpenAI-style error body.
func ErrorBody(message string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "error"}})
	return strings.TrimSpace(string(b))
}
