package chats_test

import (
	"fmt"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/chats"
	"hearth/backend/jsonx"
)

// nestedExtra is a message line whose extra nests depth levels.
func nestedExtra(depth int) string {
	return `{"mes":"deep","extra":` + strings.Repeat(`{"d":`, depth-1) + `{}` + strings.Repeat(`}`, depth-1) + `}`
}

// withLine returns the fixture's lines with line n (1-based) replaced.
func withLine(fixture string, n int, line string) string {
	lines := strings.Split(strings.TrimSuffix(fixture, "\n"), "\n")
	lines[n-1] = line
	return strings.Join(lines, "\n")
}

// TestJsonlMalformed feeds files with one bad line (or a bad call) to
// chat.importJsonl: each fails with the expected code, names its line in
// the message and details.line, stores nothing and emits no event.
func TestJsonlMalformed(t *testing.T) {
	t.Parallel()
	r := openRig(t, t.TempDir())
	fixture := readFixture(t)
	r.mustImport("Taken", fixture)
	bad := []struct {
		name, text string
		line       int // 0: the error is about no line
		code       string
	}{
		{"bad JSON on line 7", withLine(fixture, 7, `{"name":"Seraphina","mes":"cut off`), 7, apperr.CodeInvalidArgument},
		{"an array line", withLine(fixture, 3, `["not","a","message"]`), 3, apperr.CodeInvalidArgument},
		{"a string line", withLine(fixture, 4, `"just text"`), 4, apperr.CodeInvalidArgument},
		{"a null line", withLine(fixture, 5, `null`), 5, apperr.CodeInvalidArgument},
		{"trailing garbage", withLine(fixture, 6, `{"mes":"a"} {"mes":"b"}`), 6, apperr.CodeInvalidArgument},
		{"swipe_id out of range", withLine(fixture, 4, `{"mes":"a","swipes":["a","b"],"swipe_id":5}`), 4, apperr.CodeInvalidArgument},
		{"negative swipe_id", withLine(fixture, 4, `{"mes":"a","swipes":["a","b"],"swipe_id":-1}`), 4, apperr.CodeInvalidArgument},
		{"fractional swipe_id", withLine(fixture, 4, `{"mes":"a","swipes":["a","b"],"swipe_id":0.5}`), 4, apperr.CodeInvalidArgument},
		{"empty swipes", withLine(fixture, 2, `{"mes":"a","swipes":[]}`), 2, apperr.CodeInvalidArgument},
		{"mes not a string", withLine(fixture, 3, `{"mes":5}`), 3, apperr.CodeInvalidArgument},
		{"is_user not a boolean", withLine(fixture, 3, `{"mes":"a","is_user":"yes"}`), 3, apperr.CodeInvalidArgument},
		{"extra not an object", withLine(fixture, 3, `{"mes":"a","extra":[1]}`), 3, apperr.CodeInvalidArgument},
		{"a swipe_info entry not an object", withLine(fixture, 6, `{"mes":"a","swipes":["a","b"],"swipe_info":[1]}`), 6, apperr.CodeInvalidArgument},
		{"swipe_info not an array", withLine(fixture, 6, `{"mes":"a","swipe_info":{"0":{}}}`), 6, apperr.CodeInvalidArgument},
		{"extra one level past the limit", withLine(fixture, 5, nestedExtra(jsonx.MaxDepth)), 5, apperr.CodeInvalidArgument},
		{"a line nested 9,000 levels", withLine(fixture, 8, nestedExtra(9000)), 8, apperr.CodeInvalidArgument},
		{"chat_metadata not an object", withLine(fixture, 1, `{"user_name":"Wren","chat_metadata":[1]}`), 1, apperr.CodeInvalidArgument},
		{"chat_metadata past the limit", withLine(fixture, 1, `{"chat_metadata":`+strings.Repeat(`{"d":`, jsonx.MaxDepth+1)+`1`+strings.Repeat(`}`, jsonx.MaxDepth+1)+`}`), 1, apperr.CodeInvalidArgument},
		{"bad line after blank lines and CRLF", "\r\n" + strings.ReplaceAll(withLine(fixture, 3, `{oops}`), "\n", "\r\n\r\n"), 6, apperr.CodeInvalidArgument},
		{"empty file", "", 0, apperr.CodeInvalidArgument},
		{"blank file", "\uFEFF\r\n  \n\t\n", 0, apperr.CodeInvalidArgument},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			r := r.with(t)
			before := r.chatCount()
			rec := r.record()
			_, err := r.importJsonl(uniqueName(tc.name), tc.text)
			e := apperr.As(err)
			if e == nil || e.Code != tc.code {
				t.Fatalf("import = %v, want %s", err, tc.code)
			}
			if tc.line > 0 {
				if got := fmt.Sprint(e.Details["line"]); got != fmt.Sprint(tc.line) {
					t.Errorf("details.line = %v, want %d (%s)", e.Details["line"], tc.line, e.Message)
				}
				if !strings.Contains(e.Message, fmt.Sprintf("line %d", tc.line)) {
					t.Errorf("message %q does not name line %d", e.Message, tc.line)
				}
			}
			if n := r.chatCount(); n != before {
				t.Errorf("a failed import left %d chats, want %d", n, before)
			}
			if evs := rec.types(); len(evs) != 0 {
				t.Errorf("a failed import emitted %v", evs)
			}
		})
	}

	calls := []struct {
		name  string
		owner map[string]any
		file  map[string]any
		code  string
	}{
		{"a taken name", map[string]any{"avatar": r.avatar}, map[string]any{"fileName": "Taken", "text": fixture}, apperr.CodeChatNameTaken},
		{"a taken name with .jsonl", map[string]any{"avatar": r.avatar}, map[string]any{"fileName": " Taken.jsonl", "text": fixture}, apperr.CodeChatNameTaken},
		{"a name with a slash", map[string]any{"avatar": r.avatar}, map[string]any{"fileName": "a/b", "text": fixture}, apperr.CodeInvalidArgument},
		{"no text", map[string]any{"avatar": r.avatar}, map[string]any{"fileName": "x"}, apperr.CodeInvalidArgument},
		{"text not a string", map[string]any{"avatar": r.avatar}, map[string]any{"fileName": "x", "text": []string{"{}"}}, apperr.CodeInvalidArgument},
		{"an unknown character", map[string]any{"avatar": "nobody.png"}, map[string]any{"fileName": "x", "text": fixture}, apperr.CodeCharacterNotFound},
		{"a group", map[string]any{"groupId": "g1"}, map[string]any{"fileName": "x", "text": fixture}, "group.not_found"},
		{"no owner", map[string]any{}, map[string]any{"fileName": "x", "text": fixture}, apperr.CodeInvalidArgument},
		{"too large", map[string]any{"avatar": r.avatar}, map[string]any{"fileName": "x", "text": fixture + strings.Repeat(" ", chats.MaxJsonlBytes)}, apperr.CodeInvalidArgument},
	}
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			r := r.with(t)
			before := r.chatCount()
			rec := r.record()
			if _, err := r.try("chat.importJsonl", tc.owner, tc.file); apperr.CodeOf(err) != tc.code {
				t.Fatalf("import = %v, want %s", err, tc.code)
			}
			if n := r.chatCount(); n != before {
				t.Errorf("a failed import left %d chats, want %d", n, before)
			}
			if evs := rec.types(); len(evs) != 0 {
				t.Errorf("a failed import emitted %v", evs)
			}
		})
	}
}

