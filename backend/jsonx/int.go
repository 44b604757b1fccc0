// Package jsonx holds small JSON helpers shared by the host edge and the
// domain: strict integer decoding that never coerces what JavaScript sends.
package jsonx

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"hearth/backend/apperr"
)

// MaxSafeInt is JavaScript's Number.MAX_SAFE_INTEGER.
const MaxSafeInt = 1<<53 - 1

// Int decodes raw as an integer. Strings, booleans, null (what JSON makes of
// NaN and Infinity), fractions and values beyond MaxSafeInt are
// validation.invalid_argument errors naming the argument.
func Int(raw json.RawMessage, name string) (int, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return 0, apperr.Invalid("%s must be an integer, got null (NaN or undefined?)", name)
	}
	var n json.Number
	if t[0] == '"' || json.Unmarshal(t, &n) != nil {
		return 0, apperr.Invalid("%s must be an integer, got %s", name, abbreviate(t))
	}
	return NumberToInt(n, name)
}

// NumberToInt converts a JSON number to int, rejecting fractions and
// magnitudes beyond MaxSafeInt.
func NumberToInt(n json.Number, name string) (int, error) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		if i > MaxSafeInt || i < -MaxSafeInt {
			return 0, apperr.Invalid("%s is out of range", name)
		}
		return int(i), nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > MaxSafeInt {
		return 0, apperr.Invalid("%s must be an integer, got %s", name, n)
	}
	return int(f), nil
}

// Number decodes raw as a finite number.
func Number(raw json.RawMessage, name string) (float64, error) {
	var f float64
	t := bytes.TrimSpace(raw)
	if bytes.Equal(t, []byte("null")) || json.Unmarshal(t, &f) != nil {
		return 0, apperr.Invalid("%s must be a number, got %s", name, abbreviate(t))
	}
	return f, nil
}

func abbreviate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// NullMember returns the first of keys whose value in the JSON object raw
// is null, and whether there is one. A key left out does not count: a
// member JavaScript left undefined is dropped by JSON.stringify, while NaN
// and Infinity become null and the decoder would read them as "not given"
// (a nil pointer) or as zero. raw that is not an object has no members.
func NullMember(raw json.RawMessage, keys ...string) (string, bool) {
	if len(keys) == 0 {
		return "", false
	}
	members, err := DecodeObjectShared(raw, "")
	if err != nil {
		return "", false
	}
	for _, k := range keys {
		if v, ok := members[k]; ok && IsNull(v) {
			return k, true
		}
	}
	return "", false
}

// RefuseNulls refuses the integer members of the JSON object raw named in
// keys whose value is null (see NullMember); name labels the object.
func RefuseNulls(raw json.RawMessage, name string, keys ...string) error {
	return refuseNull(raw, name, "an integer, got null (NaN or undefined?)", keys)
}

// RefuseNullBools is RefuseNulls for boolean members: null is never a
// boolean (JSON.stringify leaves an undefined member out), so a null is a
// wrong value, not "left out" to read as false.
func RefuseNullBools(raw json.RawMessage, name string, keys ...string) error {
	return refuseNull(raw, name, "a boolean, got null", keys)
}

// refuseNull refuses the first of keys that is null in raw, saying what
// the member must be and naming it in details.field.
func refuseNull(raw json.RawMessage, name, must string, keys []string) error {
	if k, ok := NullMember(raw, keys...); ok {
		return apperr.Invalid("%s.%s must be %s", name, k, must).
			WithDetails(map[string]any{"field": name + "." + k})
	}
	return nil
}
