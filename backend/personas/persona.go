// Package personas keeps the user's personas: who {{user}} is in a chat
// (SillyTavern's user avatars with their descriptions). One persona may be
// active, one may be the default, and a chat may be locked to one (its
// metadata key "persona", as SillyTavern's chat_metadata.persona); Effective
// says which applies where. The prompt reads a persona's description,
// position, depth and role; messages and greetings take its name.
package personas

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"hearth/backend/apperr"
	"hearth/backend/internal/inputs"
)

// CodeNotFound: no persona has the id.
const CodeNotFound = "persona.not_found"

// Description positions: SillyTavern's persona_description_positions.
const (
	// PositionInPrompt puts the description in the story string (the
	// preset's persona description slot).
	PositionInPrompt = 0
	// positionAfterChar is SillyTavern's deprecated AFTER_CHAR; it is
	// accepted and stored as PositionInPrompt, as SillyTavern migrates it.
	positionAfterChar = 1
	// PositionTopAN and PositionBottomAN put it before or after the
	// Author's Note.
	PositionTopAN    = 2
	PositionBottomAN = 3
	// PositionAtDepth puts it in the chat history at Depth, as Role.
	PositionAtDepth = 4
	// PositionNone leaves it out of the prompt ({{persona}} still has it).
	PositionNone = 9
)

// Roles of an at-depth description (SillyTavern's extension_prompt_roles).
const (
	RoleSystem    = 0
	RoleUser      = 1
	RoleAssistant = 2
)

// Defaults of a new persona, as SillyTavern's.
const (
	DefaultDepth = 2
	DefaultRole  = RoleSystem
)

// Limits on what a persona holds.
const (
	maxName        = 200
	maxDescription = 64 << 10
	maxDepth       = 10000
	// maxLorebookName is a lorebook name's bound (backend/worldinfo's).
	maxLorebookName = 200
	// MaxAvatarBytes caps an avatar image (decoded).
	MaxAvatarBytes = 8 << 20
)

// avatarRoute is where both transports serve a persona's avatar image
// (backend/transport/httpapi, backend/wailsbridge).
const avatarRoute = "/api/persona-avatar/"

// Persona is what callers see of a persona.
type Persona struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// AvatarURL serves the avatar image, nil without one. It changes with
	// the image (a content hash in the query), so an <img> reloads.
	AvatarURL *string `json:"avatarUrl"`
	// Position is where the description goes in the prompt (Position*).
	Position int `json:"position"`
	// Depth and Role place an at-depth description (PositionAtDepth);
	// kept for the other positions too, as SillyTavern keeps them.
	Depth int `json:"depth"`
	Role  int `json:"role"`
	// Lorebook names the lorebook bound to the persona ("" for none): its
	// entries join every generation where the persona speaks.
	Lorebook string `json:"lorebook"`
	// IsDefault and IsActive are read-only: setDefault and setActive
	// change them.
	IsDefault bool  `json:"isDefault"`
	IsActive  bool  `json:"isActive"`
	CreatedAt int64 `json:"createdAt"`
	UpdatedAt int64 `json:"updatedAt"`

	// avatar is the image's media name ("" for none).
	avatar string
}

// Input is personas.save's argument. Without ID it creates (Name
// required); with one it updates, keeping the fields left out.
type Input struct {
	ID          *string `json:"id"`
	Name        *string `json:"name"`
	Description *string `json:"description"`
	// Avatar: absent keeps the image, null removes it, { base64, mime? }
	// or a data: URL (PNG, JPEG, WebP or GIF) replaces it.
	Avatar   json.RawMessage `json:"avatar"`
	Position *int            `json:"position"`
	Depth    *int            `json:"depth"`
	Role     *int            `json:"role"`
	// Lorebook binds a lorebook by name; "" unbinds. A book that does not
	// exist (yet) may be named, as SillyTavern allows: it is skipped.
	Lorebook *string `json:"lorebook"`
}

// avatarChange is what an Input does to the avatar.
type avatarChange struct {
	set    bool   // the input names the avatar at all
	data   []byte // the new image; nil with set removes it
	ext    string
	remove bool
}

