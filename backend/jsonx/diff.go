package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wI2L/jsondiff"
)

// Diff returns the RFC 6902 patch that turns the JSON document a into b.
// Numbers are compared and carried as their JSON text (json.Number), not
// as float64: an id like 9007199254740993 in a message's extra or a floor
// state must reach the journal and the patch exactly as it was written.
func Diff(a, b []byte) (jsondiff.Patch, error) {
	x, y, err := decodePair(a, b)
	if err != nil {
		return nil, err
	}
	return compare(x, y)
}

// DiffBoth returns the patches a → b and b → a, decoding each document
// once: the journal keeps both directions of every write.
func DiffBoth(a, b []byte) (fwd, back jsondiff.Patch, err error) {
	x, y, err := decodePair(a, b)
	if err != nil {
		return nil, nil, err
	}
	if fwd, err = compare(x, y); err != nil {
		return nil, nil, err
	}
	if back, err = compare(y, x); err != nil {
		return nil, nil, err
	}
	return fwd, back, nil
}

func compare(x, y any) (jsondiff.Patch, error) {
	p, err := jsondiff.CompareWithoutMarshal(x, y)
	if err != nil {
		return nil, fmt.Errorf("jsonx: diff: %w", err)
	}
	return p, nil
}

// unchanged stands for a member whose JSON text is the same on both sides:
// the two are equal, so neither is decoded and the comparison passes over
// them. It is never part of a patch (only differences are).
var unchanged = json.Number("0")

// decodePair decodes a and b for the comparison. Two objects are split into
// members first, and only members whose text differs are decoded: an edit
// of one field of a message with long swipes then decodes that field, not
// every swipe twice. The patch is the same as from decoding both whole.
func decodePair(a, b []byte) (any, any, error) {
	ma, okA := members(a)
	mb, okB := members(b)
	if !okA || !okB {
		var x, y any
		if err := decodeNumbers(a, &x); err != nil {
			return nil, nil, fmt.Errorf("jsonx: diff: %w", err)
		}
		if err := decodeNumbers(b, &y); err != nil {
			return nil, nil, fmt.Errorf("jsonx: diff: %w", err)
		}
		return x, y, nil
	}
	x, y := make(map[string]any, len(ma)), make(map[string]any, len(mb))
	for k, v := range ma {
		if w, ok := mb[k]; ok && bytes.Equal(v, w) {
			x[k], y[k] = unchanged, unchanged
			continue
		}
		var val any
		if err := decodeNumbers(v, &val); err != nil {
			return nil, nil, fmt.Errorf("jsonx: diff: %w", err)
		}
		x[k] = val
	}
	for k, w := range mb {
		if _, done := y[k]; done {
			continue
		}
		var val any
		if err := decodeNumbers(w, &val); err != nil {
			return nil, nil, fmt.Errorf("jsonx: diff: %w", err)
		}
		y[k] = val
	}
	return x, y, nil
}

// members splits a valid JSON object into its members (see SplitEncoded).
// ok is false for anything else, which is then decoded whole.
func members(doc []byte) (Object, bool) {
	t := bytes.TrimSpace(doc)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil, false
	}
	return SplitEncoded(t)
}

func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
