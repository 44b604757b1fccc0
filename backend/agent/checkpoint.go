package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
	"hearth/backend/apperr"
	"hearth/backend/store"
)

// checkpointNow records, in one transaction, the event of a workspace
// change (when typ is set), a checkpoint of r.manifest and its
// checkpoint_created event; the events go out once it committed. The
// blobs already exist: Update and Scan put them before the manifest names
// them.
func (r *run) checkpointNow(ctx context.Context, reason string, files []string, typ string, payload map[string]any) error {
	manifest, err := json.Marshal(r.manifest)
	if err != nil {
		return err
	}
	if files == nil {
		files = []string{}
	}
	filesRaw, _ := json.Marshal(files)
	var evs []runstore.Event
	var cp runstore.Checkpoint
	err = r.svc.d.DB.InTx(ctx, func(tx *store.Tx) error {
		evs = evs[:0]
		if typ != "" {
			ev, _, err := r.svc.d.Runs.AppendTx(ctx, tx, r.id, runstore.EventInput{Type: typ, Payload: payload}, runstore.Change{})
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		var err error
		cp, err = r.svc.d.Runs.SaveCheckpointTx(ctx, tx, r.id, reason, manifest, filesRaw)
		if err != nil {
			return err
		}
		ev, _, err := r.svc.d.Runs.AppendTx(ctx, tx, r.id, runstore.EventInput{Type: "checkpoint_created", Payload: map[string]any{
			"checkpointId": cp.ID, "reason": reason, "files": files,
		}}, runstore.Change{})
		if err != nil {
			return err
		}
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	r.checkpoint = cp.ID
	for _, ev := range evs {
		r.svc.publish(ev)
	}
	return nil
}

// takeIn brings r.manifest up to date with the workspace and returns the
// paths that changed, sorted, for the checkpoint that follows: own (what
// the run itself just wrote) first, within the caps, then the paths
// changed from outside since the last checkpoint, or, when the watcher
// lost count of those (more than it tracks, or events lost), the whole
// workspace again. What the caps left out is reported (reportSkipped).
func (r *run) takeIn(own ...string) ([]string, error) {
	r.mu.Lock()
	rescan := r.rescan
	r.rescan = false
	order := slices.Clone(own)
	for p := range r.dirty {
		if !slices.Contains(own, p) {
			order = append(order, p)
		}
	}
	clear(r.dirty)
	r.mu.Unlock()
	slices.Sort(order[len(own):])
	changed := order
	var next workspace.Manifest
	var skipped workspace.Skipped
	var err error
	if rescan {
		next, skipped, err = workspace.Scan(r.dir, r.svc.blobs, own...)
		changed = append(changedPaths(r.manifest, next), own...)
	} else {
		next, skipped, err = workspace.Update(r.dir, r.svc.blobs, r.manifest, order)
	}
	if err != nil {
		return nil, err
	}
	r.manifest = next
	r.reportSkipped(skipped)
	slices.Sort(changed)
	return slices.Compact(changed), nil
}

// changedPaths lists the paths whose entries differ between two
// manifests, there in one and not the other included.
func changedPaths(prev, next workspace.Manifest) []string {
	var out []string
	for p, e := range next {
		if prev[p] != e {
			out = append(out, p)
		}
	}
	for p := range prev {
		if _, ok := next[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// writeFile writes (or appends to) a workspace file for the run, marks its
// content as seen by the model and checkpoints it. It returns the file's
// new hash.
func (r *run) writeFile(path string, data []byte, mode, reason string) (workspace.Entry, error) {
	next, known := data, seenText{hash: hashOf(data)}.with(span{0, len(data)})
	if mode == "append" {
		var err error
		if next, known, err = r.appended(path, data); err != nil {
			return workspace.Entry{}, err
		}
	}
	return r.ownWrite(path, next, known, reason, "workspace_file_written", map[string]any{"mode": mode})
}

// appended returns the content of path with data appended (a missing file
// is empty) and what the run will have seen of it: the appended bytes, and
// what it had seen of the old content if that is still what the file
// holds. The run reads the file itself, rather than leave it to
// workspace.Dir.Append, to know the old content's hash.
func (r *run) appended(path string, data []byte) ([]byte, seenText, error) {
	old, err := r.dir.Read(path)
	if err != nil && apperr.CodeOf(err) != workspace.CodeFileNotFound {
		return nil, seenText{}, err
	}
	next := append(old[:len(old):len(old)], data...)
	seen := r.seenOf(path)
	if seen.hash != hashOf(old) {
		seen = seenText{}
	}
	return next, seenText{hash: hashOf(next), spans: seen.spans}.with(span{len(old), len(next)}), nil
}

// ownWrite replaces path with next, a change the run makes, and records it
// (afterWrite) with known, what the run has seen of next; path is marked
// as being written throughout so the watcher never takes the run's own
// write for an outside edit.
func (r *run) ownWrite(path string, next []byte, known seenText, reason, typ string, payload map[string]any) (workspace.Entry, error) {
	r.mu.Lock()
	r.writing[path]++
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		if r.writing[path]--; r.writing[path] <= 0 {
			delete(r.writing, path)
		}
		r.mu.Unlock()
	}()
	if err := r.dir.Write(path, next); err != nil {
		return workspace.Entry{}, err
	}
	return r.afterWrite(path, known, reason, typ, payload)
}

// afterWrite records a write the run made: what the run has seen of path
// now, the new hash as written by the run, a new manifest and its
// checkpoint with the event. known is keyed by the hash of the bytes the
// run wrote, not the file's: an outside edit that landed right after the
// write leaves them apart, and the model reads the file before patching.
func (r *run) afterWrite(path string, known seenText, reason, typ string, payload map[string]any) (workspace.Entry, error) {
	files, err := r.takeIn(path)
	if err != nil {
		return workspace.Entry{}, err
	}
	entry, ok := r.manifest[path]
	if !ok {
		return workspace.Entry{}, fmt.Errorf("the file %s vanished right after it was written", path)
	}
	r.mu.Lock()
	r.seen[path], r.wrote[path] = known, entry.SHA256
	r.mu.Unlock()
	payload["path"], payload["bytes"], payload["sha256"] = path, entry.Bytes, entry.SHA256
	if err := r.checkpointNow(context.Background(), reason, files, typ, payload); err != nil {
		return workspace.Entry{}, err
	}
	return entry, nil
}
