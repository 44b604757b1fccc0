package characters

import (
	"encoding/json"

	"hearth/backend/jsonx"
)

// deepMerge merges patch into base recursively for objects; any other value
// in patch replaces the base value.
func deepMerge(base, patch json.RawMessage) (json.RawMessage, error) {
	p, err := jsonx.DecodeObject(patch, "extensions")
	if err != nil {
		return nil, err
	}
	b, err := jsonx.DecodeObject(base, "extensions")
	if err != nil {
		b = jsonx.Object{}
	}
	for k, v := range p {
		if old, ok := b[k]; ok && isObject(old) && isObject(v) {
			merged, err := deepMerge(old, v)
			if err != nil {
				return nil, err
			}
			b[k] = merged
			continue
		}
		b[k] = v
	}
	return b.MarshalJSON()
}

func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
	return false
}
