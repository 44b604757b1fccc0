package chats_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"hearth/backend/apperr"
	"hearth/backend/chats"
)

// TestJsonlQuotedLineBreaks: a file sent through the router is split into
// lines while still a JSON string; however the sender escaped its line
// breaks (\n, \u000a, \u000A, CRLF, an escaped BOM, escaped blank lines),
// it imports to the same chat as the same text given to the service
// directly, and a bad line is named by the number an editor shows.
func TestJsonlQuotedLineBreaks(t *testing.T) {
	t.Parallel()
	r := openRig(t, t.TempDir())
	fixture := strings.TrimSuffix(readFixture(t), "\n")
	lines := strings.Split(fixture, "\n")
	text := "\uFEFF" + strings.Join(lines, "\r\n") + "\n\t\n"
	direct, err := r.app.Chats.ImportJsonl(context.Background(), chats.Owner{Avatar: r.avatar}, chats.JsonlImport{FileName: "direct", Text: &text})
	if err != nil {
		t.Fatalf("direct import: %v", err)
	}
	want := r.exportJsonl(direct.ChatID)

	quote := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Trim(string(b), `"`)
	}
	var esc []string
	for _, l := range lines {
		esc = append(esc, quote(l))
	}
	for name, body := range map[string]string{
		"u000a":       `\ufeff` + strings.Join(esc, `\u000a`),
		"u000A crlf":  strings.Join(esc, `\r\u000A`) + `\n\t\n`,
		"blank lines": `\n \n` + strings.Join(esc, `\n\r\n`),
	} {
		args := `[{"avatar":` + string(mustJSON(t, r.avatar)) + `},{"fileName":"` + name + `","text":"` + body + `"}]`
		out, err := r.app.Router.Invoke(context.Background(), "chat.importJsonl", []byte(args))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var sum rigSummary
		r.decode(out, &sum)
		if got := r.exportJsonl(sum.ChatID); withoutIDs(got) != withoutIDs(want) {
			g, w := strings.Split(withoutIDs(got), "\n"), strings.Split(withoutIDs(want), "\n")
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Errorf("%s: export line %d differs from the direct import\n got %s\nwant %s", name, i+1, g[i], w[i])
					break
				}
			}
		}
	}

	bad := `\n\r\n` + strings.Join(append(esc[:3:3], `{oops}`), `\u000a`)
	args := `[{"avatar":` + string(mustJSON(t, r.avatar)) + `},{"fileName":"bad","text":"` + bad + `"}]`
	_, err = r.app.Router.Invoke(context.Background(), "chat.importJsonl", []byte(args))
	if e := apperr.As(err); e == nil || e.Code != apperr.CodeInvalidArgument || e.Details["line"] != 6 {
		t.Fatalf("bad line 6 = %#v", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withoutIDs drops what every import makes afresh from an export: the
// message ids, and the times of swipes the file gave none (now).
func withoutIDs(text string) string {
	text = regexp.MustCompile(`"id":"[0-9a-f-]{36}",`).ReplaceAllString(text, "")
	for _, day := range []time.Time{time.Now(), time.Now().Add(-24 * time.Hour)} {
		text = regexp.MustCompile(`"`+day.UTC().Format("2006-01-02")+`T[0-9:.]+Z"`).ReplaceAllString(text, `"now"`)
	}
	return text
}
