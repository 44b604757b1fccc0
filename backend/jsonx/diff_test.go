package jsonx

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wI2L/jsondiff"
)

// TestDiffKeepsNumbersExact: integers past 2^53 and long decimals come out
// of a diff digit for digit, and numbers equal as text are not changes.
func TestDiffKeepsNumbersExact(t *testing.T) {
	a := []byte(`{"id":9007199254740992,"x":1.0,"keep":12345678901234567890}`)
	b := []byte(`{"id":9007199254740993,"x":1.0,"keep":12345678901234567890,"pi":3.14159265358979323846}`)
	patch, err := Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(patch)
	want := `[{"value":9007199254740993,"op":"replace","path":"/id"},{"value":3.14159265358979323846,"op":"add","path":"/pi"}]`
	if string(got) != want {
		t.Fatalf("patch\n got %s\nwant %s", got, want)
	}
	same, err := Diff(a, a)
	if err != nil || len(same) != 0 {
		t.Fatalf("diff of a document with itself: %v, %v", same, err)
	}
}

// TestDiffBothMatchesWholeComparison: skipping members whose text is the
// same on both sides gives the patch a comparison of the whole documents
// gives, both ways, for objects and for everything else.
func TestDiffBothMatchesWholeComparison(t *testing.T) {
	pairs := [][2]string{
		{`{"mes":"a","swipes":["a","b"],"extra":{"k":1}}`, `{"mes":"b","swipes":["a","b"],"extra":{"k":1}}`},
		{`{"mes":"a","extra":{"k":1,"j":[1,2]}}`, `{"mes":"a","extra":{"j":[1,2,3],"k":1}}`},
		{`{"a":{"x":1,"y":2}}`, `{"a":{"y":2,"x":1}}`},
		{`{"a":1.0,"b":[1]}`, `{"a":1,"b":[1]}`},
		{`{"gone":true,"kept":"k"}`, `{"kept":"k","new":null}`},
		{`{"a":1}`, `[1,2]`},
		{`[1,{"a":2},3]`, `[1,{"a":3}]`},
		{`"text"`, `"other"`},
		{`{"mes":"same"}`, ` {"mes":"same"}`},
		{`{"a":1,"a":2}`, `{"a":1}`},
		{`{"k\u00e9y": 1, "b" : [ 2 ]}`, `{"kéy":2,"b":[2]}`},
		{`{"x":"<&>"}`, `{"x":"\u003c&\u003e"}`},
		{`{"a\udc00\ud800":1,"b\ud800":[1]}`, `{"a\udc00\ud800":2,"b\ud800":[1]}`},
	}
	whole := func(a, b string) string {
		p, err := jsondiff.CompareJSON([]byte(a), []byte(b), jsondiff.UnmarshalFunc(decodeNumbers))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(p)
		return string(out)
	}
	for _, pair := range pairs {
		a, b := pair[0], pair[1]
		fwd, back, err := DiffBoth([]byte(a), []byte(b))
		if err != nil {
			t.Fatalf("%s → %s: %v", a, b, err)
		}
		gotFwd, _ := json.Marshal(fwd)
		gotBack, _ := json.Marshal(back)
		if want := whole(a, b); string(gotFwd) != want {
			t.Errorf("%s → %s\n got %s\nwant %s", a, b, gotFwd, want)
		}
		if want := whole(b, a); string(gotBack) != want {
			t.Errorf("%s → %s\n got %s\nwant %s", b, a, gotBack, want)
		}
		one, err := Diff([]byte(a), []byte(b))
		if err != nil || !reflect.DeepEqual(one, fwd) {
			t.Errorf("Diff(%s, %s) = %v, %v; DiffBoth's forward patch is %v", a, b, one, err, fwd)
		}
	}
	if _, _, err := DiffBoth([]byte(`{"a":`), []byte(`{}`)); err == nil {
		t.Error("a broken document diffed without an error")
	}
}
