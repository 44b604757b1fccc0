package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"hearth/backend/agent/profile"
	"hearth/backend/agent/runstore"
	"hearth/backend/apperr"
	"hearth/backend/providers"
)

// maxArgsBytes bounds a tool call's arguments as the model wrote them.
const maxArgsBytes = 8 << 20

// hostCodes are failures that are Hearth's, not the model's: they end the
// run instead of going back to the model as a tool result.
var hostCodes = map[string]bool{CodeCommitFailed: true, "internal": true}

// toolFunc runs one tool with its raw arguments.
type toolFunc func(r *run, args json.RawMessage) (any, error)

// toolFuncs are the tools by canonical name.
var toolFuncs = map[string]toolFunc{
	profile.ToolChatSearch:             (*run).chatSearch,
	profile.ToolChatReadMessages:       (*run).chatReadMessages,
	profile.ToolWorldInfoReadActivated: (*run).worldInfoRead,
	profile.ToolSkillList:              (*run).skillList,
	profile.ToolSkillSearch:            (*run).skillSearch,
	profile.ToolSkillRead:              (*run).skillRead,
	profile.ToolWorkspaceListFiles:     (*run).listFiles,
	profile.ToolWorkspaceSearchFiles:   (*run).searchFiles,
	profile.ToolWorkspaceReadFile:      (*run).readFile,
	profile.ToolWorkspaceWriteFile:     (*run).writeFileTool,
	profile.ToolWorkspaceApplyPatch:    (*run).applyPatch,
	profile.ToolWorkspaceCommit:        (*run).commit,
	profile.ToolWorkspaceFinish:        (*run).finish,
}

// dispatch runs one tool call and returns the text the model gets back.
// A model-correctable failure (a bad path, a stale file, a denied call)
// is that text, with its code; a host failure is the error, and ends the
// run. errFinished comes back once workspace.finish succeeded.
func (r *run) dispatch(call providers.ToolCall) (string, error) {
	name, known := profile.Canonical(call.Name)
	args := json.RawMessage(strings.TrimSpace(call.Arguments))
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	shown := args
	if len(shown) > 64<<10 || !json.Valid(shown) {
		shown, _ = json.Marshal(cut(string(args), 64<<10))
	}
	tool := call.Name
	if known {
		tool = name
	}
	r.emit("tool_call_requested", map[string]any{"callId": call.ID, "tool": tool, "args": shown},
		runstore.Change{Status: runstore.StatusDispatchingTool, AddCalls: 1})

	switch {
	case !known:
		return r.toolFailed(call.ID, tool, apperr.New(CodePolicyDenied, "there is no tool %q", cut(call.Name, 80)))
	case !r.prof.Allowed(name):
		return r.toolFailed(call.ID, tool, apperr.New(CodePolicyDenied, "the tool %s is not allowed in this run", name))
	case len(args) > maxArgsBytes:
		return r.toolFailed(call.ID, tool, apperr.Invalid("the arguments are larger than %d MiB", maxArgsBytes>>20))
	case !isJSONObject(args) || !json.Valid(args):
		return r.toolFailed(call.ID, tool, apperr.Invalid("the arguments are not a JSON object"))
	}
	if r.prof.NeedsApproval(name) {
		d, err := r.awaitApproval(call.ID, name, shown)
		if err != nil {
			return "", err
		}
		if !d.approve {
			reason := d.reason
			if reason == "" {
				reason = "the user denied this call"
			}
			return toolResult(map[string]any{"error": map[string]any{"code": "tool.denied", "message": reason}}), nil
		}
	}
	out, err := toolFuncs[name](r, args)
	finished := errors.Is(err, errFinished)
	if err != nil && !finished {
		ae := apperr.As(err)
		if ae == nil || hostCodes[ae.Code] {
			return "", err
		}
		return r.toolFailed(call.ID, tool, ae)
	}
	r.emit("tool_call_completed", map[string]any{"callId": call.ID, "tool": tool, "result": summarize(out)},
		runstore.Change{Status: runstore.StatusDispatchingTool})
	if finished {
		return toolResult(out), errFinished
	}
	return toolResult(out), nil
}

// toolFailed records a model-correctable failure and returns it as the
// call's result.
func (r *run) toolFailed(callID, tool string, ae *apperr.Error) (string, error) {
	r.emitLevel(runstore.LevelWarn, "tool_call_failed", map[string]any{"callId": callID, "tool": tool, "code": ae.Code, "message": ae.Message},
		runstore.Change{Status: runstore.StatusDispatchingTool})
	return toolResult(map[string]any{"error": map[string]any{"code": ae.Code, "message": ae.Message}}), nil
}

// awaitApproval parks the run until the user answers the call (or the run
// is cancelled). The pending call is stored with the run, so every window
// can show it.
func (r *run) awaitApproval(callID, tool string, args json.RawMessage) (decision, error) {
	pending, _ := json.Marshal(map[string]any{"callId": callID, "tool": tool, "args": args})
	r.mu.Lock()
	r.pending = callID
	r.mu.Unlock()
	r.emit("tool_call_approval_requested", map[string]any{"callId": callID, "tool": tool, "args": args},
		runstore.Change{Status: runstore.StatusAwaitingApproval, Pending: pending})
	var d decision
	select {
	case d = <-r.decisions:
	case <-r.ctx.Done():
		return d, r.ctx.Err()
	}
	typ := "tool_call_approved"
	if !d.approve {
		typ = "tool_call_denied"
	}
	r.emit(typ, map[string]any{"callId": callID, "tool": tool, "reason": d.reason},
		runstore.Change{Status: runstore.StatusDispatchingTool, ClearPending: true})
	return d, nil
}

// toolResult renders a tool's answer as the JSON text the model reads.
func toolResult(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return `{"error":{"code":"internal","message":"the tool's answer could not be encoded"}}`
	}
	return strings.TrimSpace(b.String())
}

// summarize keeps a tool's answer small enough for an event.
func summarize(v any) any {
	s := toolResult(v)
	if len(s) <= 2000 {
		return json.RawMessage(s)
	}
	return cut(s, 2000)
}

// decode reads a tool's arguments into v, refusing unknown fields so a
// misspelt argument is reported instead of ignored.
func decode(args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return apperr.New("tool.invalid_arguments", "bad arguments: %v", err)
	}
	return nil
}
