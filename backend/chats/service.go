// Package chats owns chats and their messages: lifecycle, index- and
// id-based message writes, swipes, metadata, RFC 6902 patches, per-chat
// revisions and the change journal.
//
// Every mutation runs through Service.mutate: one store transaction that
// checks ifRevision, applies the change, bumps the revision, appends the
// journal entry and schedules its events for after the commit.
package chats

import (
	"context"
	"math/rand/v2"
	"time"

	"hearth/backend/characters"
	"hearth/backend/events"
	"hearth/backend/store"
)

// CharacterSource is what chats need to know about characters.
type CharacterSource interface {
	Get(ctx context.Context, avatar string) (*characters.Card, error)
}

// Service manages chats and messages.
type Service struct {
	db    *store.Store
	bus   *events.Bus
	chars CharacterSource
	now   func() time.Time
	hooks Hooks
	// pick returns a random int in [0, n): which greeting a member of a
	// new group chat opens with (a test fixes it).
	pick func(n int) int
}

// Hooks are what chats asks of services it must not import (backend/app
// wires them). Each may be nil. They are given to New, not set later, so
// a service is whole from its first call.
type Hooks struct {
	// UserName names the user in a chat ("" chatID: a chat not yet
	// created): the persona in effect there (backend/personas). Messages
	// without a name, greetings' {{user}} and exported headers use it. Nil
	// falls back to the settings row user_name, else "User".
	UserName func(ctx context.Context, chatID string) string
	// AfterFork runs inside the transaction that makes a checkpoint or
	// branch, after its messages and state are copied: a service chats
	// must not import (the agent's persist/ state) forks its own per-chat
	// data there, so the fork and that data land or fail together. An
	// error aborts the fork.
	AfterFork func(ctx context.Context, tx *store.Tx, f Fork) error
	// CloneLorebook copies the lorebook name a chat being forked binds
	// (metadata world_info) for the new chat chatName and returns the
	// copy's name; ok false keeps the reference (no such book). Nil keeps
	// every reference: the books live in backend/worldinfo.
	CloneLorebook func(ctx context.Context, tx *store.Tx, name, chatName string) (clone string, ok bool, err error)
	// Groups keeps a group's chat list in step with its chats
	// (backend/groups). Nil: chat.create of a group answers
	// group.not_found, and a group chat's delete or rename touches no
	// group.
	Groups GroupChats
	// Index hears of every write that queued search work, inside its
	// transaction (backend/search's Indexer). Nil leaves the work queued
	// until a search reads it.
	Index Indexer
}

// New returns a chat service.
func New(db *store.Store, bus *events.Bus, chars CharacterSource, now func() time.Time, hooks Hooks) *Service {
	return &Service{db: db, bus: bus, chars: chars, now: now, hooks: hooks, pick: rand.IntN}
}
