package worldinfo

import (
	"bytes"
	"context"
	"io"
	"path"
	"strings"

	"hearth/backend/store"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// ImportInput is a SillyTavern worlds/<name>.json file to import.
type ImportInput struct {
	FileName string `json:"fileName"`
	Text     string `json:"text"`
	// Name, when set, names the book instead of the file name.
	Name string `json:"name"`
	// Replace overwrites a book of the same name; without it that name is
	// worldinfo.name_taken.
	Replace bool `json:"replace"`
}

// Import stores a World Info file as a book and returns its name.
func (s *Service) Import(ctx context.Context, in ImportInput) (Summary, error) {
	name := in.Name
	if name == "" {
		name = strings.TrimSuffix(path.Base(strings.ReplaceAll(in.FileName, "\\", "/")), ".json")
	}
	if err := checkName(name); err != nil {
		return Summary{}, err
	}
	if len(in.Text) > MaxBookBytes {
		return Summary{}, invalid("text", "the file is larger than %d MB", MaxBookBytes>>20)
	}
	book, err := ParseBook([]byte(in.Text))
	if err != nil {
		return Summary{}, err
	}
	body, err := Encode(book)
	if err != nil {
		return Summary{}, err
	}
	err = s.db.InTx(ctx, func(tx *store.Tx) error {
		return s.put(ctx, tx, name, body, len(book.Entries), in.Replace)
	})
	if err != nil {
		return Summary{}, err
	}
	now := s.now().UnixMilli()
	return Summary{Name: name, Entries: len(book.Entries), CreatedAt: now, UpdatedAt: now}, nil
}

// Exported is a book as a SillyTavern World Info file.
type Exported struct {
	FileName string `json:"fileName"`
	Text     string `json:"text"`
}

// Export returns the book name as SillyTavern's worlds/<name>.json.
func (s *Service) Export(ctx context.Context, name string) (Exported, error) {
	raw, err := s.raw(ctx, s.db.Reader(), name)
	if err != nil {
		return Exported{}, err
	}
	return Exported{FileName: name + ".json", Text: string(raw)}, nil
}
