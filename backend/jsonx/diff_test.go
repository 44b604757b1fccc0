package jsonx

import (
	"encoding/json"
	"testing"
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