// apply sets in's fields on p, validating each; it returns what to do with
// the avatar (stored by the caller, outside any transaction).
func (in Input) apply(p *Persona) (avatarChange, error) {
	var av avatarChange
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		if n == "" || utf8.RuneCountInString(n) > maxName || inputs.HasControl(n) {
			return av, apperr.Invalid("name must be 1 to %d characters without control characters", maxName)
		}
		p.Name = n
	}
	if in.Description != nil {
		d := *in.Description
		if len(d) > maxDescription {
			return av, apperr.Invalid("description is longer than %d KiB", maxDescription>>10)
		}
		if strings.ContainsRune(d, 0) {
			return av, apperr.Invalid("description must not contain NUL characters")
		}
		p.Description = d
	}
	if in.Position != nil {
		switch *in.Position {
		case PositionInPrompt, positionAfterChar:
			p.Position = PositionInPrompt
		case PositionTopAN, PositionBottomAN, PositionAtDepth, PositionNone:
			p.Position = *in.Position
		default:
			return av, apperr.Invalid("position must be 0 (in the prompt), 2 (top of the Author's Note), 3 (bottom of the Author's Note), 4 (at depth) or 9 (none); got %d", *in.Position)
		}
	}
	if in.Depth != nil {
		if *in.Depth < 0 || *in.Depth > maxDepth {
			return av, apperr.Invalid("depth must be an integer from 0 to %d; got %d", maxDepth, *in.Depth)
		}
		p.Depth = *in.Depth
	}
	if in.Role != nil {
		if *in.Role < RoleSystem || *in.Role > RoleAssistant {
			return av, apperr.Invalid("role must be 0 (system), 1 (user) or 2 (assistant); got %d", *in.Role)
		}
		p.Role = *in.Role
	}
	if in.Lorebook != nil {
		l := strings.TrimSpace(*in.Lorebook)
		if len(l) > maxLorebookName || inputs.HasControl(l) {
			return av, apperr.Invalid("lorebook must be a lorebook name of at most %d bytes without control characters", maxLorebookName)
		}
		p.Lorebook = l
	}
	if in.Avatar != nil {
		var err error
		if av, err = decodeAvatar(in.Avatar); err != nil {
			return av, err
		}
	}
	if p.Name == "" {
		return av, apperr.Invalid("name is required")
	}
	return av, nil
}

// imageExt names the image types an avatar may be, by MIME type.
var imageExt = map[string]string{"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}

// decodeAvatar reads the avatar field: null, { base64, mime? } or a
// base64 data: URL. A stated type must be the one the bytes are.
func decodeAvatar(raw json.RawMessage) (avatarChange, error) {
	t := strings.TrimSpace(string(raw))
	if t == "null" {
		return avatarChange{set: true, remove: true}, nil
	}
	var b64, mime string
	switch {
	case strings.HasPrefix(t, "\""):
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return avatarChange{}, apperr.Invalid("avatar must be a string, an object or null")
		}
		rest, ok := strings.CutPrefix(s, "data:")
		head, data, found := strings.Cut(rest, ",")
		if !ok || !found || !strings.HasSuffix(head, ";base64") {
			return avatarChange{}, apperr.Invalid("avatar must be a base64 data: URL (data:image/png;base64,…) or { base64, mime }")
		}
		b64, mime = data, strings.TrimSuffix(head, ";base64")
	case strings.HasPrefix(t, "{"):
		var obj struct {
			Base64 *string `json:"base64"`
			MIME   *string `json:"mime"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil || obj.Base64 == nil {
			return avatarChange{}, apperr.Invalid("avatar must be { base64: string, mime?: string }")
		}
		b64 = *obj.Base64
		if obj.MIME != nil {
			mime = *obj.MIME
		}
	default:
		return avatarChange{}, apperr.Invalid("avatar must be { base64, mime? }, a data: URL or null")
	}
	if mime != "" {
		if m, err := url.PathUnescape(mime); err == nil {
			mime = m
		}
		mime = strings.ToLower(strings.TrimSpace(mime))
		if _, ok := imageExt[mime]; !ok {
			return avatarChange{}, apperr.Invalid("avatar must be a PNG, JPEG, WebP or GIF image, not %q", inputs.Short(mime))
		}
	}
	if base64.StdEncoding.DecodedLen(len(b64)) > MaxAvatarBytes+2 {
		return avatarChange{}, apperr.Invalid("avatar is larger than %d MiB", MaxAvatarBytes>>20)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return avatarChange{}, apperr.Invalid("avatar must be base64: %v", err)
	}
	if len(data) > MaxAvatarBytes {
		return avatarChange{}, apperr.Invalid("avatar is larger than %d MiB", MaxAvatarBytes>>20)
	}
	if len(data) == 0 {
		return avatarChange{}, apperr.Invalid("avatar is empty; use null to remove it")
	}
	kind := http.DetectContentType(data)
	ext, ok := imageExt[kind]
	if !ok {
		return avatarChange{}, apperr.Invalid("avatar must be a PNG, JPEG, WebP or GIF image")
	}
	if mime != "" && mime != kind {
		return avatarChange{}, apperr.Invalid("avatar says %s but is %s", mime, kind)
	}
	return avatarChange{set: true, data: data, ext: ext}, nil
}

// avatarURL is the URL of p's avatar image, nil without one.
func avatarURL(id, media string) *string {
	if media == "" {
		return nil
	}
	version, _, _ := strings.Cut(media, ".")
	if len(version) > 16 {
		version = version[:16]
	}
	u := avatarRoute + url.PathEscape(id) + "?v=" + version
	return &u
}
