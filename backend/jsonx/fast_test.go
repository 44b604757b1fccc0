package jsonx

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

var fastSeeds = []string{
	`{}`, `{"a":1}`, ` {"a" : [1, {"b":"c"}] , "d":null} `, `{"a":1,"a":2}`, `{"a":1}x`, `{"a":1}{}`,
	`{"k\u00e9y":"v\n\"q\""}`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", "{\"\xff\":1}", `{"a":}`, `{"a"1}`,
	`[]`, `["a", null, "b\\c"]`, `["a",1]`, `[{"a":1},{}]`, `[{"a":1},null]`, `[{"a":1}`,
	`"plain"`, `"esc\t\u0041"`, `"bad`, `"a"b"`, "\"ctl\x01\"", `null`, `1`,
}

// FuzzFastDecode: whenever a fast path takes an input, encoding/json
// takes it too and makes the same value of it.
func FuzzFastDecode(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := []byte(s)
		if t2 := bytes.TrimSpace(raw); len(t2) > 0 && t2[0] == '{' {
			if got, ok := fastObject(t2); ok {
				var want Object
				if err := json.Unmarshal(t2, &want); err != nil {
					t.Fatalf("fastObject took %q; encoding/json: %v", s, err)
				}
				if want == nil {
					want = Object{}
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("fastObject(%q) = %q, encoding/json %q", s, got, want)
				}
			}
		}
		if got, ok := fastString(raw); ok {
			var want string
			if err := json.Unmarshal(raw, &want); err != nil || got != want {
				t.Fatalf("fastString(%q) = %q; encoding/json %q, %v", s, got, want, err)
			}
		}
		if got, ok := fastStrings(raw); ok {
			var want []string
			if err := json.Unmarshal(raw, &want); err != nil || !reflect.DeepEqual(got, append([]string{}, want...)) {
				t.Fatalf("fastStrings(%q) = %q; encoding/json %q, %v", s, got, want, err)
			}
		}
		for _, copied := range []bool{true, false} {
			got, ok := fastObjects(raw, copied)
			if !ok {
				continue
			}
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil || len(items) != len(got) {
				t.Fatalf("fastObjects(%q, %v) = %q; encoding/json %d items, %v", s, copied, got, len(items), err)
			}
			for i, it := range items {
				var want Object
				if err := json.Unmarshal(it, &want); err != nil || !reflect.DeepEqual(got[i], want) {
					t.Fatalf("fastObjects(%q, %v)[%d] = %q; encoding/json %q, %v", s, copied, i, got[i], want, err)
				}
			}
		}
	})
}

// TestFastDecodeTakes: the fast paths do take ordinary input (else they
// would be slow paths in disguise), and refuse what must fall back.
func TestFastDecodeTakes(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`{}`, ` {"a" : [1, {"b":"c"}] , "d":null} `, `{"a":1,"a":2}`, `{"k\u00e9y":"v\n\"q\""}`} {
		if _, ok := fastObject(bytes.TrimSpace([]byte(s))); !ok {
			t.Errorf("fastObject refused %s", s)
		}
	}
	for _, s := range []string{`{"a":1}x`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{"a":}`} {
		if _, ok := fastObject([]byte(s)); ok {
			t.Errorf("fastObject took %s", s)
		}
	}
	if ss, ok := fastStrings([]byte(`["a", null, "b\\c"]`)); !ok || !reflect.DeepEqual(ss, []string{"a", "", `b\c`}) {
		t.Errorf("fastStrings = %q, %v", ss, ok)
	}
	if _, ok := fastStrings([]byte(`["a",1]`)); ok {
		t.Error("fastStrings took a number")
	}
	if s, ok := fastString([]byte(` "esc\t\u0041" `)); !ok || s != "esc\tA" {
		t.Errorf("fastString = %q, %v", s, ok)
	}
	if os, ok := fastObjects([]byte(`[{"a":1},{}]`), true); !ok || len(os) != 2 || string(os[0]["a"]) != "1" {
		t.Errorf("fastObjects = %q, %v", os, ok)
	}
	if _, ok := fastObjects([]byte(`[{"a":1},null]`), false); ok {
		t.Error("fastObjects took a null element")
	}
}
