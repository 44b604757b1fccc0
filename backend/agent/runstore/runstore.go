// Package runstore keeps agent runs in SQLite (AGENT.md §4, §6, §8): the
// run rows, their event logs, their workspace checkpoints and the per-chat
// persist/ state the next run starts from.
//
// An event's seq is assigned in the same transaction that inserts it and
// bumps the run's last_seq, so a run's log has no gap and no duplicate
// whatever the number of writers, and a reader that saw seq n has seen
// every event before it. Append is kept to one UPDATE … RETURNING and one
// INSERT, since model_delta events arrive many times a second.
//
// The store publishes nothing: it returns the events it wrote and the
// caller publishes them (from a Tx's AfterCommit when it used a Tx
// variant), so an event reaches the bus only once it is durable.
package runstore

import (
	"time"

	"hearth/backend/store"
)

// Error codes of this package (AGENT.md §3; HOST-ABI §0: stable, dotted).
const (
	// CodeRunNotFound: no run has the id.
	CodeRunNotFound = "agent.run_not_found"
	// CodeRunNotActive: the run has ended (completed, cancelled, failed
	// or interrupted) and the write needs a live run.
	CodeRunNotActive = "agent.run_not_active"
	// CodeCheckpointNotFound: the run has no checkpoint with the id (an
	// id of another run's checkpoint is not found either).
	CodeCheckpointNotFound = "agent.checkpoint_not_found"
	// CodeInterrupted is the error of a run the app did not live to
	// finish (a crash, a kill, a power cut), set by Interrupt.
	CodeInterrupted = "agent.interrupted"
)

// Run statuses (AGENT.md §4): created → initializing_workspace →
// assembling_context → calling_model ⇄ dispatching_tool (⇄
// awaiting_approval) → committing → completed; terminal also cancelled,
// failed and interrupted.
const (
	StatusCreated               = "created"
	StatusInitializingWorkspace = "initializing_workspace"
	StatusAssemblingContext     = "assembling_context"
	StatusCallingModel          = "calling_model"
	StatusDispatchingTool       = "dispatching_tool"
	StatusAwaitingApproval      = "awaiting_approval"
	StatusCommitting            = "committing"
	StatusCompleted             = "completed"
	StatusCancelled             = "cancelled"
	StatusFailed                = "failed"
	StatusInterrupted           = "interrupted"
)

// terminalSQL lists the terminal statuses for SQL; it matches Terminal and
// the partial index agent_runs_unfinished (migration 0011), whose WHERE a
// query must repeat word for word for SQLite to use it.
const terminalSQL = `('completed', 'cancelled', 'failed', 'interrupted')`

// Terminal reports whether status ends a run: nothing moves it further.
func Terminal(status string) bool {
	switch status {
	case StatusCompleted, StatusCancelled, StatusFailed, StatusInterrupted:
		return true
	}
	return false
}

// KnownStatus reports whether status is one of the run statuses.
func KnownStatus(status string) bool {
	switch status {
	case StatusCreated, StatusInitializingWorkspace, StatusAssemblingContext, StatusCallingModel,
		StatusDispatchingTool, StatusAwaitingApproval, StatusCommitting:
		return true
	}
	return Terminal(status)
}

// Event levels.
const (
	LevelDebug = "debug"
	LevelInfo  = "info"
	LevelWarn  = "warn"
	LevelError = "error"
)

// Bounds on what callers send.
const (
	// MaxPayloadBytes bounds an event's marshalled payload. A payload is
	// read back with every page of readEvents and pushed to every
	// subscriber, so a caller cuts big texts (a file's content, a model
	// reply) and points at the workspace file instead.
	MaxPayloadBytes = 1 << 20
	// DefaultEventsLimit and MaxEventsLimit bound a page of Events.
	DefaultEventsLimit = 100
	MaxEventsLimit     = 1000
	// DefaultListLimit and MaxListLimit bound a page of List.
	DefaultListLimit = 50
	MaxListLimit     = 500
)

// Store reads and writes agent runs. It is safe for concurrent use; writes
// queue on the database's one writer connection.
type Store struct {
	db  *store.Store
	now func() time.Time
	// tips keeps runs' newest checkpoints for their next save.
	tips *tips
}

// New returns a Store over db; now stamps rows and events (nil means
// time.Now).
func New(db *store.Store, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now, tips: &tips{}}
}
