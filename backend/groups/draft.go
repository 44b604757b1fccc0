package groups

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// DefaultTalkativeness is SillyTavern's talkativeness_default: how likely a
// member whose card says nothing is to speak up in the natural strategy.
const DefaultTalkativeness = 0.5

// Member is a group member as drafting sees it.
type Member struct {
	// Avatar is the character's avatar key.
	Avatar string
	// Name is the character's display name, which mentions are found by.
	Name string
	// Talkativeness is the chance, from 0 to 1, that the member speaks up
	// unasked in the natural strategy (Talkativeness reads it off a card).
	Talkativeness float64
	// Muted members (the group's disabled_members) are never drafted.
	Muted bool
}

// Message is what drafting reads of a chat message.
type Message struct {
	IsUser bool
	// IsSystem is SillyTavern's is_system (hidden from the prompt);
	// Narrator is extra.type "narrator".
	IsSystem bool
	Narrator bool
	Name     string
	// Avatar is the message's original_avatar: the member who wrote it
	// ("" for a user's message, or one written before SillyTavern kept
	// it, which is then known by Name).
	Avatar string
	// Text is the message's mes.
	Text string
}

// Random is the randomness drafting draws on; *rand.Rand of math/rand/v2
// is one.
type Random interface {
	// Float64 returns a number in [0, 1).
	Float64() float64
	// IntN returns a number in [0, n).
	IntN(n int) int
}

// globalRandom is math/rand/v2's shared source.
type globalRandom struct{}

func (globalRandom) Float64() float64 { return rand.Float64() }
func (globalRandom) IntN(n int) int   { return rand.IntN(n) }

// Turn is what one drafting decides on.
type Turn struct {
	// Strategy is the group's activation_strategy: Natural, List, Manual
	// or Pooled.
	Strategy int
	// Members are the group's members in its order, muted ones included.
	Members []Member
	// AllowSelfResponses is the group's allow_self_responses.
	AllowSelfResponses bool
	// Chat is the chat's tail, oldest first: at least back to its last
	// user message (the pooled strategy looks that far), or all of it.
	Chat []Message
	// Force, when set, is the member who speaks, muted or not, whatever
	// the strategy (SillyTavern's /trigger, a member's "speak" button).
	Force string
	// Rand is the randomness; nil is math/rand/v2's.
	Rand Random
}

// Draft returns who speaks next in a group chat, in speaking order
// (HOST-ABI §5.1); none when nobody is drafted. A turn starts from the
// chat's last message: a user's message, or (auto-mode, a reply asked
// for without one) a member's.
//
//   - Natural: the members the last message mentions, in the order it
//     mentions them; then each member in random order with its
//     talkativeness as its chance; if that drafts nobody, one member at
//     random among those with a talkativeness above 0 (any unmuted member
//     if none has one). SillyTavern's order, found by Unicode words
//     (mention.go).
//   - List: every unmuted member, in the group's order.
//   - Manual: nobody after a user's message; otherwise one unmuted member
//     at random.
//   - Pooled: one member at random among those who have not spoken since
//     the last user message; when all have, one at random among the
//     others than the last speaker.
//
// Muted members are never drafted. Unless AllowSelfResponses, the member
// who wrote the last message never answers it: the natural, manual and
// pooled strategies leave it out (SillyTavern's natural fallback and its
// pooled one with a single member may still pick it; Hearth does not),
// and the list strategy leaves it out only when it comes first (further
// down the list it answers the others). After a user's message every
// member may speak.
//
// A forced member that is not a member is validation.invalid_argument
// (details.avatar).
func Draft(t Turn) ([]string, error) {
	r := t.Rand
	if r == nil {
		r = globalRandom{}
	}
	if t.Force != "" {
		if !slices.ContainsFunc(t.Members, func(m Member) bool { return m.Avatar == t.Force }) {
			return nil, apperr.Invalid("%q is not a member of the group", t.Force).WithDetails(map[string]any{"avatar": t.Force})
		}
		return []string{t.Force}, nil
	}
	var enabled []Member
	for _, m := range t.Members {
		if !m.Muted && !slices.ContainsFunc(enabled, func(e Member) bool { return e.Avatar == m.Avatar }) {
			enabled = append(enabled, m)
		}
	}
	var last *Message
	if n := len(t.Chat); n > 0 {
		last = &t.Chat[n-1]
	}
	userTurn := last != nil && last.IsUser
	banned := ""
	if !t.AllowSelfResponses && last != nil && !userTurn {
		banned = speaker(*last, t.Members)
	}
	others := slices.DeleteFunc(slices.Clone(enabled), func(m Member) bool { return m.Avatar == banned })
	switch t.Strategy {
	case Natural:
		text := ""
		if last != nil && (userTurn || !last.IsSystem) {
			text = last.Text
		}
		return natural(text, others, r), nil
	case List:
		out := avatars(enabled)
		if len(out) > 0 && out[0] == banned {
			out = out[1:]
		}
		return out, nil
	case Manual:
		if userTurn {
			return nil, nil
		}
		return pick(avatars(others), r), nil
	case Pooled:
		return pooled(t.Chat, t.Members, enabled, others, r), nil
	}
	return nil, apperr.Invalid("activation_strategy must be an integer from %d to %d, got %d", Natural, Pooled, t.Strategy)
}

