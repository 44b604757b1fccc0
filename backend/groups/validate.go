package groups

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// SillyTavern's activation strategies (group_activation_strategy): who
// speaks next.
const (
	Natural = 0
	List    = 1
	Manual  = 2
	Pooled  = 3
)

// SillyTavern's generation modes (group_generation_mode): Swap puts the
// speaker's card in the prompt; Join every member's, muted ones left out
// (Join) or kept (JoinWithMuted).
const (
	Swap          = 0
	Join          = 1
	JoinWithMuted = 2
)

// Bounds on what a caller may store (groups are hostile input like any
// argument).
const (
	// MaxMembers caps members (and so muted members and overrides).
	MaxMembers = 500
	// MaxNameBytes caps the group's name.
	MaxNameBytes = 1024
	// MaxGroupBytes caps the whole stored object. A group SillyTavern
	// wrote in its legacy format carries its chats' metadata
	// (chat_metadata, past_metadata), extensions' state included, so the
	// cap is generous; everything else in a group is small.
	MaxGroupBytes = 4 << 20
	// MaxAutoModeDelay bounds auto_mode_delay (seconds), as SillyTavern's
	// editor does (1 to 999).
	MaxAutoModeDelay = 999
	// maxKeyBytes caps an avatar key and an override's ids.
	maxKeyBytes = 1024
)

// DefaultAutoModeDelay is SillyTavern's DEFAULT_AUTO_MODE_DELAY (seconds).
const DefaultAutoModeDelay = 5

// defaultAvatarURL is what SillyTavern's editor stores as avatar_url for a
// group without its own picture (its default_avatar): a picture counts
// only as a data: URL or a file of the user's, so the group shows its
// members' collage.
const defaultAvatarURL = "img/ai4.png"

