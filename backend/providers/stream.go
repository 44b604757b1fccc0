package providers

import (
	"context"
	"strings"

	"hearth/backend/apperr"
)

// eventStream is an SDK's stream of decoded events (the ssestream.Stream
// of both SDKs).
type eventStream[T any] interface {
	Next() bool
	Current() T
	Err() error
	Close() error
}

// folder folds a wire format's events into a reply.
type folder[T any] interface {
	add(ev T) (Delta, error)
	result() Result
	// complete reports whether the reply's end arrived.
	complete() bool
}

// drain reads stream to its end: each event is folded into f, its text
// passed to onDelta, and the idle watch kicked. A stream error goes
// through fail; a stream that ends before the reply is complete is
// model.bad_response. The result holds what arrived, whatever the error.
func drain[T any](ctx context.Context, watch *idleWatch, stream eventStream[T], f folder[T], onDelta func(Delta), fail func(context.Context, error) error) (Result, error) {
	defer stream.Close()
	watch.start()
	for stream.Next() {
		watch.kick()
		d, err := f.add(stream.Current())
		if err != nil {
			return f.result(), err
		}
		if (d.Text != "" || d.Reasoning != "") && onDelta != nil {
			onDelta(d)
		}
	}
	if err := stream.Err(); err != nil {
		return f.result(), fail(ctx, err)
	}
	if !f.complete() {
		return f.result(), apperr.New(CodeBadResponse, "the stream ended before the model finished its reply")
	}
	return f.result(), nil
}

// reply collects a reply's text and reasoning within maxReplyBytes.
type reply struct {
	text, reasoning strings.Builder
}

func (r *reply) add(d Delta) error {
	if r.text.Len()+r.reasoning.Len()+len(d.Text)+len(d.Reasoning) > maxReplyBytes {
		return apperr.New(CodeBadResponse, "the reply is longer than %d MiB", maxReplyBytes>>20)
	}
	r.text.WriteString(d.Text)
	r.reasoning.WriteString(d.Reasoning)
	return nil
}
