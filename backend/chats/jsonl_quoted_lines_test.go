package chats

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestQuotedLines: lines end only at an escaped line feed, never at an
// escaped backslash followed by n, or a \u escape of another character.
func TestQuotedLines(t *testing.T) {
	t.Parallel()
	text := "{\"mes\":\"one\\\\nstill one\\u000b\"}\n\r\n{\"mes\":\"two \\u000a\"}\r\n\n"
	quoted, err := json.Marshal(text)
	if err != nil {
		t.Fatal(err)
	}
	q := strings.Replace(string(quoted), `}\n`, `}\u000A`, 1)
	var got []string
	var nums []int
	for n, l := range quotedLines(q) {
		nums = append(nums, n)
		got = append(got, string(unquoteLine(l)))
	}
	var want []string
	for _, l := range strings.Split(text, "\n") {
		want = append(want, strings.TrimSuffix(l, "\r"))
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(nums, []int{1, 2, 3, 4, 5}) {
		t.Fatalf("quotedLines(%s) = %q %v, want %q", q, got, nums, want)
	}
}

// FuzzUnquoteLine: on any valid JSON string literal (bytes that are not
// UTF-8 allowed, as the router allows them), unquoteLine gives what
// encoding/json gives for the literal, a trailing CR dropped: jsontext's
// unquote where it takes the text, encoding/json's replacements where it
// does not.
func FuzzUnquoteLine(f *testing.F) {
	for _, s := range []string{``, `plain`, `{\"mes\":\"a\\\"b\"}\r`, `\u00e9\u2028\/\b\f\t\u0000`, `\ud83d\ude00`, `lone \ud800 x`, `\udc00\ud800`, "\xff\xfe bad", `\u000A\u000a`, "日本 \\\"\\\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		quoted := []byte(`"` + s + `"`)
		dec := jsontext.NewDecoder(bytes.NewReader(quoted), jsontext.AllowInvalidUTF8(true))
		if v, err := dec.ReadValue(); err != nil || len(v) != len(quoted) {
			return
		}
		want, err := jsontext.AppendUnquote(nil, quoted)
		if err != nil {
			var u string
			if err := json.Unmarshal(quoted, &u); err != nil {
				t.Fatalf("encoding/json refuses %q: %v", quoted, err)
			}
			want = []byte(u)
		}
		want = bytes.TrimSuffix(want, []byte("\r"))
		if got := unquoteLine(s); !bytes.Equal(got, want) {
			t.Fatalf("unquoteLine(%q) = %q, want %q", s, got, want)
		}
	})
}
