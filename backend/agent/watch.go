package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
	"hearth/backend/apperr"
	"hearth/backend/events"
)

// settleDelay is how long a path must stay quiet before its change is
// reported: an editor's save (truncate, write, rename) is one change.
const settleDelay = 50 * time.Millisecond

// watcher reports changes to active runs' workspaces: every change as
// WORKSPACE_FILE_CHANGED, and changes made outside Hearth also as the
// run's workspace_file_changed_externally event (the next checkpoint
// takes them in; apply_patch then wants the file read again). fsnotify is
// not recursive, so every folder of a workspace is watched on its own,
// and new ones as they appear.
type watcher struct {
	svc *Service
	w   *fsnotify.Watcher
	// tree serializes watchTree (the run adding its workspace, the loop
	// adding new folders), so its counts of watches hold while it adds.
	tree sync.Mutex

	mu      sync.Mutex
	roots   map[string]*run          // workspace root → run
	pending map[string]*settling     // absolute path → its change, settling
	seen    uint64                   // changes seen so far, to order a flush
	syncs   map[string]chan struct{} // catchUp markers, closed when seen
	synced  uint64                   // catchUp markers made so far, for their names
	done    chan struct{}
}

// settling is a change waiting out settleDelay before it is reported.
// Whoever takes it out of watcher.pending, its timer or remove's flush,
// reports it, so it is reported once.
type settling struct {
	timer *time.Timer
	r     *run
	rel   string
	seq   uint64
}

func newWatcher(s *Service) (*watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	wt := &watcher{svc: s, w: w, roots: map[string]*run{}, pending: map[string]*settling{},
		syncs: map[string]chan struct{}{}, done: make(chan struct{})}
	go wt.loop()
	return wt, nil
}

// add watches r's workspace, every folder of it.
func (wt *watcher) add(r *run) {
	root := r.dir.Root()
	wt.mu.Lock()
	wt.roots[root] = r
	wt.mu.Unlock()
	wt.watchTree(r, root)
}

// syncWait bounds how long remove waits for the watcher to catch up: a
// watcher that lost events (a full inotify queue) must not hold a run's end.
const syncWait = 2 * time.Second

// remove stops watching r's workspace. It first lets the watcher catch up
// with the changes already made (on a busy machine their events can still
// be queued when the run ends), then reports the changes still settling,
// in the order they were seen: a run that writes and finishes within
// settleDelay ends before their timers would fire, and stopping the timers
// lost its last WORKSPACE_FILE_CHANGED. The run calls remove before its
// last event, so these come before it.
func (wt *watcher) remove(r *run) {
	root := r.dir.Root()
	wt.catchUp(root)
	prefix := root + string(filepath.Separator)
	type change struct {
		abs string
		p   *settling
	}
	var flush []change
	wt.mu.Lock()
	delete(wt.roots, root)
	for abs, p := range wt.pending {
		if strings.HasPrefix(abs, prefix) {
			p.timer.Stop()
			delete(wt.pending, abs)
			flush = append(flush, change{abs, p})
		}
	}
	wt.mu.Unlock()
	for _, p := range wt.w.WatchList() {
		if p == root || strings.HasPrefix(p, prefix) {
			_ = wt.w.Remove(p)
		}
	}
	slices.SortFunc(flush, func(a, b change) int { return cmp.Compare(a.p.seq, b.p.seq) })
	for _, c := range flush {
		wt.report(c.p.r, c.p.rel)
	}
}

// catchUp returns once the watcher has taken in every event of changes
// made in root before the call: it writes a marker file there and waits
// for the marker's own event, which fsnotify delivers after theirs (one
// inotify queue, read in order). The marker has the temp-file prefix, so
// nothing reports or lists it.
func (wt *watcher) catchUp(root string) {
	wt.mu.Lock()
	wt.synced++
	marker := filepath.Join(root, fmt.Sprintf("%ssync-%d", workspace.TmpPrefix, wt.synced))
	seen := make(chan struct{})
	wt.syncs[marker] = seen
	wt.mu.Unlock()
	defer func() {
		wt.mu.Lock()
		delete(wt.syncs, marker)
		wt.mu.Unlock()
		_ = os.Remove(marker)
	}()
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		return // the workspace is gone: nothing to catch up with
	}
	select {
	case <-seen:
	case <-time.After(syncWait):
		wt.svc.log.Warn("agent: workspace watcher did not catch up", "root", root)
	}
}

