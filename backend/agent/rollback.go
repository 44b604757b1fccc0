package agent

import (
	"context"
	"encoding/json"
	"errors"

	"hearth/backend/agent/runstore"
	"hearth/backend/agent/workspace"
	"hearth/backend/apperr"
	"hearth/backend/chats"
)

// Rollback restores a run's workspace to one of its checkpoints, recorded
// as a new checkpoint. With includeChat it also takes back the run's chat
// commits made after that checkpoint, through the chat's change journal;
// when a later edit touched the same messages it fails with
// agent.rollback_conflict and changes nothing. Any failure changes
// nothing (HOST-ABI §0): the workspace and the target's blobs are checked
// before the chat is touched, and a restore failing after the chat revert
// undoes both. A run still going must be
// cancelled first: its next write would race the restore.
func (s *Service) Rollback(ctx context.Context, runID, checkpointID string, includeChat bool) (runstore.Handle, error) {
	if s.activeRun(runID) != nil {
		return runstore.Handle{}, apperr.New(CodeBusy, "run %s is still going: cancel it before rolling it back", runID)
	}
	row, err := s.d.Runs.Get(ctx, runID)
	if err != nil {
		return runstore.Handle{}, err
	}
	target, err := s.d.Runs.Checkpoint(ctx, runID, checkpointID)
	if err != nil {
		return runstore.Handle{}, err
	}
	m, err := decodeManifest(target.Manifest)
	if err != nil {
		return runstore.Handle{}, err
	}
	commits, err := commitsOf(row.Commits)
	if err != nil {
		return runstore.Handle{}, err
	}
	seqOf := map[string]int{}
	cps, err := s.d.Runs.Checkpoints(ctx, runID)
	if err != nil {
		return runstore.Handle{}, err
	}
	for _, cp := range cps {
		seqOf[cp.ID] = cp.Seq
	}
	var revert []int64
	var reverted []string
	for _, c := range commits {
		// A commit belongs after the target when the checkpoint it
		// committed from is newer, or is the target itself (its commit
		// happened after the checkpoint was taken).
		if seqOf[c.CheckpointID] >= target.Seq {
			revert = append(revert, c.Revision)
			reverted = append(reverted, c.CommitID)
		}
	}
	// Everything that can fail is checked before the chat changes: the
	// workspace is there, every blob of the target is readable, and the
	// files as they are now are kept so a failed restore can put them back.
	dir, err := s.openDir(row)
	if err != nil {
		return runstore.Handle{}, err
	}
	if err := workspace.Verify(s.blobs, m); err != nil {
		return runstore.Handle{}, err
	}
	before, _, err := workspace.Scan(dir, s.blobs)
	if err != nil {
		return runstore.Handle{}, err
	}
	var chatRevision *int64
	if includeChat && len(revert) > 0 {
		res, err := s.d.Chats.RevertRevisions(ctx, row.ChatID, revert, chats.WriteOptions{})
		if err != nil {
			if ae := apperr.As(err); ae != nil && ae.Code == apperr.CodeChatConflict {
				return runstore.Handle{}, apperr.New(CodeRollbackConflict, "cannot take the run's commits back out of the chat: %s", ae.Message).
					WithDetails(ae.Details)
			}
			return runstore.Handle{}, err
		}
		chatRevision = &res.Revision
	}
	changed, err := workspace.Restore(dir, s.blobs, m)
	if err != nil {
		return runstore.Handle{}, s.undoRollback(ctx, row.ChatID, dir, before, chatRevision, err)
	}
	if changed == nil {
		changed = []string{}
	}
	manifest, _ := json.Marshal(m)
	files, _ := json.Marshal(changed)
	cp, err := s.d.Runs.SaveCheckpoint(ctx, runID, "rollback to "+checkpointID, manifest, files)
	if err != nil {
		return runstore.Handle{}, s.undoRollback(ctx, row.ChatID, dir, before, chatRevision, err)
	}
	payload := map[string]any{"checkpointId": cp.ID, "restoredFrom": checkpointID, "files": changed, "includeChat": includeChat}
	if includeChat {
		payload["revertedCommits"], payload["chatRevision"] = orEmpty(reverted), chatRevision
	}
	ev, after, err := s.d.Runs.Append(ctx, runID, runstore.EventInput{Type: "rollback_completed", Payload: payload}, runstore.Change{AllowTerminal: true})
	if err != nil {
		return runstore.Handle{}, err
	}
	s.publish(ev)
	return after.Handle(), nil
}

// undoRollback puts back what a rollback changed before a later step
// failed (a disk or database error, since everything foreseeable was
// checked first): the files as they were and, when the chat was reverted,
// the revert itself, which is an ordinary journaled write. It returns the
// step's error, with an undo that failed too joined to it.
func (s *Service) undoRollback(ctx context.Context, chatID string, dir *workspace.Dir, before workspace.Manifest, chatRevision *int64, cause error) error {
	_, fileErr := workspace.Restore(dir, s.blobs, before)
	var chatErr error
	if chatRevision != nil {
		_, chatErr = s.d.Chats.RevertRevisions(ctx, chatID, []int64{*chatRevision}, chats.WriteOptions{})
	}
	if fileErr == nil && chatErr == nil {
		return cause
	}
	return errors.Join(cause, fileErr, chatErr)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
