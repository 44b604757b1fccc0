package worldinfo

import (
	"math"
	"testing"
)

// The expected values below were produced by Node.js (JSON.stringify and
// the cyrb53 hash SillyTavern's getStringHash is).

func TestStringHash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
	}{
		{"", 3338908027751811},
		{"a", 7929297801672961},
		{"hello world", 3259054761512980},
		{"日本語 😀 ü", 5304167309486148},
		{`{"uid":0,"world":"W","key":["a"]}`, 637968960444784},
	}
	for _, tt := range tests {
		if got := stringHash(tt.in); got != tt.want {
			t.Errorf("stringHash(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestAppendJSNumber(t *testing.T) {
	t.Parallel()
	tenth, fifth := 0.1, 0.2
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {1e-6, "0.000001"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {1.5, "1.5"}, {100, "100"},
		{1e21, "1e+21"}, {1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {123456789012, "123456789012"},
		{tenth + fifth, "0.30000000000000004"}, {-2.5e-8, "-2.5e-8"}, {1e300, "1e+300"}, {5e-324, "5e-324"},
		{math.NaN(), "null"}, {math.Inf(1), "null"},
	}
	for _, tt := range tests {
		if got := string(appendJSNumber(nil, tt.in)); got != tt.want {
			t.Errorf("appendJSNumber(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestAppendJSString(t *testing.T) {
	t.Parallel()
	got := string(appendJSString(nil, "a\u0001\b\f\n\r\t\"\\<>&\u2028é"))
	want := `"a\u0001\b\f\n\r\t\"\\<>&` + "\u2028é\""
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestJSCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"b": 1.50, "a": "\u00e9\/", "10": 0, "2": 1e2, "a": "again"}`, `{"2":100,"10":0,"b":1.5,"a":"again"}`},
		{`[1, {"x": null}, true, "<"]`, `[1,{"x":null},true,"<"]`},
	}
	for _, tt := range tests {
		got, err := jsCanonical([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("jsCanonical(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	if _, err := jsCanonical([]byte(`1 2`)); err == nil {
		t.Error("trailing data accepted")
	}
}

// TestEntryHash checks the hash of an entry against the one SillyTavern's
// scan computes for it: JSON.stringify({uid, world, ...rest, decorators})
// with the decorators cut from the content.
func TestEntryHash(t *testing.T) {
	t.Parallel()
	b := mustParse(t, []byte(`{"entries":{"3":{"uid":3,"key":["dragon"],"keysecondary":[],"comment":"Dragons","content":"@@activate\nDragons breathe fire.","constant":false,"order":100,"position":0,"sticky":2,"extra":{"b":1,"a":[1.50,"x"]}}}}`))
	se := newScanEntry("My World", b.Entries[0])
	if got, want := se.hash(), int64(229813667249670); got != want {
		t.Errorf("hash = %d, want %d (SillyTavern's)", got, want)
	}
}
