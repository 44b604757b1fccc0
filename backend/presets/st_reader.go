package presets

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

// stReader reads typed values from one JSON object of the file; where
// names the object in errors ("" for the top level).
type stReader struct {
	m     map[string]json.RawMessage
	where string
}

func (r stReader) looksLikePreset() bool {
	for _, k := range []string{"temperature", "openai_max_context", "openai_max_tokens", "prompts", "prompt_order"} {
		if _, ok := r.m[k]; ok {
			return true
		}
	}
	return false
}

// raw is key's value, nil when it is missing or null.
func (r stReader) raw(key string) json.RawMessage {
	v, ok := r.m[key]
	if !ok || jsonx.IsNull(v) {
		return nil
	}
	return v
}

func (r stReader) bad(key, want string) error {
	field := r.where + key
	return apperr.Invalid("%s must be %s", field, want).WithDetails(map[string]any{"field": field})
}

func (r stReader) number(key string) (*float64, error) {
	v := r.raw(key)
	if v == nil {
		return nil, nil
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, r.bad(key, "a number")
	}
	return &f, nil
}

func (r stReader) integer(key string) (*int64, error) {
	v := r.raw(key)
	if v == nil {
		return nil, nil
	}
	var n json.Number
	if v[0] == '"' || json.Unmarshal(v, &n) != nil { // json.Number takes "42" too
		return nil, r.bad(key, "an integer")
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return &i, nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return nil, r.bad(key, "an integer")
	}
	i := int64(f)
	return &i, nil
}

// smallInt is integer bounded to what an int field can hold without
// surprise (validation then applies the field's own range).
func (r stReader) smallInt(key string) (*int, error) {
	i, err := r.integer(key)
	if err != nil || i == nil {
		return nil, err
	}
	if *i > jsonx.MaxSafeInt || *i < -jsonx.MaxSafeInt {
		return nil, r.bad(key, "a reasonable integer")
	}
	n := int(*i)
	return &n, nil
}

func (r stReader) str(key string) (*string, error) {
	v := r.raw(key)
	if v == nil {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, r.bad(key, "a string")
	}
	return &s, nil
}

func (r stReader) boolean(key string) (*bool, error) {
	v := r.raw(key)
	if v == nil {
		return nil, nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		return nil, r.bad(key, "a boolean")
	}
	return &b, nil
}

func (r stReader) objects(key string) ([]stReader, error) {
	v := r.raw(key)
	if v == nil {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, r.bad(key, "an array of objects")
	}
	out := make([]stReader, len(items))
	for i, it := range items {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(it, &m); err != nil || m == nil {
			return nil, r.bad(fmt.Sprintf("%s[%d]", key, i), "an object")
		}
		out[i] = stReader{m: m, where: fmt.Sprintf("%s%s[%d].", r.where, key, i)}
	}
	return out, nil
}