func (wt *watcher) close() {
	_ = wt.w.Close()
	<-wt.done
	wt.mu.Lock()
	for _, p := range wt.pending {
		p.timer.Stop()
	}
	wt.mu.Unlock()
}

// watchTreeEntries bounds the directory entries one watchTree looks at,
// so a folder of a million files dropped in is not listed to its end in
// search of folders (a workspace within its caps has far fewer).
const watchTreeEntries = 4 * (workspace.MaxWorkspaceFiles + workspace.MaxWorkspaceFolders)

// watchTree watches dir, a folder of r's workspace, and the folders under
// it: never through a link, no deeper than workspace.MaxFolderDepth from
// the workspace folder (no file a path can name lies deeper), and within
// maxWatchesPerWorkspace for the run and maxWatches in all, looking
// through at most watchTreeEntries entries. Folders past those go
// unwatched, reported once per run (LimitWatches).
func (wt *watcher) watchTree(r *run, dir string) {
	root := r.dir.Root()
	rel, err := filepath.Rel(root, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	depth := 0
	if rel != "." {
		depth = strings.Count(filepath.ToSlash(rel), "/") + 1
	}
	wt.tree.Lock()
	defer wt.tree.Unlock()
	mine, all := wt.watching(root)
	budget, full := watchTreeEntries, false
	var visit func(p string, depth int)
	visit = func(p string, depth int) {
		if full || budget <= 0 || depth > workspace.MaxFolderDepth {
			return
		}
		if mine >= maxWatchesPerWorkspace || all >= maxWatches {
			full = true
			return
		}
		before, err := os.Lstat(p)
		if err != nil || !before.IsDir() {
			return
		}
		if err := wt.w.Add(p); err != nil {
			wt.svc.log.Warn("agent: watch workspace folder", "dir", p, "err", err)
			return
		}
		mine, all = mine+1, all+1
		// inotify follows a link it is given: a folder swapped for one
		// since the Lstat loses its watch, and is not listed.
		f, err := os.Open(p)
		if err != nil {
			return
		}
		defer f.Close()
		if opened, err := f.Stat(); err != nil || !os.SameFile(before, opened) {
			_ = wt.w.Remove(p)
			return
		}
		for budget > 0 && !full {
			entries, err := f.ReadDir(min(256, budget))
			budget -= len(entries)
			for _, e := range entries {
				if e.IsDir() { // a link is never a folder here
					visit(filepath.Join(p, e.Name()), depth+1)
				}
			}
			if err != nil {
				return
			}
		}
		full = full || budget <= 0 // a folder of more entries than it looks through
	}
	visit(dir, depth)
	if full {
		r.reportLimit(LimitWatches, map[string]any{"dir": filepath.ToSlash(rel), "watchesInAll": maxWatches})
	}
}

// watching counts the folders watched in the workspace at root, and in
// all.
func (wt *watcher) watching(root string) (mine, all int) {
	list := wt.w.WatchList()
	prefix := root + string(filepath.Separator)
	for _, p := range list {
		if p == root || strings.HasPrefix(p, prefix) {
			mine++
		}
	}
	return mine, len(list)
}

func (wt *watcher) loop() {
	defer close(wt.done)
	for {
		select {
		case ev, ok := <-wt.w.Events:
			if !ok {
				return
			}
			wt.event(ev)
		case err, ok := <-wt.w.Errors:
			if !ok {
				return
			}
			wt.svc.log.Warn("agent: workspace watcher", "err", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				wt.mu.Lock()
				runs := slices.Collect(maps.Values(wt.roots))
				wt.mu.Unlock()
				for _, r := range runs {
					r.lostTrack("the system dropped file events (inotify queue overflow)")
				}
			}
		}
	}
}

// event settles one fsnotify event per path.
func (wt *watcher) event(ev fsnotify.Event) {
	wt.mu.Lock()
	if seen, ok := wt.syncs[ev.Name]; ok && ev.Has(fsnotify.Create) {
		delete(wt.syncs, ev.Name)
		close(seen)
	}
	wt.mu.Unlock()
	r, rel := wt.owner(ev.Name)
	if r == nil {
		return
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			wt.watchTree(r, ev.Name)
			// A folder moved in brings files no event names: the next
			// checkpoint walks it (within the caps).
			r.markDirty(rel)
			return
		}
	}
	if strings.HasPrefix(filepath.Base(ev.Name), workspace.TmpPrefix) || rel == "" {
		return
	}
	wt.mu.Lock()
	old := wt.pending[ev.Name]
	if old == nil && len(wt.pending) >= maxTracked {
		wt.mu.Unlock()
		// Past what the watcher follows one by one: the run's next
		// checkpoint scans its workspace instead.
		r.lostTrack("more changes settling at once than the watcher follows")
		return
	}
	defer wt.mu.Unlock()
	if old != nil {
		old.timer.Stop()
	}
	wt.seen++
	p := &settling{r: r, rel: rel, seq: wt.seen}
	p.timer = time.AfterFunc(settleDelay, func() {
		wt.mu.Lock()
		// A timer that fired as remove flushed it, or as a later change
		// replaced it, leaves the report to them.
		mine := wt.pending[ev.Name] == p
		if mine {
			delete(wt.pending, ev.Name)
		}
		wt.mu.Unlock()
		if mine {
			wt.report(r, rel)
		}
	})
	wt.pending[ev.Name] = p
}

