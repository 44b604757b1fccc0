package providers

import (
	"encoding/json"
	"sort"

	"github.com/openai/openai-go/v3"

	"hearth/backend/apperr"
)

// reasoningFields are where OpenAI-compatible servers put a thinking
// model's reasoning in a delta: reasoning_content (DeepSeek, llama.cpp,
// vLLM, LM Studio) or reasoning (OpenRouter, Ollama).
var reasoningFields = []string{"reasoning_content", "reasoning"}

// accumulator builds a Result from Chat Completions chunks (choice 0; a
// request asks for one choice).
type accumulator struct {
	reply
	calls    map[int64]*ToolCall
	order    []int64
	usage    Usage
	finish   string
	model    string
	finished bool
}

// add folds one chunk in and returns what it added to the text.
func (a *accumulator) add(chunk openai.ChatCompletionChunk) (Delta, error) {
	if chunk.Model != "" {
		a.model = chunk.Model
	}
	if chunk.JSON.Usage.Valid() {
		a.usage = Usage{
			InputTokens:     chunk.Usage.PromptTokens,
			OutputTokens:    chunk.Usage.CompletionTokens,
			ReasoningTokens: chunk.Usage.CompletionTokensDetails.ReasoningTokens,
		}
	}
	var d Delta
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue
		}
		d.Text = ch.Delta.Content
		d.Reasoning = reasoningOf(ch.Delta)
		for _, tc := range ch.Delta.ToolCalls {
			if err := a.addCall(tc); err != nil {
				return Delta{}, err
			}
		}
		if ch.FinishReason != "" {
			a.finish = ch.FinishReason
			a.finished = true
		}
	}
	if err := a.reply.add(d); err != nil {
		return Delta{}, err
	}
	return d, nil
}

func (a *accumulator) complete() bool { return a.finished }

// addCall folds a tool-call fragment in: the first fragment of an index
// names the call, later ones append to its arguments.
func (a *accumulator) addCall(tc openai.ChatCompletionChunkChoiceDeltaToolCall) error {
	if a.calls == nil {
		a.calls = map[int64]*ToolCall{}
	}
	call, ok := a.calls[tc.Index]
	if !ok {
		if len(a.calls) >= maxToolCalls {
			return apperr.New(CodeBadResponse, "the model made more than %d tool calls in one reply", maxToolCalls)
		}
		call = &ToolCall{}
		a.calls[tc.Index] = call
		a.order = append(a.order, tc.Index)
	}
	if tc.ID != "" {
		call.ID = tc.ID
	}
	call.Name += tc.Function.Name
	if len(call.Arguments)+len(tc.Function.Arguments) > maxToolArgsBytes || len(call.Name) > 256 {
		return apperr.New(CodeBadResponse, "a tool call of the reply is larger than %d KiB", maxToolArgsBytes>>10)
	}
	call.Arguments += tc.Function.Arguments
	return nil
}

// reasoningOf reads the delta's reasoning text, from whichever field the
// server uses.
func reasoningOf(d openai.ChatCompletionChunkChoiceDelta) string {
	for _, name := range reasoningFields {
		// The SDK marks fields it has no type for as not Valid; their raw
		// JSON is all there is.
		f, ok := d.JSON.ExtraFields[name]
		if !ok || f.Raw() == "" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// result is what has arrived so far.
func (a *accumulator) result() Result {
	r := Result{Text: a.text.String(), Reasoning: a.reasoning.String(), Usage: a.usage, FinishReason: a.finish, Model: a.model}
	idx := append([]int64(nil), a.order...)
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	for _, i := range idx {
		r.ToolCalls = append(r.ToolCalls, *a.calls[i])
	}
	return r
}
