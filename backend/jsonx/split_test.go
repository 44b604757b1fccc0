package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSplitEncodedCutShort: a text that ends inside a member or an element
// is not split (ok false), as the gjson-based split it replaced did not
// promise but callers check.
func TestSplitEncodedCutShort(t *testing.T) {
	for _, doc := range []string{`{`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a":"x}`, `{"a":[1,2}`, `{"a":{"b":1}`, `{"a\"}`, `{1:2}`, `{"a" 1}`} {
		if o, ok := SplitEncoded([]byte(doc)); ok {
			t.Errorf("%q split as %v", doc, o)
		}
	}
	for _, doc := range []string{`[`, `[1`, `[1,`, `["x]`, `[{"a":1]`, `[1 2]`, `[,]`} {
		if e, ok := SplitEncodedArray([]byte(doc)); ok {
			t.Errorf("%q split as %q", doc, e)
		}
	}
}

// TestSplitEncodedEscapes: a string's quote ends it only when the
// backslashes before it are even in number.
func TestSplitEncodedEscapes(t *testing.T) {
	doc := `{"a":"x\\","b":"y\\\"}","c":"\\\\"}`
	o, ok := SplitEncoded([]byte(doc))
	if !ok || len(o) != 3 || string(o["a"]) != `"x\\"` || string(o["b"]) != `"y\\\"}"` || string(o["c"]) != `"\\\\"` {
		t.Fatalf("split %q (%v)", o, ok)
	}
}

// FuzzSplitEncoded: on any text the split neither panics nor reads past
// it; on a valid object (array) it gives exactly the members (elements)
// encoding/json finds.
func FuzzSplitEncoded(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":1,"b":"two","c":[1,{"d":null}]}`, `[1,"x\"",{"a":[]}]`, `{"k\u00e9y":"v","a":1,"a":2}`, ` { "a" : [ 1 , 2 ] } `, `{"a":"\\"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := []byte(s)
		o, okObj := SplitEncoded(doc)
		elems, okArr := SplitEncodedArray(doc)
		if !json.Valid(doc) {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(doc, &want); err == nil && want != nil {
			if !okObj || len(o) != len(want) {
				t.Fatalf("%q: split %q (%v), decoded %q", s, o, okObj, want)
			}
			for k, v := range want {
				if !bytes.Equal(o[k], v) {
					t.Fatalf("%q: member %q split as %s, decoded as %s", s, k, o[k], v)
				}
			}
		} else if okObj {
			t.Fatalf("%q is not an object but split as %q", s, o)
		}
		var wantElems []json.RawMessage
		if err := json.Unmarshal(doc, &wantElems); err == nil && wantElems != nil {
			if !okArr || len(elems) != len(wantElems) {
				t.Fatalf("%q: split %q (%v), decoded %q", s, elems, okArr, wantElems)
			}
			for i := range wantElems {
				if !bytes.Equal(elems[i], wantElems[i]) {
					t.Fatalf("%q: element %d split as %s, decoded as %s", s, i, elems[i], wantElems[i])
				}
			}
		} else if okArr {
			t.Fatalf("%q is not an array but split as %q", s, elems)
		}
	})
}
