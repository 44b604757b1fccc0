package chats_test

import (
	"strings"
	"testing"

	"hearth/backend/apperr"
)

// FuzzImportJsonl imports arbitrary text as a chat file. Whatever the
// input: no panic; a failure is validation.invalid_argument or
// validation.too_many and leaves no chat behind; a success holds only
// messages that keep the swipe invariants, and exporting it, importing the
// export and exporting again gives the same bytes.
func FuzzImportJsonl(f *testing.F) {
	fixture := readFixture(f)
	lines := strings.Split(strings.TrimSuffix(fixture, "\n"), "\n")
	for _, seed := range []string{
		fixture,
		strings.Join(lines[1:], "\n"),
		strings.ReplaceAll(fixture, "\n", "\r\n"),
		"\uFEFF" + lines[0] + "\n\n" + lines[2],
		lines[0],
		`{}`,
		`{"mes":"a"}` + "\n" + `[1]`,
		`{"chat_metadata":null}` + "\n" + `{"mes":"x","swipes":["x","y"],"swipe_info":[null],"swipe_id":1}`,
		`{"mes":"x","swipes":["x","y"],"swipe_info":[{"a":1},{"b":2},{"c":3}]}`,
		`{"mes":"x","extra":{"a":` + "\r" + `1}}`,
		`{"name":null,"is_user":null,"extra":null,"mes":"n"}`,
		`{"mes":"dup","mes":"last"}`,
		`{"user_name":{"odd":true},"character_name":7,"create_date":null}` + "\n" + `{"mes":"\u2028\ud800"}`,
		nestedExtra(70),
		"",
	} {
		f.Add(seed)
	}
	base := openRig(f, f.TempDir())
	f.Fuzz(func(t *testing.T, text string) {
		r := base.with(t)
		before := r.chatCount()
		sum, err := r.importJsonl(uniqueName("fuzz"), text)
		if err != nil {
			if code := apperr.CodeOf(err); code != apperr.CodeInvalidArgument && code != apperr.CodeTooMany {
				t.Fatalf("import failed with %v", err)
			}
			if n := r.chatCount(); n != before {
				t.Fatalf("a failed import left %d chats, want %d", n, before)
			}
			return
		}
		t.Cleanup(func() { _, _ = r.try("chat.delete", sum.ChatID) })
		export1 := r.exportJsonl(sum.ChatID)
		got := jsonLines(t, export1)
		if len(got) != sum.MessageCount+1 {
			t.Fatalf("export has %d lines for %d messages", len(got), sum.MessageCount)
		}
		checkSwipeInvariants(t, got[1:])
		again, err := r.importJsonl(uniqueName("fuzz again"), export1)
		if err != nil {
			t.Fatalf("the export does not import: %v\n%s", err, export1)
		}
		t.Cleanup(func() { _, _ = r.try("chat.delete", again.ChatID) })
		if export2 := r.exportJsonl(again.ChatID); export2 != export1 {
			t.Fatalf("export → import → export changed the bytes:\n%s\n%s", export1, export2)
		}
	})
}
