package worldinfo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
	"hearth/backend/store"
)

// ExistsTx says whether a book is stored under name.
func (s *Service) ExistsTx(ctx context.Context, tx *store.Tx, name string) (bool, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM lorebooks WHERE name = ?`, name).Scan(&n); err != nil {
		return false, fmt.Errorf("look up lorebook %q: %w", name, err)
	}
	return n > 0, nil
}

// AddCharacterBook stores a card's embedded character_book as a new book
// inside tx (the card's own import transaction) and returns its name:
// want when it is given (the card's extensions.world, the name
// SillyTavern saved it under), else the book's own name, else
// "<character>'s Lorebook" as SillyTavern names it; a number is added
// when the name is taken.
func (s *Service) AddCharacterBook(ctx context.Context, tx *store.Tx, raw json.RawMessage, want, character string) (string, error) {
	book, own, err := FromCharacterBook(raw)
	if err != nil {
		return "", err
	}
	base := firstNonBlank(want, own, character+"'s Lorebook")
	if checkName(base) != nil {
		base = character + "'s Lorebook"
		if checkName(base) != nil {
			base = "Lorebook"
		}
	}
	body, err := Encode(book)
	if err != nil {
		return "", err
	}
	name, err := freeName(ctx, tx, base)
	if err != nil {
		return "", err
	}
	return name, s.put(ctx, tx, name, body, len(book.Entries), false)
}

// CharacterBook returns the stored book name as a card's character_book,
// for a card export to carry the book as it is now; ok is false when no
// such book exists. orig is the character_book the card holds: while the
// book is still what orig converts to, orig is returned unchanged (a card
// exported unedited is the card imported); once the book was edited it is
// converted as SillyTavern does, keeping orig's book-level fields
// (scan_depth, token_budget, recursive_scanning, extensions).
func (s *Service) CharacterBook(ctx context.Context, name string, orig json.RawMessage) (raw json.RawMessage, ok bool, err error) {
	body, err := s.raw(ctx, s.db.Reader(), name)
	if err != nil {
		if apperr.CodeOf(err) == CodeNotFound {
			return nil, false, nil
		}
		return nil, false, err
	}
	if len(orig) > 0 && !jsonx.IsNull(orig) {
		if was, _, err := FromCharacterBook(orig); err == nil {
			if enc, err := Encode(was); err == nil && bytes.Equal(enc, body) {
				return orig, true, nil
			}
		}
	}
	book, err := ParseBook(body)
	if err != nil {
		return nil, false, err
	}
	raw, err = ToCharacterBook(name, book)
	if err != nil {
		return nil, false, err
	}
	return keepBookFields(raw, orig), true, nil
}

// keepBookFields copies the book-level fields of orig other than entries
// and name onto the converted book conv.
func keepBookFields(conv, orig json.RawMessage) json.RawMessage {
	o, err := jsonx.DecodeObject(orig, "character_book")
	if err != nil {
		return conv
	}
	c, err := jsonx.DecodeObject(conv, "character_book")
	if err != nil {
		return conv
	}
	for k, v := range o {
		if k != "entries" && k != "name" {
			c[k] = v
		}
	}
	out, _ := c.MarshalJSON()
	return out
}

func firstNonBlank(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}
