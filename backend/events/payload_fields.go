package events

import (
	"reflect"
	"strings"
)

// Field is one key of a payload as encoding/json writes it.
type Field struct {
	// Key is the JSON key.
	Key string
	// Type is the Go type of the value.
	Type reflect.Type
	// Optional is set for omitempty: the key is left out when the value
	// is empty.
	Optional bool
	// TS is the field's `ts` tag: the TypeScript type clients see, for a
	// value the Go type does not describe (a domain package's type held
	// in an any, a string with a fixed set of values).
	TS string
}

// Fields lists the JSON keys of struct type t in the order encoding/json
// writes them: embedded structs without a json name are flattened, "-"
// and unexported fields skipped. The generator of the TypeScript types
// (backend/tools/eventgen) reads payloads through it; the registry test
// holds that no two fields claim one key (encoding/json would silently
// drop both).
func Fields(t reflect.Type) []Field {
	var out []Field
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, Fields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if !hasTag || name == "" {
			name = f.Name
		}
		out = append(out, Field{
			Key:      name,
			Type:     f.Type,
			Optional: hasOption(opts, "omitempty"),
			TS:       f.Tag.Get("ts"),
		})
	}
	return out
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}
