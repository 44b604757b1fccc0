package cards

import (
	"fmt"
	"maps"

	"hearth/backend/apperr"
)

// invalid is a card.invalid error with reason in details and a message
// that starts with what is wrong.
func invalid(reason, format string, args ...any) *apperr.Error {
	return apperr.New(CodeInvalid, format, args...).WithDetails(map[string]any{"reason": reason})
}

// imageUnsupported is a card.image_unsupported error with reason in details.
func imageUnsupported(reason, format string, args ...any) *apperr.Error {
	return apperr.New(CodeImageUnsupported, format, args...).WithDetails(map[string]any{"reason": reason})
}

// withFile returns err naming the file it came from: a copy for *apperr
// errors (their details gain fileName and the message its name), a wrapped
// error otherwise.
func withFile(err error, fileName string) error {
	if err == nil || fileName == "" {
		return err
	}
	e := apperr.As(err)
	if e == nil {
		return fmt.Errorf("%s: %w", fileName, err)
	}
	details := map[string]any{}
	maps.Copy(details, e.Details)
	details["fileName"] = fileName
	return &apperr.Error{Code: e.Code, Message: fmt.Sprintf("%s: %s", fileName, e.Message), Details: details}
}

// tooLarge is a card.invalid error for input past a size bound.
func tooLarge(what string, n, max int) *apperr.Error {
	e := invalid("too_large", "%s is %d bytes; at most %d are allowed", what, n, max)
	e.Details["maxBytes"] = max
	return e
}

// prefixed returns err with prefix before its message, keeping its code
// and details, so a nested failure says where it happened.
func prefixed(err error, prefix string) error {
	e := apperr.As(err)
	if e == nil {
		return fmt.Errorf("%s%w", prefix, err)
	}
	return &apperr.Error{Code: e.Code, Message: prefix + e.Message, Details: e.Details}
}

// errMessage is err's message without its code, for warnings.
func errMessage(err error) string {
	if e := apperr.As(err); e != nil {
		return e.Message
	}
	return err.Error()
}

// tooDeep is a card.invalid error for JSON nesting past max levels.
func tooDeep(depth, max int) *apperr.Error {
	e := invalid("too_deep", "the card nests %d levels deep; at most %d are allowed", depth, max)
	e.Details["depth"] = depth
	e.Details["maxDepth"] = max
	return e
}
