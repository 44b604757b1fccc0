package agent

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"hearth/backend/agent/workspace"
	"hearth/backend/apperr"
	"hearth/backend/events"
)

// keepRunsPerChat is how many ended runs of a chat are kept with their
// events and checkpoints (readEvents, readDiff and rollback need them);
// older ones go when a run of the chat ends. Two hundred runs is months
// of use of one chat, and bounds a chat's agent history on disk.
const keepRunsPerChat = 200

// sweepGrace is how old a blob or a temp file must be before a sweep may
// remove it: far longer than any write takes to be named by the
// checkpoint it is for.
const sweepGrace = 10 * time.Minute

// onBusEvent forgets the agent history of a deleted chat.
func (s *Service) onBusEvent(e events.Event) {
	p, ok := e.Payload.(*events.ChatDeletedPayload)
	if !ok || p.ChatID == "" {
		return
	}
	chatID := p.ChatID
	if err := s.forgetChat(s.base, chatID); err != nil && s.base.Err() == nil {
		s.log.Error("agent: forget a deleted chat's runs", "chat", chatID, "err", err)
	}
}

// forgetChat removes a chat's runs, state and workspace: first its run
// going, if any, is cancelled and waited for.
func (s *Service) forgetChat(ctx context.Context, chatID string) error {
	s.mu.Lock()
	r := s.byChat[chatID]
	s.mu.Unlock()
	if r != nil {
		r.cancel()
		<-r.done
	}
	if _, err := s.d.Runs.DeleteChat(ctx, chatID); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(s.d.Dir, "workspaces", WorkspaceID(chatID)))
}

// prune keeps a chat's agent history to keepRunsPerChat ended runs.
func (s *Service) prune(chatID string) {
	ids, err := s.d.Runs.PruneChat(s.base, chatID, keepRunsPerChat)
	if err != nil {
		s.log.Warn("agent: prune old runs", "chat", chatID, "err", err)
		return
	}
	for _, id := range ids {
		if err := os.RemoveAll(s.runDir(WorkspaceID(chatID), id)); err != nil {
			s.log.Warn("agent: remove a pruned run's folder", "run", id, "err", err)
		}
	}
}

// sweep, run once in the background at startup, removes what the
// agent's storage no longer needs: the history of chats deleted while the
// app was not there to hear of it, run folders without a run, temp files
// of interrupted writes and blobs no manifest names. Each step that fails
// is logged and the rest still runs; nothing a stored run needs is
// touched.
func (s *Service) sweep() {
	ctx := s.base
	cutoff := s.d.Now().Add(-sweepGrace)
	if err := s.forgetDeletedChats(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("agent: sweep deleted chats", "err", err)
	}
	if err := s.removeStrayRunDirs(ctx, cutoff); err != nil && ctx.Err() == nil {
		s.log.Warn("agent: sweep run folders", "err", err)
	}
	if _, err := workspace.SweepTemps(ctx, filepath.Join(s.d.Dir, "workspaces"), cutoff); err != nil && ctx.Err() == nil {
		s.log.Warn("agent: sweep temp files", "err", err)
	}
	keep, err := s.d.Runs.ReferencedBlobs(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("agent: sweep blobs", "err", err)
		}
		return
	}
	st, err := s.blobs.Sweep(ctx, func(sha string) bool { return keep[sha] }, cutoff)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("agent: sweep blobs", "err", err)
	}
	if st.Blobs+st.Temps > 0 {
		s.log.Info("agent: swept the blob store", "blobs", st.Blobs, "temps", st.Temps, "bytes", st.Bytes)
	}
}

// forgetDeletedChats forgets the chats the agent keeps history for that
// no longer exist.
func (s *Service) forgetDeletedChats(ctx context.Context) error {
	ids, err := s.d.Runs.ChatIDs(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		_, err := s.d.Chats.Get(ctx, id)
		if ae := apperr.As(err); ae != nil && ae.Code == apperr.CodeChatNotFound {
			if err := s.forgetChat(ctx, id); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// removeStrayRunDirs removes run folders no stored run owns (pruned or
// forgotten while a file in them was held open, or left by a crash
// between a delete and its folder's removal) that were last changed
// before cutoff. The sweep runs beside new runs: a run started after
// the known IDs were read makes its folder a moment later, and that
// fresh folder must not be taken for a stray.
func (s *Service) removeStrayRunDirs(ctx context.Context, cutoff time.Time) error {
	known, err := s.d.Runs.RunIDs(ctx)
	if err != nil {
		return err
	}
	root := filepath.Join(s.d.Dir, "workspaces")
	spaces, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, ws := range spaces {
		runs, err := os.ReadDir(filepath.Join(root, ws.Name(), "runs"))
		if err != nil {
			continue
		}
		for _, r := range runs {
			if !r.IsDir() || known[r.Name()] {
				continue
			}
			info, err := r.Info()
			if err != nil || info.ModTime().After(cutoff) {
				continue
			}
			if err := os.RemoveAll(filepath.Join(root, ws.Name(), "runs", r.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
