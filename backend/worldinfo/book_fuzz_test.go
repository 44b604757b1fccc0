package worldinfo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"hearth/backend/apperr"
)

// FuzzParseBook: any input is either refused with a CodeInvalid error or
// read into a book that encodes, reads back, and encodes to the same
// bytes again.
func FuzzParseBook(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "books", "*.json"))
	for _, path := range files {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		`{"entries":{}}`,
		`{"entries":{"0":{"uid":0,"key":["a"],"content":"b","characterFilter":{"names":["x"]},"extensions":{"a":1}}}}`,
		`{"entries":{"4294967295":{"uid":1},"01":{"uid":2},"-1":{"uid":3}},"entries":{"2":{}}}`,
		`{"entries":{"0":{"delayUntilRecursion":true,"probability":1e400,"order":-0}}}`,
		`{"entries":{"0":{"key":["\ud800"],"content":"\u0000"}}}`,
		`[`, `null`, `{"entries":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBook(data)
		if err != nil {
			if e := apperr.As(err); e == nil || e.Code != CodeInvalid {
				t.Fatalf("error %v is not %s", err, CodeInvalid)
			}
			return
		}
		first, err := Encode(b)
		if err != nil {
			t.Fatalf("Encode of a parsed book: %v", err)
		}
		again, err := ParseBook(first)
		if err != nil {
			t.Fatalf("encoded book does not parse: %v\n%s", err, first)
		}
		second, err := Encode(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("encoding not stable:\n%s\n%s", first, second)
		}
	})
}
