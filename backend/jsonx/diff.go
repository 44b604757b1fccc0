package jsonx

import (
	"bytes"
	"encoding/json"

	"github.com/wI2L/jsondiff"
)

// Diff returns the RFC 6902 patch that turns the JSON document a into b.
// Numbers are compared and carried as their JSON text (json.Number), not
// as float64: an id like 9007199254740993 in a message's extra or a floor
// state must reach the journal and the patch exactly as it was written.
func Diff(a, b []byte) (jsondiff.Patch, error) {
	return jsondiff.CompareJSON(a, b, jsondiff.UnmarshalFunc(decodeNumbers))
}

func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
