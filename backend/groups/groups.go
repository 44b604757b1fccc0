// Package groups stores group chats' groups (HOST-ABI §5.1): SillyTavern's
// groups/<id>.json objects, kept whole (snake_case keys, numeric enums,
// unknown keys kept), plus Hearth's `hearth` block of per-member
// overrides, and decides who speaks next in a group chat (draft.go).
//
// A group names its members by character avatar key, which never changes
// (a character's display name can, and a group holds none). When a
// character is deleted its groups drop it in the delete's transaction
// (DropMemberIn, the characters service's Deleting hook). A group left
// with no members stays, as SillyTavern keeps it (it drops missing
// members when a group is opened and keeps the group, which then answers
// nobody); an update that sets members must name at least one.
package groups

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// Characters is what groups need of the character library
// (backend/characters, wired by backend/app).
type Characters interface {
	// NameIn returns the display name of the character with the avatar
	// key and whether there is one, read inside tx.
	NameIn(ctx context.Context, tx *store.Tx, avatar string) (string, bool, error)
}

// Service manages groups.
type Service struct {
	db    *store.Store
	bus   *events.Bus
	chars Characters
	now   func() time.Time
}

// New returns a group service.
func New(db *store.Store, bus *events.Bus, chars Characters, now func() time.Time) *Service {
	return &Service{db: db, bus: bus, chars: chars, now: now}
}

// Group is one group: SillyTavern's object as stored, and what Hearth
// works out about it when it is read.
type Group struct {
	// Data is the group object: SillyTavern's keys (id included), unknown
	// keys kept, and Hearth's `hearth` block.
	Data jsonx.Object
	// CreatedAt and UpdatedAt are unix ms: when the group was created and
	// last changed.
	CreatedAt int64
	UpdatedAt int64
	// LastChatAt is the newest change to any of its chats, 0 with none
	// (SillyTavern's date_last_chat); ChatBytes their size as JSONL
	// (chat_size).
	LastChatAt int64
	ChatBytes  int64
}

// computedKeys are the keys a read adds to the stored object. A write
// drops them from its input: they are worked out, never stored, as
// SillyTavern's group list adds date_added, date_last_chat and chat_size
// to each group (and its editor sends them back).
var computedKeys = []string{"date_added", "create_date", "date_last_chat", "chat_size", "updatedAt"}

// MarshalJSON writes the group object with the computed keys beside it:
// SillyTavern's date_added, date_last_chat and chat_size, and Hearth's
// updatedAt.
func (g *Group) MarshalJSON() ([]byte, error) {
	obj := g.Data.Clone()
	obj.Set("date_added", g.CreatedAt)
	obj.Set("date_last_chat", g.LastChatAt)
	obj.Set("chat_size", g.ChatBytes)
	obj.Set("updatedAt", g.UpdatedAt)
	return obj.MarshalJSON()
}

// ID is the group's id.
func (g *Group) ID() string { return g.str("id") }

// Name is the group's display name.
func (g *Group) Name() string { return g.str("name") }

// Members are the members' avatar keys, in speaking order.
func (g *Group) Members() []string { return g.strs("members") }

// DisabledMembers are the muted members' avatar keys.
func (g *Group) DisabledMembers() []string { return g.strs("disabled_members") }

// ActivationStrategy is who speaks next: Natural, List, Manual or Pooled.
func (g *Group) ActivationStrategy() int { return g.int("activation_strategy", Natural) }

// GenerationMode is how members' cards reach the prompt: Swap, Join or
// JoinWithMuted.
func (g *Group) GenerationMode() int { return g.int("generation_mode", Swap) }

// AutoModeDelay is the seconds between auto mode's turns
// (auto_mode_delay).
func (g *Group) AutoModeDelay() int { return g.int("auto_mode_delay", DefaultAutoModeDelay) }

// AllowSelfResponses says whether a member may answer its own message.
func (g *Group) AllowSelfResponses() bool {
	var b bool
	_ = json.Unmarshal(g.Data["allow_self_responses"], &b)
	return b
}

// JoinPrefix and JoinSuffix wrap each member's card field in the join
// generation modes (generation_mode_join_prefix/_suffix; <FIELDNAME> in
// them is the field's name).
func (g *Group) JoinPrefix() string { return g.str("generation_mode_join_prefix") }

// JoinSuffix: see JoinPrefix.
func (g *Group) JoinSuffix() string { return g.str("generation_mode_join_suffix") }

// Override is one member's own connection and preset (Hearth's, beyond
// SillyTavern): empty means the chat's.
type Override struct {
	ConnectionID string `json:"connectionId,omitempty"`
	PresetID     string `json:"presetId,omitempty"`
}

// MemberOverrides are the members' overrides, by avatar key.
func (g *Group) MemberOverrides() map[string]Override {
	var h struct {
		MemberOverrides map[string]Override `json:"memberOverrides"`
	}
	_ = json.Unmarshal(g.Data["hearth"], &h)
	return h.MemberOverrides
}

func (g *Group) str(key string) string {
	var s string
	_ = json.Unmarshal(g.Data[key], &s)
	return s
}

func (g *Group) strs(key string) []string {
	var out []string
	_ = json.Unmarshal(g.Data[key], &out)
	return out
}

func (g *Group) int(key string, def int) int {
	var n float64
	if err := json.Unmarshal(g.Data[key], &n); err != nil {
		return def
	}
	return int(n)
}

func notFound(id string) error {
	return apperr.New(apperr.CodeGroupNotFound, "no group with id %q", id).
		WithDetails(map[string]any{"groupId": id})
}

// groupColumns are what list and get read of a group, with its chats'
// newest change and size.
const groupColumns = `g.data, g.created_at, g.updated_at,
	COALESCE((SELECT MAX(c.updated_at) FROM chats c WHERE c.owner_kind = 'group' AND c.owner = g.id), 0),
	COALESCE((SELECT SUM(c.bytes) FROM chats c WHERE c.owner_kind = 'group' AND c.owner = g.id), 0)`

type scanner interface {
	Scan(dest ...any) error
}

func scanGroup(row scanner) (*Group, error) {
	var g Group
	var data string
	if err := row.Scan(&data, &g.CreatedAt, &g.UpdatedAt, &g.LastChatAt, &g.ChatBytes); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(data), &g.Data); err != nil {
		return nil, fmt.Errorf("a group has a corrupt object: %w", err)
	}
	return &g, nil
}

// List returns every group, by name.
func (s *Service) List(ctx context.Context) ([]*Group, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT `+groupColumns+` FROM groups g ORDER BY g.name COLLATE NOCASE, g.id`)
	if err != nil {
		return nil, fmt.Errorf("list groups: %w", err)
	}
	defer rows.Close()
	out := []*Group{}
	for rows.Next() {
		g, err := scanGroup(rows)
		if err != nil {
			return nil, fmt.Errorf("list groups: %w", err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// Get returns the group with id.
func (s *Service) Get(ctx context.Context, id string) (*Group, error) {
	return getGroup(ctx, s.db.Reader(), id)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func getGroup(ctx context.Context, q querier, id string) (*Group, error) {
	g, err := scanGroup(q.QueryRowContext(ctx, `SELECT `+groupColumns+` FROM groups g WHERE g.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("get group %q: %w", id, err)
	}
	return g, nil
}
