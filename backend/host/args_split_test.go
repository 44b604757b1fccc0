package host

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzSplitArgs: whenever the one-pass split takes a call's arguments,
// encoding/json takes them too and splits them into the same bytes.
func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{`[]`, `[1,"a",{"b":[null]}]`, ` [ {"a":1,"a":2} , "x" ] `, `[1]x`, `[1,]`, `[`,
		"[\"\xff\"]", `["\ud800"]`, `{"a":1}`, `[{"a":"b\"c"}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := splitArgs([]byte(s))
		if !ok {
			return
		}
		var want Args
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("splitArgs took %q; encoding/json: %v", s, err)
		}
		if !reflect.DeepEqual(got, append(Args{}, want...)) {
			t.Fatalf("splitArgs(%q) = %q, encoding/json %q", s, got, want)
		}
	})
}

func TestSplitArgsTakesCalls(t *testing.T) {
	t.Parallel()
	args, ok := splitArgs([]byte(` [ {"a":1,"a":2} , "x\u00e9", null ] `))
	if !ok || len(args) != 3 || string(args[0]) != `{"a":1,"a":2}` || string(args[1]) != `"x\u00e9"` || string(args[2]) != "null" {
		t.Fatalf("splitArgs = %q, %v", args, ok)
	}
	for _, s := range []string{`[1]x`, `[1,]`, `{"a":1}`} {
		if _, ok := splitArgs([]byte(s)); ok {
			t.Errorf("splitArgs took %s", s)
		}
	}
}
