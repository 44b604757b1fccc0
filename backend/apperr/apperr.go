// Package apperr defines the one error shape every Hearth caller sees.
//
// Domain packages return *Error values with a stable dotted code
// ("chat.not_found", "validation.invalid_argument"); the host router passes
// them through unchanged and wraps anything else as "internal". Keeping the
// type in a leaf package lets domain code speak the ABI's vocabulary without
// importing the host layer.
package apperr

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
)

// Stable error codes from HOST-ABI section 0. Codes only ever gain members.
const (
	CodeInternal           = "internal"
	CodeInvalidArgument    = "validation.invalid_argument"
	CodeTooMany            = "validation.too_many"
	CodeUnknownMethod      = "host.unknown_method"
	CodeChatNotFound       = "chat.not_found"
	CodeChatConflict       = "chat.conflict"
	CodeChatNameTaken      = "chat.name_taken"
	CodeMessageNotFound    = "message.not_found"
	CodeIndexOutOfRange    = "message.index_out_of_range"
	CodeSwipeOutOfRange    = "swipe.out_of_range"
	CodeLastSwipe          = "swipe.last_swipe"
	CodePatchInvalid       = "patch.invalid"
	CodePatchTestFailed    = "patch.test_failed"
	CodeCharacterNotFound  = "character.not_found"
	CodeGroupNotFound      = "group.not_found"
	CodeStateConflict      = "state.conflict"
	CodeStateReserved      = "state.reserved_namespace"
	CodeStateFloorOwned    = "state.floor_owned"
	CodeCharacterNameTaken = "character.avatar_taken"
	CodeAuthDenied         = "auth.denied"
)

// Error is a failure a caller can act on: a stable code, a human message and
// optional structured details (for example the current revision on a conflict).
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// New returns an Error with a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails returns e with details attached; it mutates and returns e so a
// constructor can be chained at the return site.
func (e *Error) WithDetails(details map[string]any) *Error {
	e.Details = details
	return e
}

// Invalid is shorthand for a validation.invalid_argument error.
func Invalid(format string, args ...any) *Error {
	return New(CodeInvalidArgument, format, args...)
}

// As extracts an *Error from err, or nil when err carries none.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// CodeOf returns the code of err, CodeInternal for foreign errors and "" for nil.
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	if e := As(err); e != nil {
		return e.Code
	}
	return CodeInternal
}

// Shape turns any error into the wire shape, for the edge where it leaves
// the process. Foreign errors become "internal" with a generic message and
// a correlation id: their text can hold absolute paths, SQL or other
// detail no caller should see (and every caller, extensions and pages
// included, receives errors), so it goes to the log under that id instead.
func Shape(err error) *Error {
	if e := As(err); e != nil {
		return e
	}
	ref := newRef()
	slog.Error("internal error", "ref", ref, "err", err.Error())
	return &Error{
		Code:    CodeInternal,
		Message: "Hearth hit an internal error; its log has the details under ref " + ref,
		Details: map[string]any{"ref": ref},
	}
}

// Local wraps an error that happened on the caller's own side (a client's
// failed connection) as "internal", keeping its text: there is no one to
// hide it from.
func Local(err error) *Error {
	if e := As(err); e != nil {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// newRef returns a short random id that ties an error a caller saw to its
// line in the log.
func newRef() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
