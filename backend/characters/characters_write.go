package characters

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// MaxImageBytes caps an uploaded avatar.
const MaxImageBytes = 20 << 20

// v2Strings are the V2 card fields that must be strings.
var v2Strings = []string{
	"name", "description", "personality", "scenario", "first_mes", "mes_example",
	"creator_notes", "system_prompt", "post_history_instructions", "creator", "character_version",
}

// defaults returns an empty V2 data object.
func defaults() jsonx.Object {
	o := jsonx.Object{}
	for _, k := range v2Strings {
		o.Set(k, "")
	}
	o.Set("alternate_greetings", []string{})
	o.Set("tags", []string{})
	o["extensions"] = []byte("{}")
	return o
}

// validateFields checks the types of the known V2 fields in fields.
func validateFields(fields jsonx.Object) error {
	for _, k := range v2Strings {
		if v, ok := fields[k]; ok {
			if _, err := jsonx.String(v, k); err != nil {
				return err
			}
		}
	}
	for _, k := range []string{"alternate_greetings", "tags"} {
		if v, ok := fields[k]; ok {
			if _, err := jsonx.Strings(v, k); err != nil {
				return err
			}
		}
	}
	if v, ok := fields["extensions"]; ok {
		if _, err := jsonx.DecodeObject(v, "extensions"); err != nil {
			return err
		}
	}
	for _, k := range []string{"avatar", "createdAt", "updatedAt", "hasImage"} {
		delete(fields, k) // identity and times are the host's, never the caller's
	}
	return nil
}

// CreateOptions carry the optional avatar image.
type CreateOptions struct {
	// Image is base64, with or without a data: URL prefix.
	Image string `json:"image"`
}

// Create adds a character. The avatar key is derived from the name and made
// unique ("Name.png", "Name1.png", …), as SillyTavern names its card files.
func (s *Service) Create(ctx context.Context, fields jsonx.Object, opts CreateOptions) (*Card, error) {
	var imageName *string
	if opts.Image != "" {
		stored, err := s.storeImage(opts.Image)
		if err != nil {
			return nil, err
		}
		imageName = &stored
	}
	return s.create(ctx, fields, imageName, nil)
}

