package generate

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
	"hearth/backend/jsonx"
	"hearth/backend/prompt"
)

// Limits on what a caller may send with a generation.
const (
	maxExtensionPrompts = 200
	maxPromptKey        = 200
	maxPromptValue      = 256 << 10
	maxDepth            = 10_000
	maxQuietPrompt      = 256 << 10
)

// Options are generate.start's (and run's and dryRun's) argument.
type Options struct {
	ChatID           string                   `json:"chatId"`
	Type             string                   `json:"type"`
	QuietPrompt      *string                  `json:"quietPrompt"`
	ExtensionPrompts []prompt.ExtensionPrompt `json:"extensionPrompts"`
	ConnectionID     *string                  `json:"connectionId"`
	PresetID         *string                  `json:"presetId"`
	// MemberAvatar, in a group chat, is the member who replies (muted or
	// not), whatever the group's strategy: SillyTavern's /trigger. For
	// swipe and continue it must be the last message's speaker.
	MemberAvatar *string `json:"memberAvatar"`
	// Hooks is what the starting window brings of SillyTavern's prompt
	// hooks (hooks.go); nil when no window started the generation.
	Hooks *Hooks `json:"hooks"`

	// member is set on each member's generation of a group turn: whose
	// reply it is, and the group it is in (group_turn.go).
	member *member
}

// UnmarshalJSON decodes o and refuses an extension prompt whose position,
// depth or role is null: what JSON makes of NaN. The decoder would read it
// as 0, so a NaN position meant IN_PROMPT and a NaN role system. A member
// left out keeps its default (0) as before. Every caller that decodes
// Options (generate.*, an agent run's generateOptions) gets the check.
func (o *Options) UnmarshalJSON(b []byte) error {
	type plain Options
	if err := json.Unmarshal(b, (*plain)(o)); err != nil {
		return err
	}
	var raw struct {
		ExtensionPrompts []json.RawMessage `json:"extensionPrompts"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for i, ep := range raw.ExtensionPrompts {
		if err := jsonx.RefuseNulls(ep, fmt.Sprintf("extensionPrompts[%d]", i), "position", "depth", "role"); err != nil {
			return err
		}
	}
	return nil
}

var types = map[string]bool{
	prompt.TypeNormal: true, prompt.TypeRegenerate: true, prompt.TypeSwipe: true,
	prompt.TypeContinue: true, prompt.TypeImpersonate: true, prompt.TypeQuiet: true,
}

// validate checks everything that does not need the store.
func (o *Options) validate() error {
	if o.ChatID == "" {
		return apperr.Invalid("chatId is required")
	}
	if o.Type == "" {
		o.Type = prompt.TypeNormal
	}
	if !types[o.Type] {
		return apperr.Invalid("type must be one of normal, regenerate, swipe, continue, impersonate, quiet; got %q", inputs.Short(o.Type))
	}
	if o.Type == prompt.TypeQuiet {
		if o.QuietPrompt == nil || strings.TrimSpace(*o.QuietPrompt) == "" {
			return apperr.Invalid("a quiet generation needs quietPrompt")
		}
	}
	if o.QuietPrompt != nil && len(*o.QuietPrompt) > maxQuietPrompt {
		return apperr.Invalid("quietPrompt is longer than %d bytes", maxQuietPrompt)
	}
	if o.MemberAvatar != nil && (*o.MemberAvatar == "" || len(*o.MemberAvatar) > maxPromptKey) {
		return apperr.Invalid("memberAvatar must be a member's avatar key")
	}
	if len(o.ExtensionPrompts) > maxExtensionPrompts {
		return apperr.New(apperr.CodeTooMany, "at most %d extension prompts", maxExtensionPrompts)
	}
	seen := map[string]bool{}
	for i, ep := range o.ExtensionPrompts {
		switch {
		case ep.Key == "" || len(ep.Key) > maxPromptKey || !utf8.ValidString(ep.Key):
			return apperr.Invalid("extensionPrompts[%d].key must be 1 to %d bytes of text", i, maxPromptKey)
		case seen[ep.Key]:
			return apperr.Invalid("extensionPrompts[%d].key %q is listed twice", i, inputs.Short(ep.Key))
		case len(ep.Value) > maxPromptValue:
			return apperr.Invalid("extensionPrompts[%d].value is longer than %d bytes", i, maxPromptValue)
		case ep.Position < prompt.PositionNone || ep.Position > prompt.PositionBefore:
			return apperr.Invalid("extensionPrompts[%d].position must be -1, 0, 1 or 2", i)
		case ep.Depth < 0 || ep.Depth > maxDepth:
			return apperr.Invalid("extensionPrompts[%d].depth must be 0 to %d", i, maxDepth)
		case ep.Role < prompt.RoleSystem || ep.Role > prompt.RoleAssistant:
			return apperr.Invalid("extensionPrompts[%d].role must be 0 (system), 1 (user) or 2 (assistant)", i)
		}
		seen[ep.Key] = true
	}
	return o.Hooks.validate()
}
