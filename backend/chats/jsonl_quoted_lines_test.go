package chats

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
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
