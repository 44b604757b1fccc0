package worldinfo

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"hearth/backend/jsonx"
)

// entryField is one known entry field: how to read it into an Entry and
// how to write it back. Decoders accept null where SillyTavern reads null
// (as the value a missing field has) and name the field in errors.
type entryField struct {
	name   string
	decode func(e *Entry, raw []byte, path string) error
	encode func(b []byte, e *Entry) []byte
}

// entryFields lists the known fields in the order SillyTavern's entry
// template has them (uid first, as createWorldInfoEntry writes it); a new
// entry is written in this order.
var entryFields = []entryField{
	{"uid", func(e *Entry, r []byte, p string) error { return decInt(&e.UID, r, p, 0, false) }, func(b []byte, e *Entry) []byte { return strconv.AppendInt(b, int64(e.UID), 10) }},
	stringsField("key", func(e *Entry) *[]string { return &e.Key }),
	stringsField("keysecondary", func(e *Entry) *[]string { return &e.KeySecondary }),
	stringField("comment", func(e *Entry) *string { return &e.Comment }),
	stringField("content", func(e *Entry) *string { return &e.Content }),
	boolField("constant", func(e *Entry) *bool { return &e.Constant }),
	boolField("vectorized", func(e *Entry) *bool { return &e.Vectorized }),
	boolField("selective", func(e *Entry) *bool { return &e.Selective }),
	intField("selectiveLogic", LogicAndAny, func(e *Entry) *int { return &e.SelectiveLogic }),
	boolField("addMemo", func(e *Entry) *bool { return &e.AddMemo }),
	intField("order", 0, func(e *Entry) *int { return &e.Order }),
	intField("position", PositionNone, func(e *Entry) *int { return &e.Position }),
	boolField("disable", func(e *Entry) *bool { return &e.Disable }),
	boolField("ignoreBudget", func(e *Entry) *bool { return &e.IgnoreBudget }),
	boolField("excludeRecursion", func(e *Entry) *bool { return &e.ExcludeRecursion }),
	boolField("preventRecursion", func(e *Entry) *bool { return &e.PreventRecursion }),
	boolField("matchPersonaDescription", func(e *Entry) *bool { return &e.MatchPersonaDescription }),
	boolField("matchCharacterDescription", func(e *Entry) *bool { return &e.MatchCharacterDescription }),
	boolField("matchCharacterPersonality", func(e *Entry) *bool { return &e.MatchCharacterPersonality }),
	boolField("matchCharacterDepthPrompt", func(e *Entry) *bool { return &e.MatchCharacterDepthPrompt }),
	boolField("matchScenario", func(e *Entry) *bool { return &e.MatchScenario }),
	boolField("matchCreatorNotes", func(e *Entry) *bool { return &e.MatchCreatorNotes }),
	{"delayUntilRecursion", decDelayUntilRecursion, func(b []byte, e *Entry) []byte { return strconv.AppendInt(b, int64(e.DelayUntilRecursion), 10) }},
	floatField("probability", 0, func(e *Entry) *float64 { return &e.Probability }),
	boolField("useProbability", func(e *Entry) *bool { return &e.UseProbability }),
	intField("depth", DefaultDepth, func(e *Entry) *int { return &e.Depth }),
	stringField("outletName", func(e *Entry) *string { return &e.OutletName }),
	stringField("group", func(e *Entry) *string { return &e.Group }),
	boolField("groupOverride", func(e *Entry) *bool { return &e.GroupOverride }),
	floatField("groupWeight", DefaultWeight, func(e *Entry) *float64 { return &e.GroupWeight }),
	nullIntField("scanDepth", func(e *Entry) **int { return &e.ScanDepth }),
	nullBoolField("caseSensitive", func(e *Entry) **bool { return &e.CaseSensitive }),
	nullBoolField("matchWholeWords", func(e *Entry) **bool { return &e.MatchWholeWords }),
	nullBoolField("useGroupScoring", func(e *Entry) **bool { return &e.UseGroupScoring }),
	stringField("automationId", func(e *Entry) *string { return &e.AutomationID }),
	intField("role", RoleSystem, func(e *Entry) *int { return &e.Role }),
	intField("sticky", 0, func(e *Entry) *int { return &e.Sticky }),
	intField("cooldown", 0, func(e *Entry) *int { return &e.Cooldown }),
	intField("delay", 0, func(e *Entry) *int { return &e.Delay }),
	stringsField("triggers", func(e *Entry) *[]string { return &e.Triggers }),
	intField("displayIndex", 0, func(e *Entry) *int { return &e.DisplayIndex }),
	{"characterFilter", decCharacterFilter, encCharacterFilter},
	{"extensions", func(e *Entry, r []byte, p string) error { return decObject(&e.Extensions, r, p) }, func(b []byte, e *Entry) []byte { return encObject(b, e.Extensions) }},
}