// TestJsonlInvalidUTF8 imports text that is not UTF-8 through the service
// (a transport's JSON string cannot carry it): refused naming the line.
func TestJsonlInvalidUTF8(t *testing.T) {
	t.Parallel()
	r := openRig(t, t.TempDir())
	text := withLine(readFixture(t), 2, "{\"mes\":\"\xff\xfe\"}")
	_, err := r.app.Chats.ImportJsonl(t.Context(), chats.Owner{Avatar: r.avatar}, chats.JsonlImport{FileName: "utf8", Text: &text})
	if e := apperr.As(err); e == nil || e.Code != apperr.CodeInvalidArgument || fmt.Sprint(e.Details["line"]) != "2" {
		t.Fatalf("import = %v, want validation.invalid_argument at line 2", err)
	}
	if n := r.chatCount(); n != 0 {
		t.Fatalf("%d chats after the refused import", n)
	}
}

// TestJsonlMessageCap lowers the per-file message cap to reach it: the
// line past it fails with validation.too_many naming it, nothing stored.
// Not parallel: it changes a package-wide limit.
func TestJsonlMessageCap(t *testing.T) {
	defer chats.SetJsonlMessageLimit(3)()
	r := openRig(t, t.TempDir())
	head := `{"chat_metadata":{}}`
	msgs := []string{`{"mes":"1"}`, `{"mes":"2"}`, `{"mes":"3"}`}
	if sum := r.mustImport("three", strings.Join(append([]string{head}, msgs...), "\n")); sum.MessageCount != 3 {
		t.Fatalf("imported %d messages, want 3", sum.MessageCount)
	}
	_, err := r.importJsonl("four", strings.Join(append([]string{head}, append(msgs, `{"mes":"4"}`)...), "\n"))
	if e := apperr.As(err); e == nil || e.Code != apperr.CodeTooMany || fmt.Sprint(e.Details["line"]) != "5" {
		t.Fatalf("import of four = %v, want validation.too_many at line 5", err)
	}
	if n := r.chatCount(); n != 1 {
		t.Fatalf("%d chats after the refused import, want 1", n)
	}
}
