package providers

import (
	"context"
	"errors"
	"time"
)

// idleWatch ends a stream that goes silent: the returned context is
// cancelled (cause errStalled) once idle passes without a kick. Start it
// when the response headers are in (a local model may take minutes to
// load; the transport's header timeout covers that wait).
type idleWatch struct {
	idle   time.Duration
	timer  *time.Timer
	cancel context.CancelCauseFunc
}

func watchIdle(ctx context.Context, idle time.Duration) (context.Context, *idleWatch) {
	ctx, cancel := context.WithCancelCause(ctx)
	return ctx, &idleWatch{idle: idle, cancel: cancel}
}

// start arms the timer.
func (w *idleWatch) start() { w.timer = time.AfterFunc(w.idle, func() { w.cancel(errStalled) }) }

// kick restarts the silence count: a chunk arrived.
func (w *idleWatch) kick() { w.timer.Reset(w.idle) }

// stop disarms the timer and releases the context.
func (w *idleWatch) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel(nil)
}

// interrupted is the error of a call of cfg's provider whose context
// ended: silence (longer than cfg.IdleTimeout) as model.timeout naming
// the server, the caller's cancel or deadline as is; nil while ctx is live
// (the failure is the provider's).
func interrupted(ctx context.Context, cfg Config) error {
	cause := context.Cause(ctx)
	if cause == nil {
		return nil
	}
	if errors.Is(cause, errStalled) {
		return stalled(Address(cfg.Kind, cfg.BaseURL), cfg.IdleTimeout)
	}
	return cause
}
