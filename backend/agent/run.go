package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"hearth/backend/agent/profile"
	"hearth/backend/agent/runstore"
	"hearth/backend/agent/skills"
	"hearth/backend/agent/workspace"
	"hearth/backend/apperr"
	"hearth/backend/internal/coalesce"
	"hearth/backend/providers"
)

// run is one agent run going in this process. Its goroutine owns every
// field but the ones under mu, which the watcher and the ABI also touch.
type run struct {
	svc          *Service
	id           string
	chatID       string
	workspaceID  string
	prof         profile.Profile
	typ          string
	presentation string
	stream       bool
	snapshot     Snapshot
	messages     []providers.Message
	model        string
	sampling     providers.Sampling
	provider     providers.Provider
	apiName      string
	// target is the message a swipe or regenerate run writes to; charName
	// names a new reply; speaker, in a group chat, is the member it is by.
	target   string
	charName string
	speaker  string

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	dir      *workspace.Dir
	manifest workspace.Manifest
	// checkpoint is the latest checkpoint's id.
	checkpoint string
	budget     *skills.Budget
	commits    []commitRecord
	reply      *replyAt
	calls      int

	mu sync.Mutex
	// seen maps a path to what the model has seen of its content (read
	// or wrote); apply_patch refuses a file whose hash moved on since, or
	// an old_string outside the seen text.
	seen map[string]seenText
	// wrote maps a path to the hash the run's tools last wrote, so the
	// watcher can tell the run's own writes from outside edits.
	wrote map[string]string
	// dirty lists paths changed from outside since the last checkpoint.
	dirty map[string]bool
	// writing counts the run's writes under way per path: from before the
	// bytes reach the disk until wrote holds their hash, the watcher may
	// report the file (its settle delay can end while the write's
	// checkpoint is still being stored), and the change is the run's own.
	writing map[string]int
	// rescan is set when the watcher lost count of the outside changes
	// (more than it follows one by one, or an inotify overflow): the next
	// checkpoint scans the whole workspace instead of dirty.
	rescan bool
	// outside counts the outside changes recorded as events, up to
	// maxOutsideEvents.
	outside int
	// limited lists the limits already reported (reportLimit).
	limited map[string]bool
	// pending is the call awaiting approval, and where its answer goes.
	pending   string
	decisions chan decision
}

// decision answers a call awaiting approval.
type decision struct {
	approve bool
	reason  string
}

// replyAt is where a run's reply landed in the chat.
type replyAt struct {
	MessageID string
	SwipeID   int
}

// errFinished ends the loop: the model called workspace.finish.
var errFinished = errors.New("finished")

// start launches the run's goroutine.
func (r *run) start() {
	r.ctx, r.cancel = context.WithCancel(r.svc.base)
	r.done = make(chan struct{})
	r.seen, r.wrote, r.dirty, r.writing = map[string]seenText{}, map[string]string{}, map[string]bool{}, map[string]int{}
	r.decisions = make(chan decision, 1)
	r.budget = skills.NewBudget(r.prof.Skills.MaxReadCharsPerCall, r.prof.Skills.MaxReadCharsPerRun)
	r.svc.wg.Add(1)
	go func() {
		defer r.svc.wg.Done()
		defer close(r.done)
		defer r.svc.release(r)
		r.execute()
		r.svc.prune(r.chatID)
	}()
}

// execute is the run from its workspace to its last event.
func (r *run) execute() {
	defer r.cancel()
	err := r.work()
	if r.dir != nil {
		r.svc.watch.remove(r)
	}
	switch {
	case errors.Is(err, errFinished):
		r.complete()
	case r.ctx.Err() != nil && r.svc.base.Err() == nil:
		r.svc.release(r)
		r.emit("run_cancelled", map[string]any{"commits": len(r.commits)}, runstore.Change{Status: runstore.StatusCancelled})
	case r.ctx.Err() != nil:
		// The app is closing: the run stays unfinished and the next start
		// marks it interrupted, as after a crash.
	default:
		r.fail(err)
	}
}