// fieldIndex finds a known field by name.
var fieldIndex = func() map[string]int {
	m := make(map[string]int, len(entryFields))
	for i, f := range entryFields {
		m[f.name] = i
	}
	return m
}()

func boolField(name string, get func(*Entry) *bool) entryField {
	return entryField{name,
		func(e *Entry, r []byte, p string) error { return decBool(get(e), r, p) },
		func(b []byte, e *Entry) []byte { return strconv.AppendBool(b, *get(e)) }}
}

func nullBoolField(name string, get func(*Entry) **bool) entryField {
	return entryField{name,
		func(e *Entry, r []byte, p string) error {
			if isNull(r) {
				*get(e) = nil
				return nil
			}
			var v bool
			if err := decBool(&v, r, p); err != nil {
				return err
			}
			*get(e) = &v
			return nil
		},
		func(b []byte, e *Entry) []byte {
			if v := *get(e); v != nil {
				return strconv.AppendBool(b, *v)
			}
			return append(b, "null"...)
		}}
}

func intField(name string, null int, get func(*Entry) *int) entryField {
	return entryField{name,
		func(e *Entry, r []byte, p string) error { return decInt(get(e), r, p, null, true) },
		func(b []byte, e *Entry) []byte { return strconv.AppendInt(b, int64(*get(e)), 10) }}
}

func nullIntField(name string, get func(*Entry) **int) entryField {
	return entryField{name,
		func(e *Entry, r []byte, p string) error {
			if isNull(r) {
				*get(e) = nil
				return nil
			}
			var v int
			if err := decInt(&v, r, p, 0, false); err != nil {
				return err
			}
			*get(e) = &v
			return nil
		},
		func(b []byte, e *Entry) []byte {
			if v := *get(e); v != nil {
				return strconv.AppendInt(b, int64(*v), 10)
			}
			return append(b, "null"...)
		}}
}

func floatField(name string, null float64, get func(*Entry) *float64) entryField {
	return entryField{name,
		func(e *Entry, r []byte, p string) error {
			if isNull(r) {
				*get(e) = null
				return nil
			}
			f, err := jsonx.Number(r, p)
			if err != nil || math.Abs(f) > jsonx.MaxSafeInt {
				return invalid(p, "must be a number")
			}
			*get(e) = f
			return nil
		},
		func(b []byte, e *Entry) []byte { return appendJSNumber(b, *get(e)) }}
}

func stringsField(name string, get func(*Entry) *[]string) entryField {
	return entryField{name,
		func(e *Entry, r []byte, p string) error { return decStrings(get(e), r, p) },
		func(b []byte, e *Entry) []byte { return encStrings(b, *get(e)) }}
}

func stringField(name string, get func(*Entry) *string) entryField {
	return entryField{name,
		func(e *Entry, r []byte, p string) error { return decString(get(e), r, p) },
		func(b []byte, e *Entry) []byte { return appendJSString(b, *get(e)) }}
}

func isNull(raw []byte) bool { return jsonx.IsNull(raw) }