// owner finds the run whose workspace holds path, and path inside it.
func (wt *watcher) owner(path string) (*run, string) {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	for root, r := range wt.roots {
		if strings.HasPrefix(path, root+string(filepath.Separator)) {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return nil, ""
			}
			return r, filepath.ToSlash(rel)
		}
	}
	return nil, ""
}

// report publishes a settled change, and records it as the run's event
// when the run did not make it. It reads the file as the tools do
// (workspace.Dir.Read): never through a link, which is reported as op
// "symlink", and at most workspace.MaxFileBytes, a bigger file being op
// "too_large" with its size, unread. Outside changes past
// maxOutsideEvents are no longer published or recorded, only left to
// the run's next checkpoint (markDirty).
func (wt *watcher) report(r *run, rel string) {
	if _, err := workspace.Clean(rel, workspace.Roots); err != nil {
		return
	}
	op, sha := "write", ""
	var size *int64
	data, err := r.dir.Read(rel)
	ae := apperr.As(err)
	switch {
	case err == nil:
		sha = hashOf(data)
	case ae == nil:
		return // a read error: nothing to tell
	case ae.Code == workspace.CodeFileNotFound:
		op = "remove"
	case ae.Code == workspace.CodePathDenied && ae.Details["reason"] == workspace.ReasonSymlink:
		op = "symlink"
	case ae.Code == workspace.CodeFileTooLarge:
		op = "too_large"
		if n, ok := ae.Details["bytes"].(int64); ok {
			size = &n
		}
	default:
		return // a folder or a special file
	}
	r.mu.Lock()
	own := r.wrote[rel] == sha && sha != "" || r.writing[rel] > 0
	record := own
	if !own {
		delete(r.wrote, rel)
		if r.outside < maxOutsideEvents {
			r.outside++
			record = true
		}
	}
	r.mu.Unlock()
	if !own {
		r.markDirty(rel)
	}
	if !record {
		r.reportLimit(LimitChanges, map[string]any{"reason": "more changes from outside than a run records"})
		return
	}
	payload := map[string]any{"path": rel, "op": op, "sha256": sha}
	if size != nil {
		payload["bytes"] = *size
	}
	wt.svc.d.Bus.Publish(events.Event{Type: EventWorkspaceFileChanged, Payload: &events.WorkspaceFileChangedPayload{
		RunID: r.id, WorkspaceID: r.workspaceID, Path: rel, Op: op, Sha256: sha, Bytes: size}})
	if own {
		return
	}
	ev, _, err := wt.svc.d.Runs.Append(context.Background(), r.id, runstore.EventInput{Level: runstore.LevelWarn, Type: "workspace_file_changed_externally",
		Payload: payload}, runstore.Change{AllowTerminal: true})
	if err != nil {
		wt.svc.log.Warn("agent: record an outside change", "run", r.id, "path", rel, "err", err)
		return
	}
	wt.svc.publish(ev)
}
