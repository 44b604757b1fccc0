package jsonx

import (
	"encoding/json"
	"testing"

	"hearth/backend/apperr"
)

func TestInt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"42", 42, true}, {"-3", -3, true}, {"2.0", 2, true}, {"1e3", 1000, true},
		{"1.5", 0, false}, {`"1"`, 0, false}, {"null", 0, false}, {"true", 0, false}, {"[]", 0, false},
		{"9007199254740992", 0, false}, {"1e300", 0, false}, {"", 0, false},
	} {
		got, err := Int(json.RawMessage(tc.in), "index")
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("Int(%s) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if !tc.ok && apperr.CodeOf(err) != apperr.CodeInvalidArgument {
			t.Errorf("Int(%s) = %d, %v; want invalid_argument", tc.in, got, err)
		}
	}
}

func TestObjectMarshalIsSortedAndRaw(t *testing.T) {
	t.Parallel()
	o, err := DecodeObject(json.RawMessage(`{"b": 1.50, "a": {"z": 1, "y": 2}}`), "x")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := o.MarshalJSON()
	if string(got) != `{"a":{"z": 1, "y": 2},"b":1.50}` {
		t.Errorf("got %s", got)
	}
	if _, err := DecodeObject(json.RawMessage(`[1]`), "x"); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
		t.Errorf("array accepted as object: %v", err)
	}
}

func TestRefuseNulls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{}`, true}, {`{"depth":1,"role":0}`, true}, {`{"other":null}`, true}, {`[null]`, true},
		{`{"depth":null}`, false}, {`{"depth":1,"role": null }`, false},
	} {
		err := RefuseNulls(json.RawMessage(tc.in), "prompt", "depth", "role")
		if tc.ok != (err == nil) || (err != nil && apperr.CodeOf(err) != apperr.CodeInvalidArgument) {
			t.Errorf("RefuseNulls(%s) = %v", tc.in, err)
		}
	}
}
