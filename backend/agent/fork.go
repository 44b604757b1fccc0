package agent

import (
	"context"

	"hearth/backend/agent/runstore"
	"hearth/backend/chats"
	"hearth/backend/store"
)

// maxLineage bounds how many forks back ForkPersist follows a chat's
// sources: a chain of branches of branches is user-made and short, but
// nothing a file or a script wrote is trusted to be.
const maxLineage = 64

// maxPersistPoints bounds how many of a chat's runs a fork looks through
// for its branch point's state.
const maxPersistPoints = 500

// ForkPersist gives a chat being forked (chats.Hooks.AfterFork, inside
// the fork's transaction) the persist/ state its source had at the branch
// point (AGENT.md §2): the state of the newest run whose chat position
// (its last message when it completed) is still at or before the branch
// point. A source with no such run had, there, the state it was itself
// forked with: its own source's at min(branch point, its branch point),
// and so on back; a chain whose source is gone ends with what the last
// reachable chat inherited. Without any, the fork starts without state.
func (s *Service) ForkPersist(ctx context.Context, tx *store.Tx, f chats.Fork) error {
	chatID, at := f.SourceChatID, f.Index
	for range maxLineage {
		p, ok, err := s.statePoint(ctx, tx, chatID, at)
		if err != nil || ok {
			if ok {
				return s.d.Runs.ForkChatPersistTx(ctx, tx, f.ChatID, p)
			}
			return err
		}
		parent, ok, err := chats.ParentTx(ctx, tx, chatID)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		chatID, at = parent.ChatID, min(at, parent.Index)
	}
	p, ok, err := s.d.Runs.InheritedTx(ctx, tx, chatID)
	if err != nil || !ok {
		return err
	}
	return s.d.Runs.ForkChatPersistTx(ctx, tx, f.ChatID, p)
}

// statePoint finds the newest persist/ state a run of chatID left at or
// before message index at.
func (s *Service) statePoint(ctx context.Context, tx *store.Tx, chatID string, at int) (runstore.PersistPoint, bool, error) {
	points, err := s.d.Runs.PersistPointsTx(ctx, tx, chatID, maxPersistPoints)
	if err != nil {
		return runstore.PersistPoint{}, false, err
	}
	for _, p := range points {
		if p.At == "" {
			return p, true, nil
		}
		idx, ok, err := chats.MessageIndexTx(ctx, tx, chatID, p.At)
		if err != nil {
			return runstore.PersistPoint{}, false, err
		}
		if ok && idx <= at {
			return p, true, nil
		}
	}
	return runstore.PersistPoint{}, false, nil
}
