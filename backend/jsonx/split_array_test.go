package jsonx

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzSplitArray: whenever SplitArray takes a document, encoding/json
// takes it too, as an array of the same elements, nested at most the
// limit; whatever encoding/json takes as an array nested at most the
// limit, SplitArray takes too (so the fallback is for errors only).
func FuzzSplitArray(f *testing.F) {
	for _, s := range []string{`[]`, ` [ ] `, `[1,"a",{"b":[null]}]`, ` [ {"a":1,"a":2} , "x" ] `, `[1]x`, `[1,]`, `[`, `[{}]`, `[[],{}]`,
		"[\"\xff\"]", `["\ud800"]`, `{"a":1}`, `[{"a":"b\"c"}]`, `[-0.5e+3,0,1E9,true,false,null]`, `[01]`, `[1.]`, `[-]`,
		`["\u00e9\/\b\f\n\r\t"]`, "[\"\x01\"]", `["\x"]`, `[{"a" : [ 1 , { "b" : "c" } ] }]`, `[[[[[[]]]]]]`, `[{"a"}]`, `[{,}]`,
		"[\"abcdefghijklmnop\x01qrstuvwx\"]", `["abcdefghijk\"lmnopqrstuvwxyz"]`, `["abcdefghijklmnopqrstuvwxyz\\"]`, "[\"abcdéfghijklmnopqrstuvwxyz\xff\x7f\"]", `["abcdefgh"]`, `["abcdefghi"]`} {
		f.Add(s, 64)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit = max(1, limit%80)
		elems, ok := SplitArray([]byte(s), limit)
		var want []json.RawMessage
		err := json.Unmarshal([]byte(s), &want)
		if !ok {
			if err == nil && want != nil && Depth([]byte(s)) <= limit && strings.TrimLeft(s, " \t\r\n") != "" {
				t.Fatalf("SplitArray refused %q (limit %d); encoding/json takes it", s, limit)
			}
			return
		}
		if err != nil {
			t.Fatalf("SplitArray took %q; encoding/json: %v", s, err)
		}
		if !reflect.DeepEqual(elems, append([]json.RawMessage{}, want...)) {
			t.Fatalf("SplitArray(%q) = %q, encoding/json %q", s, elems, want)
		}
		if d := Depth([]byte(s)); d > limit {
			t.Fatalf("SplitArray took %q, %d levels deep, limit %d", s, d, limit)
		}
	})
}
