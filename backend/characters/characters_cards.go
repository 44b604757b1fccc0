package characters

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/cards"
	"hearth/backend/events"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// ImportInput is a card file as characters.importCard receives it.
type ImportInput struct {
	FileName string `json:"fileName"`
	// Base64 is the file, with or without a data: URL prefix.
	Base64 string `json:"base64"`
}

// Imported is what ImportCard made: the new card, and what the file's
// reading repaired or skipped.
type Imported struct {
	*Card
	Warnings []string
}

// MarshalJSON writes the card with its warnings beside the fields.
func (i *Imported) MarshalJSON() ([]byte, error) {
	card, err := i.Card.MarshalJSON()
	if err != nil {
		return nil, err
	}
	obj, err := jsonx.DecodeObject(card, "card")
	if err != nil {
		return nil, err
	}
	warnings := i.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	obj.Set("importWarnings", warnings)
	return obj.MarshalJSON()
}

// ImportCard reads a card file (PNG with ccv3/chara chunks, JSON V1/V2/V3
// or CHARX) and stores it as a new character, its picture as the avatar
// image. A file that is no readable card is card.invalid and stores
// nothing.
func (s *Service) ImportCard(ctx context.Context, in ImportInput) (*Imported, error) {
	raw, err := decodeBase64(in.Base64, cards.MaxFileBytes, "base64")
	if err != nil {
		return nil, err
	}
	return s.ImportCardBytes(ctx, in.FileName, raw)
}

// ImportCardBytes is ImportCard for a file already read.
func (s *Service) ImportCardBytes(ctx context.Context, fileName string, raw []byte) (*Imported, error) {
	imp, err := cards.Decode(fileName, raw)
	if err != nil {
		return nil, err
	}
	var imageName *string
	if len(imp.Image) > 0 {
		ext, ok := imageExt[imp.ImageType]
		if !ok {
			return nil, apperr.New(cards.CodeInvalid, "the card's picture is %s, which Hearth cannot show", imp.ImageType)
		}
		stored, err := s.media.Put(imp.Image, ext)
		if err != nil {
			return nil, err
		}
		imageName = &stored
	}
	card, err := s.create(ctx, imp.Data, imageName, s.bindEmbeddedBook)
	if err != nil {
		return nil, err
	}
	return &Imported{Card: card, Warnings: imp.Warnings}, nil
}

// bindEmbeddedBook makes an imported card's character_book a lorebook
// bound to the character (extensions.world), in the card's transaction.
// A card whose extensions.world already names a stored book keeps that
// binding: it is a card exported with its book, or one of a library whose
// books were imported first, and a second copy would only confuse.
func (s *Service) bindEmbeddedBook(ctx context.Context, tx *store.Tx, data jsonx.Object) error {
	raw := data["character_book"]
	if s.books == nil || len(raw) == 0 || jsonx.IsNull(raw) {
		return nil
	}
	ext, err := jsonx.DecodeObject(data["extensions"], "extensions")
	if err != nil {
		return err
	}
	var world string
	_ = json.Unmarshal(ext["world"], &world)
	if world != "" {
		ok, err := s.books.ExistsTx(ctx, tx, world)
		if err != nil || ok {
			return err
		}
	}
	name, err := s.books.AddCharacterBook(ctx, tx, raw, world, (&Card{Data: data}).Name())
	if err != nil {
		return err
	}
	ext.Set("world", name)
	data["extensions"], _ = ext.MarshalJSON()
	return nil
}

// withBoundBook returns data with character_book replaced by the book its
// extensions.world binds, as that book is now, so edits made in the
// lorebook editor travel with the card; data as it is when the card binds
// no stored book.
func (s *Service) withBoundBook(ctx context.Context, data jsonx.Object) (jsonx.Object, error) {
	if s.books == nil {
		return data, nil
	}
	ext, err := jsonx.DecodeObject(data["extensions"], "extensions")
	if err != nil {
		return data, nil
	}
	var world string
	if json.Unmarshal(ext["world"], &world) != nil || world == "" {
		return data, nil
	}
	book, ok, err := s.books.CharacterBook(ctx, world, data["character_book"])
	if err != nil || !ok {
		return data, err
	}
	out := data.Clone()
	out["character_book"] = book
	return out, nil
}

