package providertest

import "encoding/json"

// NewAnthropic starts a Messages API server on 127.0.0.1 (URL is the
// base URL without /v1, as Anthropic's is); Close stops it.
func NewAnthropic() *Server {
	return start(is("/v1/messages"), "/v1/models", func(ids []string) any {
		data := make([]map[string]any, 0, len(ids))
		for _, id := range ids {
			data = append(data, map[string]any{"id": id, "type": "model", "display_name": id, "created_at": "2025-01-01T00:00:00Z"})
		}
		first, last := "", ""
		if len(ids) > 0 {
			first, last = ids[0], ids[len(ids)-1]
		}
		return map[string]any{"data": data, "has_more": false, "first_id": first, "last_id": last}
	})
}

// Events of a Messages stream.

func event(kind string, v map[string]any) Chunk {
	v["type"] = kind
	b, _ := json.Marshal(v)
	return Chunk{Event: kind, Data: string(b)}
}

// MessageStart opens a Messages stream, counting input tokens.
func MessageStart(inputTokens int) Chunk {
	return event("message_start", map[string]any{"message": map[string]any{
		"id": "msg_scripted", "type": "message", "role": "assistant", "model": "scripted-claude", "content": []any{},
		"stop_reason": nil, "usage": map[string]any{"input_tokens": inputTokens, "output_tokens": 1}}})
}

// BlockStart opens content block index: "text", "thinking", or
// "tool_use" (with id and name).
func BlockStart(index int, kind, id, name string) Chunk {
	block := map[string]any{"type": kind}
	switch kind {
	case "text":
		block["text"] = ""
	case "thinking":
		block["thinking"] = ""
	case "tool_use":
		block["id"], block["name"], block["input"] = id, name, map[string]any{}
	}
	return event("content_block_start", map[string]any{"index": index, "content_block": block})
}

// TextDelta adds text to block index.
func TextDelta(index int, s string) Chunk {
	return event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "text_delta", "text": s}})
}

// ThinkingDelta adds thinking to block index.
func ThinkingDelta(index int, s string) Chunk {
	return event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "thinking_delta", "thinking": s}})
}

// InputDelta adds a piece of a tool call's JSON input to block index.
func InputDelta(index int, partial string) Chunk {
	return event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": partial}})
}

// BlockStop closes block index.
func BlockStop(index int) Chunk { return event("content_block_stop", map[string]any{"index": index}) }

// MessageDelta sets the stop reason and the output token count.
func MessageDelta(stopReason string, outputTokens int) Chunk {
	return event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": outputTokens}})
}

// MessageStop ends a Messages stream.
func MessageStop() Chunk { return event("message_stop", map[string]any{}) }

// ErrorEvent is an error sent as a stream event after a 200.
func ErrorEvent(kind, message string) Chunk {
	return event("error", map[string]any{"error": map[string]any{"type": kind, "message": message}})
}

// AnthropicErrorBody is a Messages API error body.
func AnthropicErrorBody(kind, message string) string {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": message}})
	return string(b)
}