// natural drafts SillyTavern's natural order among members (the last
// speaker already left out): mentions, then talkativeness, then one at
// random.
func natural(text string, members []Member, r Random) []string {
	out := mentioned(text, members)
	var chatty []string
	for _, m := range shuffled(members, r) {
		// roll < talkativeness: 1 always speaks up, 0 never does.
		// SillyTavern's talkativeness >= roll lets 0 speak when
		// Math.random() returns exactly 0.
		if r.Float64() < m.Talkativeness {
			out = append(out, m.Avatar)
		}
		if m.Talkativeness > 0 {
			chatty = append(chatty, m.Avatar)
		}
	}
	if len(out) == 0 {
		if len(chatty) == 0 {
			chatty = avatars(members)
		}
		out = pick(chatty, r)
	}
	return unique(out)
}

// pooled drafts one of the members who have not spoken since the last
// user message, or else one of others (the members but the last speaker).
func pooled(chat []Message, all, enabled, others []Member, r Random) []string {
	var spoken []string
	for i := len(chat) - 1; i >= 0 && !chat[i].IsUser; i-- {
		if chat[i].IsSystem || chat[i].Narrator {
			continue
		}
		if a := speaker(chat[i], all); a != "" && !slices.Contains(spoken, a) {
			spoken = append(spoken, a)
		}
	}
	var fresh []string
	for _, m := range enabled {
		if !slices.Contains(spoken, m.Avatar) {
			fresh = append(fresh, m.Avatar)
		}
	}
	if len(fresh) > 0 {
		return pick(fresh, r)
	}
	return pick(avatars(others), r)
}

// speaker is the avatar of the member who wrote m: its original_avatar,
// or the first member of its name for a message without one; "" for a
// user's message or one no member wrote.
func speaker(m Message, members []Member) string {
	if m.IsUser {
		return ""
	}
	if m.Avatar != "" {
		return m.Avatar
	}
	for _, mem := range members {
		if mem.Name == m.Name {
			return mem.Avatar
		}
	}
	return ""
}

func avatars(members []Member) []string {
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = m.Avatar
	}
	return out
}

// pick returns one of list at random, or none from an empty list.
func pick(list []string, r Random) []string {
	if len(list) == 0 {
		return nil
	}
	return []string{list[r.IntN(len(list))]}
}

// shuffled returns members in a random order (Fisher–Yates).
func shuffled(members []Member, r Random) []Member {
	out := slices.Clone(members)
	for i := len(out) - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// unique keeps the first of each avatar, in order.
func unique(list []string) []string {
	out := list[:0:0]
	for _, a := range list {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// Talkativeness reads a card's extensions.talkativeness as SillyTavern
// does: a number, or a string holding one ("0.5", as its editor saves
// it); anything else (NaN included), null or none is
// DefaultTalkativeness.
func Talkativeness(extensions json.RawMessage) float64 {
	var ext struct {
		Talkativeness json.RawMessage `json:"talkativeness"`
	}
	if json.Unmarshal(extensions, &ext) != nil || jsonx.IsNull(ext.Talkativeness) {
		return DefaultTalkativeness
	}
	var n float64
	if json.Unmarshal(ext.Talkativeness, &n) == nil {
		return n
	}
	var s string
	if json.Unmarshal(ext.Talkativeness, &s) == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsNaN(f) {
			return f
		}
	}
	return DefaultTalkativeness
}