// work runs the steps; it returns errFinished when the model finished.
func (r *run) work() error {
	if err := r.initWorkspace(); err != nil {
		return err
	}
	r.emit("context_assembled", map[string]any{
		"messages": len(r.messages), "tools": toolNames(providerTools(r.prof)), "model": r.model, "api": r.apiName,
	}, runstore.Change{Status: runstore.StatusAssemblingContext})
	convo := r.conversation()
	tools := providerTools(r.prof)
	plain := 0
	for round := 1; round <= r.prof.Tools.MaxRounds; round++ {
		res, err := r.callModel(round, convo, tools)
		if err != nil {
			return err
		}
		convo = append(convo, providers.Message{Role: providers.RoleAssistant, Content: res.Text, ToolCalls: res.ToolCalls})
		if len(res.ToolCalls) == 0 {
			plain++
			convo, err = r.noToolCall(convo, res.Text)
			if err != nil {
				return err
			}
			if plain >= maxPlainRounds {
				return r.noToolCalls(plain)
			}
			continue
		}
		plain = 0
		for _, call := range res.ToolCalls {
			r.calls++
			if r.calls > r.prof.Tools.MaxCallsPerRun {
				return apperr.New(CodeMaxCalls, "the run made %d tool calls without finishing (the profile allows %d)", r.calls-1, r.prof.Tools.MaxCallsPerRun)
			}
			out, err := r.dispatch(call)
			if err != nil && !errors.Is(err, errFinished) {
				return err
			}
			convo = append(convo, providers.Message{Role: providers.RoleTool, ToolCallID: call.ID, Content: out})
			if errors.Is(err, errFinished) {
				return err
			}
		}
	}
	return apperr.New(CodeMaxRounds, "the run used its %d model rounds without finishing", r.prof.Tools.MaxRounds)
}

// maxPlainRounds is how many model rounds in a row may answer without a
// tool call before the run fails with CodeNoToolCalls. The first such
// round is met with a reminder (a model that can call tools sometimes
// answers in text once, then follows it); a model that ignores the
// reminder too does not call tools at all, and more rounds would only
// spend the profile's maxRounds (80 by default, a minute or more) on
// the same plain answer.
const maxPlainRounds = 2

// noToolCalls is the failure of a run whose model answered rounds plain
// rounds in a row without a tool call. Its details say whether the model
// had called tools earlier in the run (toolCalls), which tells "this model
// does not do tool calls" from "this model lost the thread".
func (r *run) noToolCalls(rounds int) error {
	return apperr.New(CodeNoToolCalls,
		"the model answered in plain text %d rounds in a row instead of calling Hearth's tools; pick a model that supports tool calling in the connection, or send without the agent",
		rounds).WithDetails(map[string]any{"rounds": rounds, "toolCalls": r.calls, "model": r.model})
}

// noToolCall keeps a reply that called no tool in scratch/direct_output.md
// and reminds the model how a run ends. A text the workspace cannot take
// (too large, or past its caps) is not kept, and the reminder says why.
func (r *run) noToolCall(convo []providers.Message, text string) ([]providers.Message, error) {
	kept := "your text was saved to scratch/direct_output.md"
	if text != "" && r.prof.Allowed(profile.ToolWorkspaceWriteFile) {
		if _, err := r.writeFile("scratch/direct_output.md", []byte(text), "replace", "direct output"); err != nil {
			ae := apperr.As(err)
			if ae == nil || hostCodes[ae.Code] || !strings.HasPrefix(ae.Code, "workspace.") {
				return nil, err
			}
			kept = "your text could not be kept in scratch/direct_output.md (" + ae.Message + ")"
		}
	}
	artifact, _ := r.prof.MessageBody()
	return append(convo, providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf(
		"[Hearth] You answered without calling a tool; %s. "+
			"Write the reply into %s with workspace_write_file, commit it with workspace_commit, then call workspace_finish.", kept, artifact.Path)}), nil
}

// complete settles a finished run: persist/ becomes the chat's agent
// state, then run_completed.
func (r *run) complete() {
	persist := workspace.Manifest{}
	for p, e := range r.manifest {
		if isPersist(p) {
			persist[p] = e
		}
	}
	raw, _ := json.Marshal(persist)
	at, err := r.svc.d.Chats.LastMessageID(context.Background(), r.chatID)
	if err != nil {
		r.fail(fmt.Errorf("keep persist/: %w", err))
		return
	}
	if err := r.svc.d.Runs.SetChatPersist(context.Background(), r.chatID, r.id, raw, at); err != nil {
		r.fail(fmt.Errorf("keep persist/: %w", err))
		return
	}
	r.emit("persistent_changes_committed", map[string]any{"files": persist.Paths()}, runstore.Change{})
	// The chat is free before the last event: whoever sees run_completed
	// may start the next run at once.
	r.svc.release(r)
	r.emit("run_completed", map[string]any{"commits": len(r.commits)}, runstore.Change{Status: runstore.StatusCompleted})
}