// validID is what a group id given to create may look like: it names the
// group's file (groups/<id>.json) when a library is exported, so it holds
// no path separator and does not start with a dot.
var validID = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$`)

// fieldChecks check the type and range of SillyTavern's and Hearth's known
// group keys; any other key is kept as it came.
var fieldChecks = map[string]func(raw json.RawMessage, name string) error{
	"name":                        checkName,
	"members":                     checkAvatars,
	"disabled_members":            checkAvatars,
	"activation_strategy":         intIn(Natural, Pooled),
	"generation_mode":             intIn(Swap, JoinWithMuted),
	"auto_mode_delay":             intIn(1, MaxAutoModeDelay),
	"allow_self_responses":        checkBool,
	"fav":                         checkBool,
	"hideMutedSprites":            checkBool,
	"generation_mode_join_prefix": checkString,
	"generation_mode_join_suffix": checkString,
	"avatar_url":                  checkStringOrNull,
	"chat_id":                     checkString,
	"chats":                       checkStrings,
	"chat_metadata":               checkObject,
	"past_metadata":               checkObject,
	"hearth":                      checkHearth,
}

// checkFields drops the computed keys from fields and checks every known
// key it holds. The id is the caller's to check (create takes one, update
// refuses a different one).
func checkFields(fields jsonx.Object) error {
	for _, k := range computedKeys {
		delete(fields, k)
	}
	for k, v := range fields {
		if check, ok := fieldChecks[k]; ok {
			if err := check(v, k); err != nil {
				return err
			}
		}
	}
	return nil
}

func invalidField(field, format string, args ...any) *apperr.Error {
	return apperr.Invalid("%s", field+" "+fmt.Sprintf(format, args...)).
		WithDetails(map[string]any{"field": field})
}

func checkName(raw json.RawMessage, name string) error {
	s, err := jsonx.String(raw, name)
	if err != nil {
		return withField(err, name)
	}
	if len(s) > MaxNameBytes {
		return invalidField(name, "is longer than %d bytes", MaxNameBytes)
	}
	return nil
}

// checkAvatars checks a list of avatar keys: strings, none empty or
// repeated, at most MaxMembers. That they name characters is checked in
// the write's transaction.
func checkAvatars(raw json.RawMessage, name string) error {
	list, err := jsonx.StrictStrings(raw, name)
	if err != nil {
		return err
	}
	if len(list) > MaxMembers {
		return apperr.New(apperr.CodeTooMany, "%s has %d entries; at most %d are allowed", name, len(list), MaxMembers).
			WithDetails(map[string]any{"field": name, "max": MaxMembers})
	}
	for i, a := range list {
		if a == "" || len(a) > maxKeyBytes {
			return invalidField(fmt.Sprintf("%s[%d]", name, i), "must be a character's avatar key")
		}
		if slices.Contains(list[:i], a) {
			return invalidField(fmt.Sprintf("%s[%d]", name, i), "repeats %q", a)
		}
	}
	return nil
}

func intIn(lo, hi int) func(json.RawMessage, string) error {
	return func(raw json.RawMessage, name string) error {
		n, err := jsonx.Int(raw, name)
		if err != nil {
			return withField(err, name)
		}
		if n < lo || n > hi {
			return invalidField(name, "must be an integer from %d to %d, got %d", lo, hi, n)
		}
		return nil
	}
}

func checkBool(raw json.RawMessage, name string) error {
	_, err := jsonx.Bool(raw, name)
	return withField(err, name)
}

func checkString(raw json.RawMessage, name string) error {
	_, err := jsonx.String(raw, name)
	return withField(err, name)
}

func checkStringOrNull(raw json.RawMessage, name string) error {
	if jsonx.IsNull(raw) {
		return nil
	}
	return checkString(raw, name)
}

func checkStrings(raw json.RawMessage, name string) error {
	_, err := jsonx.StrictStrings(raw, name)
	return err
}

func checkObject(raw json.RawMessage, name string) error {
	_, err := jsonx.DecodeObject(raw, name)
	return withField(err, name)
}

// checkHearth checks Hearth's block: an object whose memberOverrides, if
// any, maps avatar keys to { connectionId?, presetId? } (non-empty
// strings). Whether the keys are members is checked against the merged
// group. Other keys of the block are kept, for later Hearth versions.
func checkHearth(raw json.RawMessage, name string) error {
	h, err := jsonx.DecodeObject(raw, name)
	if err != nil {
		return withField(err, name)
	}
	mo, ok := h["memberOverrides"]
	if !ok {
		return nil
	}
	field := name + ".memberOverrides"
	overrides, err := jsonx.DecodeObject(mo, field)
	if err != nil {
		return withField(err, field)
	}
	if len(overrides) > MaxMembers {
		return apperr.New(apperr.CodeTooMany, "%s has %d entries; at most %d are allowed", field, len(overrides), MaxMembers).
			WithDetails(map[string]any{"field": field, "max": MaxMembers})
	}
	for avatar, v := range overrides {
		at := field + "." + avatar
		o, err := jsonx.DecodeObject(v, at)
		if err != nil {
			return withField(err, at)
		}
		for k, id := range o {
			if k != "connectionId" && k != "presetId" {
				return invalidField(at, "may hold connectionId and presetId only, not %q", k)
			}
			s, err := jsonx.String(id, at+"."+k)
			if err != nil {
				return withField(err, at+"."+k)
			}
			if s == "" || len(s) > maxKeyBytes {
				return invalidField(at+"."+k, "must be a non-empty id")
			}
		}
	}
	return nil
}

// withField names field in a validation error's details, as the other
// checks do.
func withField(err error, field string) error {
	if e := apperr.As(err); e != nil && e.Details == nil {
		e.Details = map[string]any{"field": field}
	}
	return err
}

// touched says which of a group's lists a write set: the lists checked
// against each other after it. A write that leaves them alone does not
// hold a group to what it did not change (an imported group may mute an
// avatar that is no longer a member, as SillyTavern leaves it).
type touched struct {
	members, muted, overrides bool
}

// all is what a new group is checked for.
var all = touched{members: true, muted: true, overrides: true}

// checkConsistent holds a group's lists to each other where t says: at
// least one member, the muted members and the overrides among them.
// Setting the members checks all three.
func checkConsistent(g *Group, t touched) error {
	members := g.Members()
	if t.members && len(members) == 0 {
		return invalidField("members", "must name at least one character")
	}
	if t.members || t.muted {
		for i, a := range g.DisabledMembers() {
			if !slices.Contains(members, a) {
				return invalidField(fmt.Sprintf("disabled_members[%d]", i), "names %q, who is not a member", a).
					WithDetails(map[string]any{"field": fmt.Sprintf("disabled_members[%d]", i), "avatar": a})
			}
		}
	}
	if t.members || t.overrides {
		for a := range g.MemberOverrides() {
			if !slices.Contains(members, a) {
				return invalidField("hearth.memberOverrides", "names %q, who is not a member", a).
					WithDetails(map[string]any{"field": "hearth.memberOverrides." + a, "avatar": a})
			}
		}
	}
	return nil
}

// checkStored refuses a group object too large or too deep to store;
// was is the depth it had before the write (0 for a new group).
func checkStored(data []byte, was int) error {
	if len(data) > MaxGroupBytes {
		return apperr.Invalid("the group is %d bytes; at most %d are allowed", len(data), MaxGroupBytes).
			WithDetails(map[string]any{"bytes": len(data), "max": MaxGroupBytes})
	}
	return jsonx.LimitDepth(jsonx.Depth(data), was, "the group")
}

// checkID checks a group id given to create.
func checkID(raw json.RawMessage) (string, error) {
	id, err := jsonx.String(raw, "id")
	if err != nil {
		return "", withField(err, "id")
	}
	if !validID.MatchString(id) {
		return "", invalidField("id", "must be 1 to 128 letters, digits, '_', '-' or '.', got %q", id)
	}
	return id, nil
}
