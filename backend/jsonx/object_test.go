package jsonx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// TestSplitEncodedMatchesDecode: on valid objects, SplitEncoded gives the
// members DecodeObject gives (repeated keys: the last), and refuses
// anything that is not an object.
func TestSplitEncodedMatchesDecode(t *testing.T) {
	docs := []string{
		`{}`,
		` {"a":1,"b":"two","c":[1,{"d":null}],"e":{"f":true}} `,
		`{"k\u00e9y":"v\"q","s":"\u003c&\u003e","n":-1.5e3}`,
		`{"a" : 1 , "a" : [ 2 ]}`,
		`{"mes":"*text*","swipes":["x","y"],"swipe_info":[{},{}],"extra":{}}`,
		`{"a\ud800b":1,"a\udc00\ud800":2,"a\ud83d\ude00":3,"\u0000":4}`,
		"{\"a\xffb\":1,\"\xe6\x97\xa5\":2}",
	}
	for _, doc := range docs {
		want, err := DecodeObject([]byte(doc), "doc")
		if err != nil {
			t.Fatal(err)
		}
		got, ok := SplitEncoded([]byte(doc))
		if !ok || len(got) != len(want) {
			t.Fatalf("%s: split %v (%v), decoded %v", doc, got, ok, want)
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
				t.Errorf("%s: member %q split as %s, decoded as %s", doc, k, got[k], v)
			}
		}
	}
	for _, doc := range []string{``, `[1]`, `"{}"`, `null`} {
		if o, ok := SplitEncoded([]byte(doc)); ok {
			t.Errorf("%q split as an object: %v", doc, o)
		}
	}
}

// TestSplitEncodedArrayMatchesDecode: the elements of an array, split, are
// the raw elements encoding/json finds.
func TestSplitEncodedArrayMatchesDecode(t *testing.T) {
	for _, doc := range []string{`[]`, ` [ 1 , "two" ,[3,[]], {"a":[{}]} ,null] `, `[{"value":"a\"]","op":"add"},{"op":"remove"}]`} {
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		got, ok := SplitEncodedArray([]byte(doc))
		if !ok || len(got) != len(want) {
			t.Fatalf("%s: split %q (%v), decoded %q", doc, got, ok, want)
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: element %d split as %s, decoded as %s", doc, i, got[i], want[i])
			}
		}
	}
	for _, doc := range []string{``, `{}`, `"[]"`, `null`} {
		if e, ok := SplitEncodedArray([]byte(doc)); ok {
			t.Errorf("%q split as an array: %q", doc, e)
		}
	}
}

// TestStrictStrings: a caller's null element is refused, naming its index;
// Strings stays lenient for stored data.
func TestStrictStrings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`[]`, true}, {`["a",""]`, true},
		{`null`, false}, {`["a",null]`, false}, {`[null]`, false}, {`["a",1]`, false}, {`{}`, false},
	} {
		_, err := StrictStrings(json.RawMessage(tc.in), "swipes")
		if tc.ok != (err == nil) || (err != nil && apperr.CodeOf(err) != apperr.CodeInvalidArgument) {
			t.Errorf("StrictStrings(%s) = %v", tc.in, err)
		}
	}
	if _, err := StrictStrings(json.RawMessage(`["a",null]`), "swipes"); err == nil || !strings.Contains(err.Error(), "swipes[1]") {
		t.Errorf("error %v does not name swipes[1]", err)
	}
	if ss, _ := Strings(json.RawMessage(`["a",null]`), "stored"); len(ss) != 2 {
		t.Errorf("Strings stays lenient for stored data, got %v", ss)
	}
}

// FuzzObjectMarshal: MarshalJSON writes the bytes encoding/json writes
// for the same map (sorted names, quoted as it quotes them), plain ASCII
// names taking writeName's short way and every other name its long one.
func FuzzObjectMarshal(f *testing.F) {
	for _, name := range []string{"a", "send_date", "", "<tag>", "a&b", "q\"uote", `back\slash`, "é", "\u2028", "\x01", "\x7f", "\xff", "日本"} {
		f.Add(name, "b")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		o := Object{a: json.RawMessage(`1`), b: json.RawMessage(`{"x":[true,null]}`)}
		got, _ := o.MarshalJSON()
		want, err := json.Marshal(map[string]json.RawMessage(o))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("names %q, %q: MarshalJSON %s, encoding/json %s", a, b, got, want)
		}
	})
}