// imageExt maps the avatar types a card can carry to media extensions.
var imageExt = map[string]string{"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}

// ExportOptions choose the file ExportCard writes.
type ExportOptions struct {
	// Format is "png" (default: the avatar carrying chara V2 and ccv3 V3
	// chunks) or "json" (the card as SillyTavern exports it).
	Format string `json:"format"`
}

// Exported is a card file: its name and content.
type Exported struct {
	FileName string `json:"fileName"`
	Base64   string `json:"base64"`
}

// ExportCard writes avatar's card as a file SillyTavern and other card
// tools read.
func (s *Service) ExportCard(ctx context.Context, avatar string, opts ExportOptions) (*Exported, error) {
	name, data, err := s.ExportCardBytes(ctx, avatar, opts)
	if err != nil {
		return nil, err
	}
	return &Exported{FileName: name, Base64: base64.StdEncoding.EncodeToString(data)}, nil
}

// ExportCardBytes is ExportCard's file name and bytes.
func (s *Service) ExportCardBytes(ctx context.Context, avatar string, opts ExportOptions) (string, []byte, error) {
	card, err := s.Get(ctx, avatar)
	if err != nil {
		return "", nil, err
	}
	base := strings.TrimSuffix(avatar, ".png")
	if opts.Format != "" && opts.Format != "png" && opts.Format != "json" {
		return "", nil, apperr.Invalid("format must be \"png\" or \"json\", not %q", opts.Format)
	}
	data, err := s.withBoundBook(ctx, card.Data)
	if err != nil {
		return "", nil, err
	}
	switch opts.Format {
	case "json":
		out, err := cards.EncodeJSON(data, cards.JSONExportVersion)
		return base + ".json", out, err
	case "", "png":
		image, err := s.imageBytes(ctx, avatar)
		if err != nil {
			return "", nil, err
		}
		out, err := cards.EncodePNG(data, image)
		return base + ".png", out, err
	default:
		return "", nil, apperr.Invalid("format must be \"png\" or \"json\", not %q", opts.Format)
	}
}

// imageBytes reads avatar's picture, nil when it has none.
func (s *Service) imageBytes(ctx context.Context, avatar string) ([]byte, error) {
	var image sql.NullString
	err := s.db.Reader().QueryRowContext(ctx, `SELECT image FROM characters WHERE avatar = ?`, avatar).Scan(&image)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(avatar)
	}
	if err != nil || !image.Valid {
		return nil, err
	}
	p, err := s.media.Path(image.String)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read the picture of %s: %w", avatar, err)
	}
	return data, nil
}

// decodeBase64 decodes a base64 upload (a data: URL prefix allowed) of at
// most limit bytes.
func decodeBase64(b64 string, limit int, field string) ([]byte, error) {
	if i := strings.Index(b64, ";base64,"); strings.HasPrefix(b64, "data:") && i >= 0 {
		b64 = b64[i+len(";base64,"):]
	}
	if b64 == "" {
		return nil, apperr.Invalid("%s is required", field)
	}
	if base64.StdEncoding.DecodedLen(len(b64)) > limit {
		return nil, apperr.Invalid("%s is larger than %d MB", field, limit>>20)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, apperr.Invalid("%s must be base64: %v", field, err)
	}
	return data, nil
}

// RenameWorldIn points every card bound to the lorebook from (its
// extensions.world) at to, inside tx: a renamed book stays the
// character's. CHARACTER_EDITED fires for each after the commit.
func (s *Service) RenameWorldIn(ctx context.Context, tx *store.Tx, from, to string) error {
	rows, err := tx.QueryContext(ctx, `SELECT avatar FROM characters WHERE json_type(card, '$.extensions.world') = 'text' AND json_extract(card, '$.extensions.world') = ?`, from)
	if err != nil {
		return fmt.Errorf("find cards bound to lorebook %q: %w", from, err)
	}
	var avatars []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			rows.Close()
			return fmt.Errorf("find cards bound to lorebook %q: %w", from, err)
		}
		avatars = append(avatars, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find cards bound to lorebook %q: %w", from, err)
	}
	now := s.now().UnixMilli()
	for _, avatar := range avatars {
		c, err := getCard(ctx, tx, avatar)
		if err != nil {
			return err
		}
		ext, err := jsonx.DecodeObject(c.Data["extensions"], "extensions")
		if err != nil {
			return err
		}
		ext.Set("world", to)
		c.Data["extensions"], _ = ext.MarshalJSON()
		raw, _ := c.Data.MarshalJSON()
		c.UpdatedAt = now
		if _, err := tx.ExecContext(ctx, `UPDATE characters SET card = ?, updated_at = ? WHERE avatar = ?`, string(raw), now, avatar); err != nil {
			return fmt.Errorf("rebind card %s: %w", avatar, err)
		}
		tx.AfterCommit(func() {
			s.bus.Publish(events.Event{Type: events.CharacterEdited, Payload: &events.CharacterPayload{Avatar: avatar, Character: c}})
		})
	}
	return nil
}
