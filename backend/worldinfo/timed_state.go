package worldinfo

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"hearth/backend/jsonx"
)

// MetadataKey is the chat metadata key SillyTavern stores timed effects
// under.
const MetadataKey = "timedWorldInfo"

// TimedEffect is one sticky or cooldown record, SillyTavern's
// WITimedEffect: the effect runs while the chat's message count is in
// [Start, End). Hash identifies the entry's content when the effect was
// set; an edited entry no longer matches its effects. A Protected effect
// (a cooldown that followed a sticky) survives a chat that did not
// advance.
type TimedEffect struct {
	Hash      int64 `json:"hash"`
	Start     int   `json:"start"`
	End       int   `json:"end"`
	Protected bool  `json:"protected"`
}

// TimedState is a chat's metadata timedWorldInfo: the sticky and
// cooldown effects by entry key ("<world>.<uid>"). Activate takes the
// stored state and returns the one to store next.
type TimedState struct {
	Sticky   map[string]TimedEffect
	Cooldown map[string]TimedEffect
	// Extra keeps any other keys of the stored object verbatim.
	Extra jsonx.Object
}

// ParseTimedState reads a stored timedWorldInfo value. Like SillyTavern it
// tolerates damage: null, a non-object, a non-object sticky or cooldown
// and records that are not objects read as empty; records whose start or
// end is not a number are dropped too (SillyTavern would keep them
// forever). Only invalid JSON is an error.
func ParseTimedState(raw json.RawMessage) (TimedState, error) {
	s := TimedState{Sticky: map[string]TimedEffect{}, Cooldown: map[string]TimedEffect{}}
	if isNull(bytes.TrimSpace(raw)) {
		return s, nil
	}
	if !json.Valid(raw) {
		return s, invalid(MetadataKey, "is not valid JSON")
	}
	var top jsonx.Object
	if json.Unmarshal(raw, &top) != nil {
		return s, nil
	}
	for k, v := range top {
		switch k {
		case "sticky":
			s.Sticky = parseEffects(v)
		case "cooldown":
			s.Cooldown = parseEffects(v)
		default:
			if s.Extra == nil {
				s.Extra = jsonx.Object{}
			}
			s.Extra[k] = v
		}
	}
	return s, nil
}

func parseEffects(raw json.RawMessage) map[string]TimedEffect {
	out := map[string]TimedEffect{}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return out
	}
	for k, v := range m {
		var fields map[string]json.RawMessage
		if json.Unmarshal(v, &fields) != nil || fields == nil {
			continue
		}
		start, okStart := looseNumber(fields["start"])
		end, okEnd := looseNumber(fields["end"])
		if !okStart || !okEnd {
			continue
		}
		hash, _ := looseNumber(fields["hash"])
		var protected bool
		_ = decBool(&protected, fields["protected"], "protected")
		out[k] = TimedEffect{Hash: int64(hash), Start: int(start), End: int(end), Protected: protected}
	}
	return out
}

// looseNumber reads a number the way JavaScript's Number() reads what
// SillyTavern stored: a JSON number or a numeric string.
func looseNumber(raw json.RawMessage) (float64, bool) {
	if raw == nil {
		return 0, false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil && !math.IsInf(f, 0)
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || math.Abs(f) > jsonx.MaxSafeInt {
		return 0, false
	}
	return f, true
}

// Clone returns a deep copy, so the caller's state is never changed.
func (s TimedState) Clone() TimedState {
	out := TimedState{Sticky: make(map[string]TimedEffect, len(s.Sticky)), Cooldown: make(map[string]TimedEffect, len(s.Cooldown))}
	for k, v := range s.Sticky {
		out.Sticky[k] = v
	}
	for k, v := range s.Cooldown {
		out.Cooldown[k] = v
	}
	if s.Extra != nil {
		out.Extra = s.Extra.Clone()
	}
	return out
}

// MarshalJSON writes the state in SillyTavern's shape:
// {"sticky": {key: effect}, "cooldown": {…}}, keys sorted.
func (s TimedState) MarshalJSON() ([]byte, error) {
	ms := []jsMember{
		{key: "sticky", value: appendEffects(nil, s.Sticky)},
		{key: "cooldown", value: appendEffects(nil, s.Cooldown)},
	}
	for _, k := range sortedKeys(s.Extra) {
		ms = append(ms, jsMember{key: k, value: s.Extra[k]})
	}
	return appendJSObject(nil, ms), nil
}

func appendEffects(b []byte, m map[string]TimedEffect) []byte {
	keys := make(jsonx.Object, len(m))
	for k := range m {
		keys[k] = nil
	}
	ms := make([]jsMember, 0, len(m))
	for _, k := range sortedKeys(keys) {
		v := m[k]
		e := []byte(`{"hash":`)
		e = strconv.AppendInt(e, v.Hash, 10)
		e = append(e, `,"start":`...)
		e = strconv.AppendInt(e, int64(v.Start), 10)
		e = append(e, `,"end":`...)
		e = strconv.AppendInt(e, int64(v.End), 10)
		e = append(e, `,"protected":`...)
		e = strconv.AppendBool(e, v.Protected)
		ms = append(ms, jsMember{key: k, value: append(e, '}')})
	}
	return appendJSObject(b, ms)
}
