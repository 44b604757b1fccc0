package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"
	"unicode/utf8"

	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
	"hearth/backend/apperr"
)

// File is readWorkspaceFile's answer.
type File struct {
	Path   string `json:"path"`
	Text   string `json:"text"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ReadEvents pages through a run's events.
func (s *Service) ReadEvents(ctx context.Context, runID string, afterSeq int64, beforeSeq *int64, limit int) ([]runstore.Event, bool, error) {
	return s.d.Runs.Events(ctx, runID, afterSeq, beforeSeq, limit)
}

// Run returns a run's summary.
func (s *Service) Run(ctx context.Context, runID string) (runstore.Summary, error) {
	r, err := s.d.Runs.Get(ctx, runID)
	if err != nil {
		return runstore.Summary{}, err
	}
	return r.Summary(), nil
}

// Runs lists runs, newest first.
func (s *Service) Runs(ctx context.Context, f runstore.ListFilter) ([]runstore.Summary, error) {
	runs, err := s.d.Runs.List(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]runstore.Summary, len(runs))
	for i, r := range runs {
		out[i] = r.Summary()
	}
	return out, nil
}

// Checkpoints lists a run's checkpoints, oldest first, without manifests.
func (s *Service) Checkpoints(ctx context.Context, runID string) ([]runstore.Checkpoint, error) {
	return s.d.Runs.Checkpoints(ctx, runID)
}

// ReadWorkspaceFile reads a text file of a run's workspace: as it is now,
// or as a checkpoint recorded it (from the blobs, so a file the run
// later changed or a workspace removed from disk still reads).
func (s *Service) ReadWorkspaceFile(ctx context.Context, runID, path, checkpointID string) (File, error) {
	row, err := s.d.Runs.Get(ctx, runID)
	if err != nil {
		return File{}, err
	}
	clean, err := workspace.Clean(path, workspace.Roots)
	if err != nil {
		return File{}, err
	}
	var data []byte
	if checkpointID != "" {
		m, err := s.manifest(ctx, runID, checkpointID)
		if err != nil {
			return File{}, err
		}
		e, ok := m[clean]
		if !ok {
			return File{}, apperr.New("workspace.file_not_found", "%s is not in checkpoint %s", clean, checkpointID).
				WithDetails(map[string]any{"path": clean, "checkpointId": checkpointID})
		}
		if data, err = s.blobs.Get(e.SHA256); err != nil {
			return File{}, err
		}
	} else {
		dir, err := s.openDir(row)
		if err != nil {
			return File{}, err
		}
		if data, err = dir.Read(clean); err != nil {
			return File{}, err
		}
	}
	if !utf8.Valid(data) {
		return File{}, apperr.New("workspace.not_text", "%s is not UTF-8 text (%d bytes)", clean, len(data))
	}
	return File{Path: clean, Text: string(data), Bytes: len(data), SHA256: hashOf(data)}, nil
}

// ListWorkspaceFiles lists the files of a run's workspace as they are now,
// depth levels deep: 1..workspace.MaxListDepth, or 0 for the deepest.
func (s *Service) ListWorkspaceFiles(ctx context.Context, runID, path string, depth int) ([]workspace.FileInfo, bool, error) {
	if depth == 0 {
		depth = workspace.MaxListDepth
	} else if err := workspace.CheckListDepth(depth); err != nil {
		return nil, false, err
	}
	row, err := s.d.Runs.Get(ctx, runID)
	if err != nil {
		return nil, false, err
	}
	rel, err := workspace.CleanDir(path, workspace.Roots)
	if err != nil {
		return nil, false, err
	}
	dir, err := s.openDir(row)
	if err != nil {
		return nil, false, err
	}
	files, truncated, err := dir.List(rel, depth)
	if files == nil {
		files = []workspace.FileInfo{}
	}
	return files, truncated, err
}

// ReadDiff compares two checkpoints of a run (by default its first and
// its latest): a unified diff per changed file, and an RFC 6902 patch for
// JSON files.
func (s *Service) ReadDiff(ctx context.Context, runID, fromID, toID, path string) ([]workspace.FileDiff, error) {
	if _, err := s.d.Runs.Get(ctx, runID); err != nil {
		return nil, err
	}
	pick := func(id string, fallback func(context.Context, string) (runstore.Checkpoint, error)) (workspace.Manifest, error) {
		if id != "" {
			return s.manifest(ctx, runID, id)
		}
		cp, err := fallback(ctx, runID)
		if err != nil {
			return nil, err
		}
		return decodeManifest(cp.Manifest)
	}
	from, err := pick(fromID, s.d.Runs.FirstCheckpoint)
	if err != nil {
		return nil, err
	}
	to, err := pick(toID, s.d.Runs.LatestCheckpoint)
	if err != nil {
		return nil, err
	}
	only := ""
	if path != "" {
		if only, err = workspace.Clean(path, workspace.Roots); err != nil {
			return nil, err
		}
	}
	files, err := workspace.Diff(s.blobs, from, to, only)
	if files == nil {
		files = []workspace.FileDiff{}
	}
	return files, err
}

// manifest reads checkpoint id of a run.
func (s *Service) manifest(ctx context.Context, runID, id string) (workspace.Manifest, error) {
	cp, err := s.d.Runs.Checkpoint(ctx, runID, id)
	if err != nil {
		return nil, err
	}
	return decodeManifest(cp.Manifest)
}

func decodeManifest(raw json.RawMessage) (workspace.Manifest, error) {
	m := workspace.Manifest{}
	if len(raw) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errors.New("a checkpoint's manifest does not decode: " + err.Error())
	}
	return m, nil
}

// openDir opens a run's workspace folder, which must still exist.
func (s *Service) openDir(row runstore.Run) (*workspace.Dir, error) {
	root := s.runDir(row.WorkspaceID, row.ID)
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return nil, apperr.New("workspace.file_not_found", "run %s has no workspace on disk (it never started one)", row.ID)
	}
	return workspace.OpenWorkingCopy(root)
}

// Cancel stops a run and returns its handle once it recorded the cancel
// (or after a few seconds). Cancelling a finished run changes nothing.
func (s *Service) Cancel(ctx context.Context, runID string) (runstore.Handle, error) {
	if r := s.activeRun(runID); r != nil {
		r.cancel()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
		case <-ctx.Done():
		}
	}
	row, err := s.d.Runs.Get(ctx, runID)
	if err != nil {
		return runstore.Handle{}, err
	}
	return row.Handle(), nil
}

// Approve answers the call a run awaits approval for.
func (s *Service) Approve(ctx context.Context, runID, callID, verdict, reason string) error {
	if verdict != "approve" && verdict != "deny" {
		return apperr.Invalid("decision must be approve or deny; got %q", cut(verdict, 40))
	}
	r := s.activeRun(runID)
	if r == nil {
		if _, err := s.d.Runs.Get(ctx, runID); err != nil {
			return err
		}
		return apperr.New(CodeRunNotActive, "run %s is not going: no call of it awaits approval", runID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == "" || r.pending != callID {
		return apperr.New(CodeCallNotPending, "call %q of run %s is not awaiting approval", cut(callID, 80), runID).
			WithDetails(map[string]any{"runId": runID, "callId": callID, "pending": r.pending})
	}
	r.pending = ""
	r.decisions <- decision{approve: verdict == "approve", reason: cut(reason, 2000)}
	return nil
}
