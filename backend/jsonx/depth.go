package jsonx

import "hearth/backend/apperr"

// MaxDepth is how deeply any JSON value Hearth accepts or stores may nest:
// a call's argument, a stored message (with its extra and swipe_info), a
// chat's metadata, a character card. `{}` and `[]` are one level, `{"a":{}}`
// two. Host data is hostile input, and every reader — the frontend that
// freezes it, SillyTavern-style extensions that clone and stringify it —
// may walk it recursively; 64 levels is far beyond what any card or
// extension uses and far below what any of them can walk.
const MaxDepth = 64

// MaxCopyBytes bounds what the copy operations of one RFC 6902 patch may
// add, together: a copy of a value into itself doubles it, so thirty small
// ops could otherwise grow a document past any memory (the patch library
// holds several times the bytes while it copies). 8 MiB is far more than
// a copy of a message with all its swipes, or of any extension's state.
const MaxCopyBytes = 8 << 20

// Depth returns how deeply the JSON text raw nests objects and arrays (0
// for a scalar). It scans the bytes once without decoding, honouring
// strings and their escapes; on malformed input the result is meaningless
// but the scan still ends (decoding reports the error). A string's
// contents are skipped by searching for its closing quote (stringEnd,
// vectorised), not byte by byte: a chat file imported as one argument is
// tens of megabytes of string, and the depth check runs before anything
// else reads it.
func Depth(raw []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			end := stringEnd(raw, i) // just past the closing quote
			if end < 0 {
				return deepest
			}
			i = end - 1
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// ObjectDepth is Depth of o's JSON encoding, without encoding it.
func ObjectDepth(o Object) int {
	return 1 + ValuesDepth(o)
}

// ValuesDepth is the deepest Depth among o's values (0 when it has none):
// how far o's keys nest below the object that holds them.
func ValuesDepth(o Object) int {
	deepest := 0
	for _, v := range o {
		deepest = max(deepest, Depth(v))
	}
	return deepest
}

// CheckDepth refuses raw when it nests deeper than MaxDepth, naming it by
// label: a validation.invalid_argument error with the limit in details.
func CheckDepth(raw []byte, label string) error {
	return LimitDepth(Depth(raw), 0, label)
}

// LimitDepth refuses a value about to be stored at depth d when d is past
// MaxDepth, unless it was already that deep before the write (was): data
// stored before the limit existed stays editable, but no write makes
// anything deeper than the limit.
func LimitDepth(d, was int, label string) error {
	if d <= MaxDepth || d <= was {
		return nil
	}
	return apperr.Invalid("%s nests %d levels deep; at most %d are allowed", label, d, MaxDepth).
		WithDetails(map[string]any{"maxDepth": MaxDepth, "depth": d})
}