func decString(dst *string, raw []byte, path string) error {
	if isNull(raw) {
		*dst = ""
		return nil
	}
	if raw[0] != '"' || json.Unmarshal(raw, dst) != nil {
		return invalid(path, "must be a string")
	}
	return nil
}

// decBool reads a boolean; null reads as false and a number as JavaScript
// truthiness, as SillyTavern's checks see them.
func decBool(dst *bool, raw []byte, path string) error {
	switch {
	case isNull(raw):
		*dst = false
	case bytes.Equal(raw, []byte("true")):
		*dst = true
	case bytes.Equal(raw, []byte("false")):
		*dst = false
	default:
		f, err := jsonx.Number(raw, path)
		if err != nil {
			return invalid(path, "must be a boolean")
		}
		*dst = f != 0
	}
	return nil
}

func decInt(dst *int, raw []byte, path string, null int, nullOK bool) error {
	if isNull(raw) {
		if !nullOK {
			return invalid(path, "must be an integer, got null")
		}
		*dst = null
		return nil
	}
	var n json.Number
	if raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
		return invalid(path, "must be an integer")
	}
	v, err := jsonx.NumberToInt(n, path)
	if err != nil {
		return invalid(path, "must be an integer within ±2^53, got %s", n)
	}
	*dst = v
	return nil
}

// decDelayUntilRecursion reads true as level 1 and false as 0, as
// SillyTavern does.
func decDelayUntilRecursion(e *Entry, raw []byte, path string) error {
	var b bool
	if bytes.Equal(raw, []byte("true")) || bytes.Equal(raw, []byte("false")) {
		if err := decBool(&b, raw, path); err != nil {
			return err
		}
		e.DelayUntilRecursion = 0
		if b {
			e.DelayUntilRecursion = 1
		}
		return nil
	}
	return decInt(&e.DelayUntilRecursion, raw, path, 0, true)
}

func decStrings(dst *[]string, raw []byte, path string) error {
	if isNull(raw) {
		*dst = nil
		return nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return invalid(path, "must be an array of strings")
	}
	out := make([]string, len(items))
	for i, it := range items {
		if isNull(it) || decString(&out[i], it, path) != nil {
			return invalid(path+"["+itoa(i)+"]", "must be a string")
		}
	}
	*dst = out
	return nil
}

func encStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSString(b, s)
	}
	return append(b, ']')
}

func decObject(dst *jsonx.Object, raw []byte, path string) error {
	if isNull(raw) {
		*dst = nil
		return nil
	}
	o, err := jsonx.DecodeObject(raw, path)
	if err != nil {
		return invalid(path, "must be an object")
	}
	*dst = o
	return nil
}

// encObject writes o with its keys sorted (jsonx.Object's order); nil is
// null.
func encObject(b []byte, o jsonx.Object) []byte {
	if o == nil {
		return append(b, "null"...)
	}
	raw, _ := o.MarshalJSON()
	return append(b, raw...)
}

func decCharacterFilter(e *Entry, raw []byte, path string) error {
	if isNull(raw) {
		e.CharacterFilter = nil
		return nil
	}
	var o jsonx.Object
	if err := decObject(&o, raw, path); err != nil {
		return err
	}
	f := &CharacterFilter{}
	if err := decBool(&f.IsExclude, o["isExclude"], path+".isExclude"); err != nil {
		return err
	}
	if err := decStrings(&f.Names, o["names"], path+".names"); err != nil {
		return err
	}
	if err := decStrings(&f.Tags, o["tags"], path+".tags"); err != nil {
		return err
	}
	e.CharacterFilter = f
	return nil
}

func encCharacterFilter(b []byte, e *Entry) []byte {
	f := e.CharacterFilter
	if f == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"isExclude":`...)
	b = strconv.AppendBool(b, f.IsExclude)
	b = append(b, `,"names":`...)
	b = encStrings(b, f.Names)
	b = append(b, `,"tags":`...)
	b = encStrings(b, f.Tags)
	return append(b, '}')
}
