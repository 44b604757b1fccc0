package jsonx

import (
	"encoding/json"
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// nested returns n levels of {"k":…} around a scalar.
func nested(n int) string {
	return strings.Repeat(`{"k":`, n) + "1" + strings.Repeat("}", n)
}

func TestDepth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
	}{
		{`1`, 0}, {`"x"`, 0}, {`null`, 0}, {`{}`, 1}, {`[]`, 1}, {`[[],{}]`, 2},
		{`{"a":{"b":[1,{"c":[]}]}}`, 5},
		{`"{[{[{["`, 0},
		{`{"a\"{[":"]}\\"}`, 1},
		{`["\\\\","[[["]`, 1},
		{`{"a":"\u005b"}`, 1},
		{nested(64), 64}, {nested(9000), 9000},
	} {
		if got := Depth([]byte(tc.in)); got != tc.want {
			t.Errorf("Depth(%.40s) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestCheckDepth(t *testing.T) {
	t.Parallel()
	if err := CheckDepth([]byte(nested(MaxDepth)), "extensions"); err != nil {
		t.Fatalf("CheckDepth at the limit: %v", err)
	}
	if err := LimitDepth(MaxDepth+5, MaxDepth+5, "legacy"); err != nil {
		t.Fatalf("LimitDepth of a value no deeper than before: %v", err)
	}
	if err := LimitDepth(MaxDepth+5, MaxDepth+4, "legacy"); apperr.CodeOf(err) != apperr.CodeInvalidArgument {
		t.Fatalf("LimitDepth of a value made deeper past the limit = %v", err)
	}
	err := CheckDepth([]byte(nested(MaxDepth+1)), "extensions")
	e := apperr.As(err)
	if e == nil || e.Code != apperr.CodeInvalidArgument || !strings.Contains(e.Message, "extensions") || e.Details["maxDepth"] != MaxDepth {
		t.Fatalf("CheckDepth past the limit = %#v, want invalid_argument naming extensions with maxDepth", err)
	}
}

// referenceDepth decodes raw and walks it: the definition Depth must match
// on every valid document.
func referenceDepth(v any) int {
	deepest := 0
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			deepest = max(deepest, referenceDepth(c))
		}
		return deepest + 1
	case []any:
		for _, c := range x {
			deepest = max(deepest, referenceDepth(c))
		}
		return deepest + 1
	}
	return 0
}

func FuzzDepth(f *testing.F) {
	for _, s := range []string{`{}`, `[1,[2,[3]]]`, `{"a":"]}\"[{","b":[{}]}`, `"\\"`, nested(70), `[{"\u005b":[]}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Depth([]byte(s)) // must end on any input
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		if want := referenceDepth(v); got != want {
			t.Fatalf("Depth(%q) = %d, decoded depth %d", s, got, want)
		}
	})
}

// BenchmarkDepth scans a bulk write's worth of arguments (500 messages of
// about 2 KB), the extra pass every call now makes before decoding.
func BenchmarkDepth(b *testing.B) {
	msg := `{"name":"Seraphina","is_user":false,"mes":"` + strings.Repeat(`She said \"hello\" {[`, 90) +
		`","extra":{"model":"m","reasoning":"r","nested":{"a":[1,2,{"b":"c"}]}},"swipe_info":[{"extra":{}}]}`
	raw := []byte(`["chat",[` + strings.TrimSuffix(strings.Repeat(msg+",", 500), ",") + `]]`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if Depth(raw) != 7 {
			b.Fatal("unexpected depth")
		}
	}
}
