// Package agent runs agents (AGENT.md): a run is one goroutine in the
// backend that calls the model with the profile's tools, works in a
// workspace of files, checkpoints every write, and commits its reply to
// the chat through the message pipeline. Everything a run does is an event
// in SQLite (backend/agent/runstore) published on the bus, so a window that
// closes or reloads loses nothing and a crash leaves the run interrupted,
// not running.
package agent

import (
	"crypto/sha256"
	"encoding/hex"

	"hearth/backend/agent/workspace"
)

// Error codes of agent runs (AGENT.md §3): the seed's, then Hearth's.
const (
	CodeInvalidProfile         = "agent.invalid_profile"
	CodePresentationInvalid    = "agent.presentation_invalid"
	CodeExternalTools          = "agent.external_tools_unsupported"
	CodeChatCompletionRequired = "agent.chat_completion_required"
	CodePolicyDenied           = "tool.policy_denied"
	CodePathDenied             = "workspace.path_denied"
	CodeArtifactMissing        = "workspace.required_artifact_missing"
	CodeModelRequestFailed     = "model.request_failed"
	CodeCommitFailed           = "commit.save_failed"
	CodeRunNotFound            = "agent.run_not_found"
	CodeRunNotActive           = "agent.run_not_active"
	CodeCheckpointNotFound     = "agent.checkpoint_not_found"
	CodeRollbackConflict       = "agent.rollback_conflict"
	CodeCallNotPending         = "agent.call_not_pending"
	// CodeBusy: the chat has a run going already; its commits would
	// interleave with this one's.
	CodeBusy = "agent.busy"
	// CodeMaxRounds and CodeMaxCalls end a run that reached its profile's
	// bounds without finishing.
	CodeMaxRounds = "agent.max_rounds"
	CodeMaxCalls  = "agent.max_calls"
	// CodeNoToolCalls ends a run whose model answered in plain text,
	// without a tool call, maxPlainRounds rounds in a row: a model (or a
	// server) that does not do tool calls would otherwise spin until
	// CodeMaxRounds.
	CodeNoToolCalls = "agent.no_tool_calls"
	// CodeStaleFile: apply_patch on a file the run has not read since it
	// last changed, or whose old_string reaches lines the run has not
	// read since. The model reads them (the message names them) and
	// retries.
	CodeStaleFile = "workspace.stale_file"
	// CodeQuotaExceeded: a write would take the run's workspace past one
	// of its caps (workspace.MaxWorkspaceBytes, MaxWorkspaceFiles,
	// MaxWorkspaceFolders); details.limit names it. The model gets it as
	// the tool's result, and nothing was written.
	CodeQuotaExceeded = workspace.CodeQuotaExceeded
	// CodeNoConnection: nothing to send the model requests to.
	CodeNoConnection = "agent.no_connection"
	// CodeInterrupted is the error of a run the app did not live to finish.
	CodeInterrupted = "agent.interrupted"
)

// WorkspaceID is the workspace of a chat: "ws_" and the first 16 hex
// digits of sha256("chat:" + chatId) (AGENT.md §2).
func WorkspaceID(chatID string) string {
	sum := sha256.Sum256([]byte("chat:" + chatID))
	return "ws_" + hex.EncodeToString(sum[:])[:16]
}