// create stores a new card from fields over the V2 defaults, with the
// avatar image already in media (nil for none); prepare, when set, may
// change the data inside the transaction before it is stored.
func (s *Service) create(ctx context.Context, fields jsonx.Object, imageName *string, prepare func(ctx context.Context, tx *store.Tx, data jsonx.Object) error) (*Card, error) {
	if err := validateFields(fields); err != nil {
		return nil, err
	}
	data := defaults()
	for k, v := range fields {
		data[k] = v
	}
	card := &Card{Data: data}
	name := strings.TrimSpace(card.Name())
	if name == "" {
		return nil, apperr.Invalid("name is required")
	}
	if err := jsonx.LimitDepth(jsonx.ObjectDepth(data), 0, "the card"); err != nil {
		return nil, err
	}
	now := s.now().UnixMilli()
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		avatar, err := freeAvatar(ctx, tx, name)
		if err != nil {
			return err
		}
		if prepare != nil {
			if err := prepare(ctx, tx, data); err != nil {
				return err
			}
		}
		raw, _ := data.MarshalJSON()
		if _, err := tx.ExecContext(ctx, `INSERT INTO characters (avatar, name, card, image, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			avatar, name, string(raw), imageName, now, now); err != nil {
			return fmt.Errorf("insert character: %w", err)
		}
		card.Avatar, card.CreatedAt, card.UpdatedAt, card.HasImage = avatar, now, now, imageName != nil
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.CharacterCreated, Payload: &events.CharacterPayload{Avatar: avatar, Character: card}})
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return card, nil
}

var unsafeName = regexp.MustCompile(`[^\p{L}\p{N} _.,'()&!-]+`)

func freeAvatar(ctx context.Context, tx *store.Tx, name string) (string, error) {
	base := strings.TrimSpace(unsafeName.ReplaceAllString(name, "_"))
	base = strings.Trim(base, ". ")
	if base == "" {
		base = "character"
	}
	if len(base) > 100 {
		base = base[:100]
	}
	for i := 0; ; i++ {
		candidate := base + ".png"
		if i > 0 {
			candidate = fmt.Sprintf("%s%d.png", base, i)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM characters WHERE avatar = ?`, candidate).Scan(&n); err != nil {
			return "", fmt.Errorf("pick avatar name: %w", err)
		}
		if n == 0 {
			return candidate, nil
		}
	}
}

// storeImage decodes and stores an avatar image, returning its media name.
func (s *Service) storeImage(b64 string) (string, error) {
	data, err := decodeBase64(b64, MaxImageBytes, "image")
	if err != nil {
		return "", err
	}
	var ext string
	switch http.DetectContentType(data) {
	case "image/png":
		ext = "png"
	case "image/jpeg":
		ext = "jpg"
	case "image/webp":
		ext = "webp"
	case "image/gif":
		ext = "gif"
	default:
		return "", apperr.Invalid("image must be PNG, JPEG, WebP or GIF")
	}
	return s.media.Put(data, ext)
}

// Update shallow-merges patch into the card; extensions are deep-merged, as
// SillyTavern's merge-attributes endpoint does. An `image` key replaces the
// avatar image.
func (s *Service) Update(ctx context.Context, avatar string, patch jsonx.Object) (*Card, error) {
	var imageName *string
	if raw, ok := patch["image"]; ok {
		b64, err := jsonx.String(raw, "image")
		if err != nil {
			return nil, err
		}
		stored, err := s.storeImage(b64)
		if err != nil {
			return nil, err
		}
		imageName = &stored
		delete(patch, "image")
	}
	if err := validateFields(patch); err != nil {
		return nil, err
	}
	if raw, ok := patch["name"]; ok {
		if n, _ := jsonx.String(raw, "name"); strings.TrimSpace(n) == "" {
			return nil, apperr.Invalid("name must not be empty")
		}
	}
	var card *Card
	err := s.db.InTx(ctx, func(tx *store.Tx) error {
		c, err := getCard(ctx, tx, avatar)
		if err != nil {
			return err
		}
		before, _ := c.Data.MarshalJSON()
		for k, v := range patch {
			if k == "extensions" {
				merged, err := deepMerge(c.Data["extensions"], v)
				if err != nil {
					return err
				}
				c.Data[k] = merged
				continue
			}
			c.Data[k] = v
		}
		after, _ := c.Data.MarshalJSON()
		if err := jsonx.LimitDepth(jsonx.Depth(after), jsonx.Depth(before), "the card"); err != nil {
			return err
		}
		if string(before) == string(after) && imageName == nil {
			card = c
			return nil
		}
		c.UpdatedAt = s.now().UnixMilli()
		if imageName != nil {
			c.HasImage = true
			if _, err := tx.ExecContext(ctx, `UPDATE characters SET image = ? WHERE avatar = ?`, *imageName, avatar); err != nil {
				return fmt.Errorf("update character image: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE characters SET name = ?, card = ?, updated_at = ? WHERE avatar = ?`,
			c.Name(), string(after), c.UpdatedAt, avatar); err != nil {
			return fmt.Errorf("update character: %w", err)
		}
		card = c
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.CharacterEdited, Payload: &events.CharacterPayload{Avatar: avatar, Character: c}})
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return card, nil
}

// DeleteOptions choose whether the character's chats go too.
type DeleteOptions struct {
	DeleteChats bool `json:"deleteChats"`
}

// Delete removes a character. Its chats stay (re-attached if a character
// with the same avatar returns, as in SillyTavern) unless DeleteChats.
// Hooks.Deleting runs in the same transaction (its groups drop it); its
// events follow CHARACTER_DELETED.
func (s *Service) Delete(ctx context.Context, avatar string, opts DeleteOptions) error {
	return s.db.InTx(ctx, func(tx *store.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM characters WHERE avatar = ?`, avatar)
		if err != nil {
			return fmt.Errorf("delete character: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound(avatar)
		}
		if opts.DeleteChats {
			if _, err := tx.ExecContext(ctx, `DELETE FROM chats WHERE owner_kind = 'character' AND owner = ?`, avatar); err != nil {
				return fmt.Errorf("delete character chats: %w", err)
			}
		}
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.CharacterDeleted, Payload: &events.CharacterDeletedPayload{Avatar: avatar, DeleteChats: opts.DeleteChats}})
		})
		if s.hooks.Deleting != nil {
			return s.hooks.Deleting(ctx, tx, avatar)
		}
		return nil
	})
}
