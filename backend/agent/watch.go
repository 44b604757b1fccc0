package agent

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
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

	mu     sync.Mutex
	roots  map[string]*run // workspace root → run
	timers map[string]*time.Timer
	done   chan struct{}
}

func newWatcher(s *Service) (*watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	wt := &watcher{svc: s, w: w, roots: map[string]*run{}, timers: map[string]*time.Timer{}, done: make(chan struct{})}
	go wt.loop()
	return wt, nil
}

// add watches r's workspace, every folder of it.
func (wt *watcher) add(r *run) {
	root := r.dir.Root()
	wt.mu.Lock()
	wt.roots[root] = r
	wt.mu.Unlock()
	wt.watchTree(root)
}

// remove stops watching r's workspace.
func (wt *watcher) remove(r *run) {
	root := r.dir.Root()
	wt.mu.Lock()
	delete(wt.roots, root)
	for key, t := range wt.timers {
		if strings.HasPrefix(key, root+string(filepath.Separator)) {
			t.Stop()
			delete(wt.timers, key)
		}
	}
	wt.mu.Unlock()
	for _, p := range wt.w.WatchList() {
		if p == root || strings.HasPrefix(p, root+string(filepath.Separator)) {
			_ = wt.w.Remove(p)
		}
	}
}

func (wt *watcher) close() {
	_ = wt.w.Close()
	<-wt.done
	wt.mu.Lock()
	for _, t := range wt.timers {
		t.Stop()
	}
	wt.mu.Unlock()
}

// watchTree adds dir and the folders under it (symlinks are not followed).
func (wt *watcher) watchTree(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if err := wt.w.Add(p); err != nil {
			wt.svc.log.Warn("agent: watch workspace folder", "dir", p, "err", err)
		}
		return nil
	})
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
		}
	}
}

// event settles one fsnotify event per path.
func (wt *watcher) event(ev fsnotify.Event) {
	r, rel := wt.owner(ev.Name)
	if r == nil {
		return
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			wt.watchTree(ev.Name)
			return
		}
	}
	if strings.HasPrefix(filepath.Base(ev.Name), ".hearth-tmp-") || rel == "" {
		return
	}
	wt.mu.Lock()
	defer wt.mu.Unlock()
	if t := wt.timers[ev.Name]; t != nil {
		t.Stop()
	}
	wt.timers[ev.Name] = time.AfterFunc(settleDelay, func() {
		wt.mu.Lock()
		delete(wt.timers, ev.Name)
		wt.mu.Unlock()
		wt.report(r, rel, ev.Name)
	})
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
// when the run did not make it.
func (wt *watcher) report(r *run, rel, abs string) {
	if _, err := workspace.Clean(rel, workspace.Roots); err != nil {
		return
	}
	op, sha := "write", ""
	data, err := os.ReadFile(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		op = "remove"
	case err != nil:
		return
	default:
		sha = hashOf(data)
	}
	wt.svc.d.Bus.Publish(events.Event{Type: EventWorkspaceFileChanged, Payload: map[string]any{
		"runId": r.id, "workspaceId": r.workspaceID, "path": rel, "op": op, "sha256": sha,
	}})
	r.mu.Lock()
	own := r.wrote[rel] == sha && sha != "" || r.writing[rel] > 0
	if !own {
		r.dirty[rel] = true
		delete(r.wrote, rel)
	}
	r.mu.Unlock()
	if own {
		return
	}
	ev, _, err := wt.svc.d.Runs.Append(context.Background(), r.id, runstore.EventInput{Level: runstore.LevelWarn, Type: "workspace_file_changed_externally",
		Payload: map[string]any{"path": rel, "op": op, "sha256": sha}}, runstore.Change{AllowTerminal: true})
	if err != nil {
		wt.svc.log.Warn("agent: record an outside change", "run", r.id, "path", rel, "err", err)
		return
	}
	wt.svc.publish(ev)
}
