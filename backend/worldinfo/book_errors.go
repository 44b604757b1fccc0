package worldinfo

import (
	"strconv"

	"hearth/backend/apperr"
)

// CodeInvalid is the error code of a lorebook, character book or timed
// state that cannot be read or would not be written: the message and the
// "field" detail name the offending field.
const CodeInvalid = "worldinfo.invalid"

// Bounds on what a lorebook may hold. A book is hostile input (imported
// files, extension writes); these keep one from exhausting memory or the
// activation budget while staying far above what real books use.
const (
	// MaxBookBytes bounds the JSON text of one book.
	MaxBookBytes = 64 << 20
	// MaxEntries bounds the entries of one book.
	MaxEntries = 10_000
	// MaxContentBytes bounds an entry's content and comment.
	MaxContentBytes = 1 << 20
	// MaxKeys bounds each key list (primary, secondary) of an entry.
	MaxKeys = 1_000
	// MaxKeyBytes bounds one key (regex keys included).
	MaxKeyBytes = 16 << 10
)

// invalid returns a CodeInvalid error naming field.
func invalid(field, format string, args ...any) *apperr.Error {
	e := apperr.New(CodeInvalid, field+" "+format, args...)
	return e.WithDetails(map[string]any{"field": field})
}

// itoa formats an int; short to keep paths readable.
func itoa(n int) string { return strconv.Itoa(n) }

// entryPath names an entry in errors: entries["12"].
func entryPath(key string) string { return "entries[" + strconv.Quote(key) + "]" }
