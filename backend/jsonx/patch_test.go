package jsonx

import (
	"errors"
	"fmt"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

func decodePatch(t *testing.T, s string) jsonpatch.Patch {
	t.Helper()
	p, err := jsonpatch.DecodePatch([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestApplyPatchTestsArraysHoldingNull: test operations on arrays that
// hold null, which panic inside the patch library, pass or fail as they
// should, in the middle of a patch as at its start.
func TestApplyPatchTestsArraysHoldingNull(t *testing.T) {
	doc := []byte(`{"a":[null],"b":{"c":[1,null,{"d":null}]},"s":"x"}`)
	cases := []struct {
		patch, want string
		failed      bool
	}{
		{`[{"op":"test","path":"/a","value":[null]}]`, `{"a":[null],"b":{"c":[1,null,{"d":null}]},"s":"x"}`, false},
		{`[{"op":"test","path":"/a","value":["x"]}]`, ``, true},
		{`[{"op":"test","path":"/b","value":{"c":[1,null,{"d":null}]}}]`, `{"a":[null],"b":{"c":[1,null,{"d":null}]},"s":"x"}`, false},
		{`[{"op":"test","path":"/b/c","value":[1,null,{"d":1}]}]`, ``, true},
		{`[{"op":"replace","path":"/s","value":"y"},{"op":"test","path":"/a","value":[null]},{"op":"add","path":"/a/-","value":2}]`,
			`{"a":[null,2],"b":{"c":[1,null,{"d":null}]},"s":"y"}`, false},
		{`[{"op":"add","path":"/a/-","value":null},{"op":"test","path":"/a","value":[null,null]},{"op":"test","path":"/s","value":"x"}]`,
			`{"a":[null,null],"b":{"c":[1,null,{"d":null}]},"s":"x"}`, false},
		{`[{"op":"add","path":"/a/-","value":null},{"op":"test","path":"/a","value":[null]}]`, ``, true},
		{`[{"op":"test","path":"","value":{"a":[null],"b":{"c":[1,null,{"d":null}]},"s":"x"}}]`, `{"a":[null],"b":{"c":[1,null,{"d":null}]},"s":"x"}`, false},
	}
	for _, c := range cases {
		out, err := ApplyPatch(doc, decodePatch(t, c.patch), nil)
		if c.failed {
			if !errors.Is(err, jsonpatch.ErrTestFailed) {
				t.Errorf("%s: %v, want a failed test", c.patch, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.patch, err)
			continue
		}
		if !Equal(out, []byte(c.want)) {
			t.Errorf("%s: %s, want %s", c.patch, out, c.want)
		}
	}
}

// TestTestOpAgreesWithLibrary: where the library does not panic, a test
// operation judged here passes or fails exactly as the library's does.
func TestTestOpAgreesWithLibrary(t *testing.T) {
	doc := []byte(`{"s":"x\u0041","n":1.0,"m":9007199254740993,"o":{"k":[1,"2",{"z":true}],"nil":null},"a":[],"e":{},"t~/":0}`)
	paths := []string{"", "/s", "/n", "/m", "/o", "/o/k", "/o/k/0", "/o/k/2/z", "/o/k/3", "/o/k/01", "/o/nil", "/o/none", "/none/x", "/a", "/a/0", "/e", "/t~0~1", "/s/x"}
	values := []string{`"xA"`, `"x\u0041"`, `1`, `1.0`, `9007199254740993`, `9007199254740992`, `null`, `true`, `[]`, `{}`, `[1,"2",{"z":true}]`,
		`{"k":[1,"2",{"z":true}],"nil":null}`, `{"nil":null,"k":[1,"2",{"z":true}]}`, `{"k":[1,"2",{"z":false}],"nil":null}`, `0`}
	for _, p := range paths {
		for _, v := range values {
			patch := decodePatch(t, fmt.Sprintf(`[{"op":"test","path":%q,"value":%s}]`, p, v))
			_, want := patch.Apply(doc)
			got := testOp(doc, patch[0], jsonpatch.NewApplyOptions())
			if (want == nil) != (got == nil) || (want != nil && errors.Is(want, jsonpatch.ErrTestFailed) != errors.Is(got, jsonpatch.ErrTestFailed)) {
				t.Errorf("test %s %s: here %v, library %v", p, v, got, want)
			}
		}
	}
}

// TestApplyEachKeepsCopyBudget: applied one operation at a time, copies
// still count against one budget for the whole patch.
func TestApplyEachKeepsCopyBudget(t *testing.T) {
	opts := jsonpatch.NewApplyOptions()
	opts.AccumulatedCopySizeLimit = 100
	doc := []byte(`{"big":"` + fmt.Sprintf("%060d", 0) + `","a":[null]}`)
	patch := decodePatch(t, `[{"op":"copy","from":"/big","path":"/c1"},{"op":"test","path":"/a","value":[null]},{"op":"copy","from":"/big","path":"/c2"}]`)
	_, err := ApplyPatch(doc, patch, opts)
	var limit *jsonpatch.AccumulatedCopySizeError
	if !errors.As(err, &limit) {
		t.Errorf("two copies of 62 bytes under a 100-byte budget: %v, want the copy limit", err)
	}
	if _, err := ApplyPatch(doc, patch[:2], opts); err != nil {
		t.Errorf("one copy: %v", err)
	}
}