// fail ends the run failed with err's code. The run's error and its
// run_failed event tell the same failure (runFailure).
func (r *run) fail(err error) {
	ae := runFailure(err)
	r.svc.log.Warn("agent run failed", "run", r.id, "code", ae.Code, "err", err)
	r.svc.release(r)
	r.emitLevel(runstore.LevelError, "run_failed", failedPayload(ae),
		runstore.Change{Status: runstore.StatusFailed, Error: ae})
}

// emit appends an info event (and the change) and publishes it.
func (r *run) emit(typ string, payload any, ch runstore.Change) {
	r.emitLevel(runstore.LevelInfo, typ, payload, ch)
}

// emitLevel appends an event detached from the run's context (a cancelled
// run still records why it ended) and publishes it. A failure to record is
// logged: the run cannot report what it cannot store.
func (r *run) emitLevel(level, typ string, payload any, ch runstore.Change) {
	ev, _, err := r.svc.d.Runs.Append(context.Background(), r.id, runstore.EventInput{Level: level, Type: typ, Payload: payload}, ch)
	if err != nil {
		r.svc.log.Error("agent: record event", "run", r.id, "type", typ, "err", err)
		return
	}
	r.svc.publish(ev)
}

// callModel sends one round's request, retrying per the profile, and
// streams model_delta events when the run streams.
func (r *run) callModel(round int, convo []providers.Message, tools []providers.Tool) (providers.Result, error) {
	retry := r.prof.Run.ModelRetry
	for attempt := 0; ; attempt++ {
		r.emit("model_request_created", map[string]any{"round": round, "attempt": attempt + 1, "model": r.model, "messages": len(convo)},
			runstore.Change{Status: runstore.StatusCallingModel})
		var co *coalesce.Coalescer
		if r.stream {
			co = coalesce.New(func(text, reasoning string) {
				p := map[string]any{"round": round, "text": text}
				if reasoning != "" {
					p["reasoning"] = reasoning
				}
				r.emitLevel(runstore.LevelDebug, "model_delta", p, runstore.Change{})
			})
		}
		began := time.Now()
		res, err := r.provider.Stream(r.ctx, providers.Request{Model: r.model, Messages: convo, Tools: tools, Sampling: r.sampling}, func(d providers.Delta) {
			if co != nil {
				co.Add(d.Text, d.Reasoning)
			}
		})
		if co != nil {
			co.Close()
		}
		if err == nil {
			usage := runstore.Usage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens}
			r.emit("model_completed", map[string]any{
				"round": round, "usage": usage, "finishReason": res.FinishReason, "toolCalls": len(res.ToolCalls),
				"text": cut(res.Text, 4000), "model": res.Model, "durationMs": float64(time.Since(began).Microseconds()) / 1000,
			}, runstore.Change{AddUsage: &usage, AddRounds: 1})
			return res, nil
		}
		if r.ctx.Err() != nil {
			return res, r.ctx.Err()
		}
		code := apperr.CodeOf(err)
		if !retryable(code) || attempt >= retry.MaxRetries {
			return res, requestFailed(err)
		}
		wait := time.Duration(retry.IntervalMs) * time.Millisecond
		if ae := apperr.As(err); ae != nil {
			if ms, ok := ae.Details["retryAfterMs"].(int64); ok && time.Duration(ms)*time.Millisecond > wait {
				wait = time.Duration(ms) * time.Millisecond
			}
		}
		r.emitLevel(runstore.LevelWarn, "model_request_retry", map[string]any{"round": round, "attempt": attempt + 1, "code": code, "waitMs": wait.Milliseconds()}, runstore.Change{})
		select {
		case <-time.After(wait):
		case <-r.ctx.Done():
			return res, r.ctx.Err()
		}
	}
}

// retryable reports whether a model failure is worth another try.
func retryable(code string) bool {
	switch code {
	case providers.CodeRateLimited, providers.CodeUnavailable, providers.CodeTimeout, providers.CodeUnreachable:
		return true
	}
	return false
}

// cut shortens s to at most n bytes at a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

func toolNames(ts []providers.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}
