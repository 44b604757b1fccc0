package runstore

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"hearth/backend/apperr"
)

// Run is one agent run's row.
type Run struct {
	ID             string        `json:"runId"`
	ChatID         string        `json:"chatId"`
	WorkspaceID    string        `json:"workspaceId"`
	ProfileID      *string       `json:"profileId"`
	GenerationType string        `json:"generationType"`
	Presentation   string        `json:"presentation"`
	Status         string        `json:"status"`
	Error          *apperr.Error `json:"error"`
	// LastSeq is the seq of the run's newest event.
	LastSeq      int64  `json:"lastSeq"`
	CreatedMs    int64  `json:"createdMs"`
	UpdatedMs    int64  `json:"updatedMs"`
	EndedMs      *int64 `json:"endedMs"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	Rounds       int    `json:"rounds"`
	Calls        int    `json:"calls"`
	// Snapshot is the prompt snapshot the run started from and Profile the
	// profile as resolved then. Both are fixed at Create and can be large,
	// so only Get reads them; the runs of Append, List and Interrupt leave
	// them nil.
	Snapshot json.RawMessage `json:"snapshot,omitempty"`
	Profile  json.RawMessage `json:"profile,omitempty"`
	// Pending is the tool call awaiting approval, {callId, tool, args};
	// nil when none.
	Pending json.RawMessage `json:"pending"`
	// CommitMessageID is the chat message the run's first commit created.
	CommitMessageID *string `json:"commitMessageId"`
	// Commits is the JSON array of the run's chat commits.
	Commits json.RawMessage `json:"commits"`
}

// Usage is a count of model tokens.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

// Summary is a run as listRuns reports it (the seed's AgentRunSummary).
type Summary struct {
	RunID       string `json:"runId"`
	Status      string `json:"status"`
	WorkspaceID string `json:"workspaceId"`
	// StableChatID equals ChatID: a Hearth chat id never changes on rename.
	StableChatID   string        `json:"stableChatId"`
	ChatID         string        `json:"chatId"`
	ProfileID      *string       `json:"profileId"`
	GenerationType string        `json:"generationType"`
	Presentation   string        `json:"presentation"`
	CreatedMs      int64         `json:"createdMs"`
	UpdatedMs      int64         `json:"updatedMs"`
	EndedMs        *int64        `json:"endedMs"`
	Error          *apperr.Error `json:"error"`
	Rounds         int           `json:"rounds"`
	Calls          int           `json:"calls"`
	Usage          Usage         `json:"usage"`
	LastSeq        int64         `json:"lastSeq"`
	// Pending is the call awaiting approval ({callId, tool, args}), or
	// null: a window that opens later can still show the request.
	Pending json.RawMessage `json:"pending"`
}

// Summary returns r as listRuns reports it.
func (r Run) Summary() Summary {
	return Summary{
		RunID: r.ID, Status: r.Status, WorkspaceID: r.WorkspaceID, StableChatID: r.ChatID, ChatID: r.ChatID,
		ProfileID: r.ProfileID, GenerationType: r.GenerationType, Presentation: r.Presentation,
		CreatedMs: r.CreatedMs, UpdatedMs: r.UpdatedMs, EndedMs: r.EndedMs, Error: r.Error,
		Rounds: r.Rounds, Calls: r.Calls, Usage: Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens},
		LastSeq: r.LastSeq, Pending: r.Pending,
	}
}

// Handle is the seed's AgentRunHandle, what starting or cancelling a run
// returns.
type Handle struct {
	RunID        string `json:"runId"`
	Status       string `json:"status"`
	WorkspaceID  string `json:"workspaceId"`
	StableChatID string `json:"stableChatId"`
}

// Handle returns r's AgentRunHandle.
func (r Run) Handle() Handle {
	return Handle{RunID: r.ID, Status: r.Status, WorkspaceID: r.WorkspaceID, StableChatID: r.ChatID}
}

// Event is one entry of a run's log, in the envelope AGENT.md §8 gives.
type Event struct {
	Seq int64 `json:"seq"`
	// ID is RunID + ":" + Seq.
	ID    string `json:"id"`
	RunID string `json:"runId"`
	// Timestamp is RFC 3339 in UTC with milliseconds.
	Timestamp string          `json:"timestamp"`
	Level     string          `json:"level"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// EventInput is an event to append.
type EventInput struct {
	// Level is debug, info, warn or error; "" means info.
	Level string
	// Type is the event type, lower snake case ("checkpoint_created").
	Type string
	// Payload is marshalled to a JSON object of at most MaxPayloadBytes;
	// nil means {}. A json.RawMessage is taken as it is (compacted).
	Payload any
}

// Change is what an Append does to its run besides adding the event.
// Zero fields leave the run as it is.
type Change struct {
	// Status is the new status; "" leaves it. A terminal status also sets
	// EndedMs (once: a later append on the ended run keeps it).
	Status string
	// Error sets the run's error (a failed run's {code, message}).
	Error *apperr.Error
	// Pending sets the tool call awaiting approval; ClearPending removes
	// it (and wins over Pending). nil Pending leaves it as it is.
	Pending      json.RawMessage
	ClearPending bool
	// AddUsage, AddRounds and AddCalls add to the run's totals.
	AddUsage  *Usage
	AddRounds int
	AddCalls  int
	// Commits replaces the run's JSON array of chat commits.
	Commits json.RawMessage
	// CommitMessageID sets the message the run's commits land in.
	CommitMessageID *string
	// AllowTerminal lets the append land on a run that has ended, which
	// Append otherwise refuses with agent.run_not_active: a rollback of a
	// completed run, or a workspace file changed after it, is still part
	// of its history. The status of an ended run still cannot change
	// (restating it is allowed).
	AllowTerminal bool
}

// Checkpoint is a recorded state of a run's workspace.
type Checkpoint struct {
	ID    string `json:"checkpointId"`
	RunID string `json:"runId"`
	// Seq counts the run's checkpoints from 1.
	Seq    int    `json:"seq"`
	Reason string `json:"reason"`
	// Manifest is {path: {sha256, bytes}}, the whole workspace; the light
	// listing of Checkpoints leaves it nil.
	Manifest json.RawMessage `json:"manifest,omitempty"`
	// Files is the JSON array of paths changed since the previous
	// checkpoint.
	Files     json.RawMessage `json:"files"`
	CreatedMs int64           `json:"createdMs"`
}

// runColumns are the columns scanRun reads, in its order; fullRunColumns
// add the snapshot and the profile, which only Get reads.
const (
	runColumns = `id, chat_id, workspace_id, profile_id, generation_type, presentation, status, error, last_seq,
		created_ms, updated_ms, ended_ms, input_tokens, output_tokens, rounds, calls, pending, commit_message_id, commits`
	fullRunColumns = runColumns + `, snapshot, profile`
)

// rowScanner is *sql.Row or *sql.Rows.
type rowScanner interface {
	Scan(dest ...any) error
}

// scanRun reads runColumns, and with full also the snapshot and profile.
func scanRun(sc rowScanner, full bool) (Run, error) {
	var r Run
	var profileID, errJSON, pending, commitMsg sql.NullString
	var ended sql.NullInt64
	var commits string
	dest := []any{&r.ID, &r.ChatID, &r.WorkspaceID, &profileID, &r.GenerationType, &r.Presentation, &r.Status, &errJSON,
		&r.LastSeq, &r.CreatedMs, &r.UpdatedMs, &ended, &r.InputTokens, &r.OutputTokens, &r.Rounds, &r.Calls,
		&pending, &commitMsg, &commits}
	var snapshot, profile string
	if full {
		dest = append(dest, &snapshot, &profile)
	}
	if err := sc.Scan(dest...); err != nil {
		return Run{}, err
	}
	if profileID.Valid {
		r.ProfileID = &profileID.String
	}
	if errJSON.Valid {
		r.Error = &apperr.Error{}
		if err := json.Unmarshal([]byte(errJSON.String), r.Error); err != nil {
			return Run{}, fmt.Errorf("run %s: stored error: %w", r.ID, err)
		}
	}
	if ended.Valid {
		r.EndedMs = &ended.Int64
	}
	if pending.Valid {
		r.Pending = json.RawMessage(pending.String)
	}
	if commitMsg.Valid {
		r.CommitMessageID = &commitMsg.String
	}
	r.Commits = json.RawMessage(commits)
	if full {
		r.Snapshot = json.RawMessage(snapshot)
		r.Profile = json.RawMessage(profile)
	}
	return r, nil
}

// newEvent builds the envelope of a stored event.
func newEvent(runID string, seq, tsMs int64, level, typ string, payload []byte) Event {
	return Event{
		Seq: seq, ID: fmt.Sprintf("%s:%d", runID, seq), RunID: runID, Timestamp: timestamp(tsMs),
		Level: level, Type: typ, Payload: json.RawMessage(payload),
	}
}

// timestamp formats unix ms as RFC 3339 in UTC with milliseconds.
func timestamp(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}
