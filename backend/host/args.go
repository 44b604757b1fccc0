package host

import (
	"bytes"
	"encoding/json"
	"fmt"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// Args are a call's positional arguments, kept raw until a handler asks for
// a typed value. Every accessor validates strictly: wrong JSON types,
// fractional numbers and missing required arguments are
// validation.invalid_argument errors, never coerced.
type Args []json.RawMessage

// parseArgs splits a call's JSON array into its arguments and refuses any
// argument nested deeper than jsonx.MaxDepth, for every method alike, so no
// handler sees deeper host data. (The stores check again what they write:
// a patch can place a value below a deep path.) The split, the validation
// and the depth check are one pass (jsonx.SplitArray) over a copy of raw
// that the arguments then share; should it not take the array,
// encoding/json decodes it and says what is wrong.
func parseArgs(raw []byte) (Args, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if args, ok := splitArgs(raw); ok {
		return args, nil
	}
	// The array holding the arguments is one level of its own.
	if jsonx.Depth(raw) > jsonx.MaxDepth+1 {
		return nil, tooDeep(raw)
	}
	var args Args
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, apperr.Invalid("arguments must be a JSON array: %v", err)
	}
	return args, nil
}

// splitArgs is parseArgs' one-pass split, of a copy of raw: ok is false
// when raw is not a JSON array of arguments nested at most jsonx.MaxDepth
// levels. Like encoding/json it lets objects repeat a name and keeps
// bytes that are not UTF-8 as they are.
func splitArgs(raw []byte) (Args, bool) {
	elems, ok := jsonx.SplitArray(bytes.Clone(raw), jsonx.MaxDepth+1)
	return Args(elems), ok
}

// tooDeep names the first argument of raw that nests too deeply.
func tooDeep(raw []byte) error {
	var args Args
	if err := json.Unmarshal(raw, &args); err != nil {
		return apperr.Invalid("arguments must be a JSON array nested at most %d levels: %v", jsonx.MaxDepth, err).
			WithDetails(map[string]any{"maxDepth": jsonx.MaxDepth})
	}
	for i, a := range args {
		if err := jsonx.CheckDepth(a, fmt.Sprintf("argument %d", i+1)); err != nil {
			return err
		}
	}
	return apperr.Invalid("arguments must be a JSON array")
}

// Has reports whether argument i was supplied and is not null/undefined.
func (a Args) Has(i int) bool {
	return i < len(a) && !isNull(a[i])
}

// Raw returns argument i as raw JSON (nil when absent).
func (a Args) Raw(i int) json.RawMessage {
	if !a.Has(i) {
		return nil
	}
	return a[i]
}

func isNull(r json.RawMessage) bool {
	t := bytes.TrimSpace(r)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// String returns the required string argument i.
func (a Args) String(i int, name string) (string, error) {
	if !a.Has(i) {
		return "", apperr.Invalid("%s is required", name)
	}
	var s string
	if err := json.Unmarshal(a[i], &s); err != nil {
		return "", apperr.Invalid("%s must be a string", name)
	}
	return s, nil
}

// Bool returns the required boolean argument i.
func (a Args) Bool(i int, name string) (bool, error) {
	if !a.Has(i) {
		return false, apperr.Invalid("%s is required", name)
	}
	var b bool
	if err := json.Unmarshal(a[i], &b); err != nil {
		return false, apperr.Invalid("%s must be a boolean", name)
	}
	return b, nil
}

// Int returns the required integer argument i.
func (a Args) Int(i int, name string) (int, error) {
	if !a.Has(i) {
		return 0, apperr.Invalid("%s is required", name)
	}
	return DecodeInt(a[i], name)
}

// Object decodes the required object argument i into dst, and refuses
// the integer members named in ints when they are null (see OptOptions).
func (a Args) Object(i int, name string, dst any, ints ...string) error {
	if !a.Has(i) {
		return apperr.Invalid("%s is required", name)
	}
	if err := DecodeObject(a[i], name, dst); err != nil {
		return err
	}
	return jsonx.RefuseNulls(a[i], name, ints...)
}

// OptObject decodes argument i into dst when present, like Object; absent
// leaves dst as is.
func (a Args) OptObject(i int, name string, dst any, ints ...string) error {
	if !a.Has(i) {
		return nil
	}
	return a.Object(i, name, dst, ints...)
}

// OptOptions decodes the options object i into dst like OptObject, and
// refuses the integer members named in ints when they are null: what JSON
// makes of NaN and Infinity. The decoder leaves a pointer nil for null, the
// same as for a member left out, so { ifRevision: NaN } would otherwise write
// unconditionally and deleteMessages' { swipe: NaN } delete the whole
// message instead of one swipe. (Members left undefined are dropped by
// JSON.stringify and stay "not given".)
func (a Args) OptOptions(i int, dst any, ints ...string) error {
	return a.OptObject(i, "options", dst, ints...)
}

// IsArray reports whether argument i is a JSON array.
func (a Args) IsArray(i int) bool {
	if !a.Has(i) {
		return false
	}
	t := bytes.TrimSpace(a[i])
	return len(t) > 0 && t[0] == '['
}

// DecodeObject decodes raw, which must be a JSON object, into dst. Unknown
// keys are ignored: callers written for other hosts pass extra options.
func DecodeObject(raw json.RawMessage, name string, dst any) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return apperr.Invalid("%s must be an object", name)
	}
	if err := json.Unmarshal(t, dst); err != nil {
		if e := apperr.As(err); e != nil {
			return e // a type's own decoder (generate.Options) names the field
		}
		return apperr.Invalid("%s: %s", name, describeJSONError(err))
	}
	return nil
}

// DecodeInt decodes raw as an integer; see jsonx.Int.
func DecodeInt(raw json.RawMessage, name string) (int, error) { return jsonx.Int(raw, name) }

func describeJSONError(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		field := te.Field
		if field == "" {
			field = "value"
		}
		return field + " must be " + jsonKind(te.Type.Kind().String())
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "float64":
		return "a number"
	case "slice":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "of another type"
}

func invalid(format string, args ...any) error { return apperr.Invalid(format, args...) }
