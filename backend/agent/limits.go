package agent

import (
	"context"

	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
)

// The workspace's caps (workspace/limits.go) refuse a run's own writes
// with CodeQuotaExceeded, a result the model can act on. What they leave
// out of the files put there from outside, and the watcher's own bounds
// below, are warnings instead: a workspace_limit_reached event, once per
// run and limit, and a log line.

// Limits of the watcher, beside the workspace's, as details.limit of
// workspace_limit_reached.
const (
	// LimitWatches: the workspace has more folders than the watcher
	// watches; changes in the others go unseen until the run's next scan.
	LimitWatches = "watches"
	// LimitChanges: more changes came from outside than the watcher
	// follows one by one; the run's next checkpoint scans the workspace.
	LimitChanges = "changes"
)

const (
	// maxWatchesPerWorkspace is what a workspace within its caps needs:
	// its folders, the five roots and the workspace folder itself.
	maxWatchesPerWorkspace = workspace.MaxWorkspaceFolders + 6
	// maxWatches bounds the inotify watches of every run going at once:
	// an eighth of 8,192, the per-user limit of many Linux systems, which
	// every program the user runs shares. Each run needs a handful.
	maxWatches = 1024
	// maxTracked bounds the outside changes followed one by one: settling
	// (one timer each) at once, and waiting in a run for its next
	// checkpoint. Past it a run only remembers to scan its whole
	// workspace at the next checkpoint (within the caps), so a folder of a
	// million files dropped in costs no memory in proportion.
	maxTracked = workspace.MaxWorkspaceFiles
	// maxOutsideEvents bounds the outside changes a run records as events
	// (each a row and a message to every window); past it they are only
	// taken in by the next checkpoint.
	maxOutsideEvents = workspace.MaxWorkspaceFiles
)

// limitMax is the value of each limit workspace_limit_reached names.
var limitMax = map[string]int64{
	workspace.LimitBytes:     workspace.MaxWorkspaceBytes,
	workspace.LimitFiles:     workspace.MaxWorkspaceFiles,
	workspace.LimitFolders:   workspace.MaxWorkspaceFolders,
	workspace.LimitFileBytes: workspace.MaxFileBytes,
	LimitWatches:             maxWatchesPerWorkspace,
	LimitChanges:             maxTracked,
}

// reportSkipped reports the files a checkpoint left out, per limit.
func (r *run) reportSkipped(s workspace.Skipped) {
	if s.None() {
		return
	}
	by := map[string][]string{}
	var order []string
	for _, f := range s.Files {
		if by[f.Reason] == nil {
			order = append(order, f.Reason)
		}
		by[f.Reason] = append(by[f.Reason], f.Path)
	}
	if len(order) == 0 { // only More: a walk stopped at a cap
		order, by[workspace.LimitFiles] = []string{workspace.LimitFiles}, []string{}
	}
	for _, limit := range order {
		r.reportLimit(limit, map[string]any{"paths": by[limit], "skipped": s.Count, "more": s.More})
	}
}

// reportLimit records that limit stopped the run's workspace from taking
// something in, the first time it does for this run: a warning event
// workspace_limit_reached {limit, max, …details} and a log line. Later
// hits of the same limit are only logged at debug level, so that a flood
// of files makes one event, not one per file. Any goroutine may call it.
func (r *run) reportLimit(limit string, details map[string]any) {
	r.mu.Lock()
	first := !r.limited[limit]
	if r.limited == nil {
		r.limited = map[string]bool{}
	}
	r.limited[limit] = true
	r.mu.Unlock()
	if !first {
		r.svc.log.Debug("agent: workspace limit reached again", "run", r.id, "limit", limit)
		return
	}
	r.svc.log.Warn("agent: workspace limit reached", "run", r.id, "limit", limit, "max", limitMax[limit])
	payload := map[string]any{"limit": limit, "max": limitMax[limit]}
	for k, v := range details {
		payload[k] = v
	}
	ev, _, err := r.svc.d.Runs.Append(context.Background(), r.id, runstore.EventInput{Level: runstore.LevelWarn, Type: "workspace_limit_reached",
		Payload: payload}, runstore.Change{AllowTerminal: true})
	if err != nil {
		r.svc.log.Warn("agent: record a workspace limit", "run", r.id, "limit", limit, "err", err)
		return
	}
	r.svc.publish(ev)
}

// lostTrack makes the run's next checkpoint scan its whole workspace: the
// watcher could not follow its outside changes one by one (why says which
// bound, or that the inotify queue overflowed).
func (r *run) lostTrack(why string) {
	r.mu.Lock()
	r.rescan = true
	clear(r.dirty)
	r.mu.Unlock()
	r.reportLimit(LimitChanges, map[string]any{"reason": why})
}

// markDirty notes a path changed from outside for the next checkpoint;
// past maxTracked paths the run loses track and rescans instead.
func (r *run) markDirty(rel string) {
	r.mu.Lock()
	lost := false
	switch {
	case r.rescan:
	case len(r.dirty) < maxTracked || r.dirty[rel]:
		r.dirty[rel] = true
	default:
		lost = true
	}
	r.mu.Unlock()
	if lost {
		r.lostTrack("more files changed from outside than the watcher follows")
	}
}
