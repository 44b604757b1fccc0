package chats_test

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"hearth/backend/events"
	"hearth/backend/internal/chatgen"
)

// humanizedDate is SillyTavern's chat date format, as Hearth writes it.
var humanizedDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}@\d{2}h\d{2}m\d{2}s\d{3}ms$`)

func readFixture(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile("testdata/unknown_keys.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// stickyExtra are the extra keys that describe a message rather than one
// of its swipes (chats.stickyExtraKeys): a swipe_info entry Hearth builds
// from the message leaves them out.
var stickyExtra = []string{"hidden", "type", "bookmark_link", "branches", "isSmallSys", "spindle_metadata"}

// normalizedFixtureMessage is what an import then export makes of one
// fixture message, by the normalizations docs/API.md lists: id dropped;
// missing is_user/is_system false, extra {}; missing swipes [mes] and
// swipe_id 0; swipe_info lined up with swipes — entries the file gave
// stay, the active swipe's missing entry is built from the message (its
// send_date, gen_started, gen_finished and non-sticky extra), any other
// missing entry is fresh (send_date = the import's time). fresh lists those
// last indexes, whose send_date the caller checks by shape.
func normalizedFixtureMessage(m map[string]any) (want map[string]any, fresh []int) {
	w := map[string]any{}
	for k, v := range m {
		w[k] = v
	}
	delete(w, "id")
	for k, v := range map[string]any{"is_user": false, "is_system": false, "extra": map[string]any{}} {
		if _, ok := w[k]; !ok {
			w[k] = v
		}
	}
	swipes, ok := w["swipes"].([]any)
	if !ok {
		swipes = []any{w["mes"]}
		w["swipes"] = swipes
	}
	active := 0
	if id, ok := w["swipe_id"].(float64); ok {
		active = int(id)
	}
	w["swipe_id"] = float64(active)
	given, _ := w["swipe_info"].([]any)
	infos := make([]any, len(swipes))
	for i := range swipes {
		if i < len(given) && given[i] != nil {
			infos[i] = given[i]
			continue
		}
		info := map[string]any{"send_date": nil, "gen_started": nil, "gen_finished": nil, "extra": map[string]any{}}
		if i != active {
			fresh = append(fresh, i)
			infos[i] = info
			continue
		}
		for _, k := range []string{"send_date", "gen_started", "gen_finished"} {
			if v, ok := w[k]; ok {
				info[k] = v
			}
		}
		extra := map[string]any{}
		for k, v := range w["extra"].(map[string]any) {
			extra[k] = v
		}
		for _, k := range stickyExtra {
			delete(extra, k)
		}
		info["extra"] = extra
		infos[i] = info
	}
	w["swipe_info"] = infos
	return w, fresh
}

// TestJsonlFixtureRoundTrip imports a hand-written SillyTavern file with
// unknown keys everywhere (header, chat_metadata, messages, extra,
// swipe_info, nested), exports it, imports the export and exports again:
// the two exports are byte-for-byte equal, and the first is the fixture,
// line by line as JSON, up to the documented normalizations.
func TestJsonlFixtureRoundTrip(t *testing.T) {
	t.Parallel()
	r := openRig(t, t.TempDir())
	fixture := readFixture(t)
	rec := r.record()
	started := time.Now().UTC().Add(-time.Second)
	sum := r.mustImport("Unknown keys", fixture)
	if got := rec.types(); !reflect.DeepEqual(got, []string{events.ChatCreated}) {
		t.Errorf("import events = %v, want [CHAT_CREATED]", got)
	}
	if sum.MessageCount != 8 || sum.Revision != 0 {
		t.Errorf("imported chat has %d messages at revision %d, want 8 at 0", sum.MessageCount, sum.Revision)
	}

	export1 := r.exportJsonl(sum.ChatID)
	if strings.HasSuffix(export1, "\n") {
		t.Error("export ends with a newline; SillyTavern joins lines with \\n and ends without one")
	}
	direct, err := r.app.Chats.ExportJsonl(t.Context(), sum.ChatID)
	if err != nil || direct.Text != export1 || direct.FileName != "Unknown keys.jsonl" {
		t.Errorf("Service.ExportJsonl = %q, %v; differs from chat.exportJsonl", direct.FileName, err)
	}
	again := r.mustImport("Unknown keys again", export1)
	if export2 := r.exportJsonl(again.ChatID); export2 != export1 {
		a, b := strings.Split(export1, "\n"), strings.Split(export2, "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("export of the re-import differs at line %d:\nfirst  %s\nsecond %s", i+1, a[i], b[i])
			}
		}
		t.Fatalf("export of the re-import has %d lines, the first export %d", len(b), len(a))
	}

	want, got := jsonLines(t, fixture), jsonLines(t, export1)
	if len(got) != len(want) {
		t.Fatalf("export has %d lines, the fixture %d", len(got), len(want))
	}
	if !jsonEqual(got[0], want[0]) {
		t.Errorf("header:\ngot  %s\nwant %s", show(got[0]), show(want[0]))
	}
	checkSwipeInvariants(t, got[1:])
	for i := 1; i < len(want); i++ {
		w, fresh := normalizedFixtureMessage(want[i])
		for _, s := range fresh {
			info := got[i]["swipe_info"].([]any)[s].(map[string]any)
			at, err := time.Parse(time.RFC3339Nano, info["send_date"].(string))
			if err != nil || at.Before(started) {
				t.Errorf("line %d: swipe_info[%d].send_date %v is not the import's time", i+1, s, info["send_date"])
			}
			w["swipe_info"].([]any)[s].(map[string]any)["send_date"] = info["send_date"]
		}
		if !jsonEqual(got[i], w) {
			t.Errorf("line %d:\ngot  %s\nwant %s", i+1, show(got[i]), show(w))
		}
	}
}

// TestJsonlGeneratedRoundTrip round-trips a generated 1,000-message chat
// with three swipes a message: every line of the export is the input's,
// as JSON, and exporting the re-import gives the same bytes.
func TestJsonlGeneratedRoundTrip(t *testing.T) {
	t.Parallel()
	r := openRig(t, t.TempDir())
	opts := chatgen.Options{Seed: 11, Messages: 1000, Swipes: 3, BodyChars: 300, UserName: "Wren", CharName: "Seraphina"}
	in, err := chatgen.JSONL(opts, map[string]any{"integrity": "abc", "note_prompt": "n", "x": map[string]any{"y": []int{1, 2}}}, chatgen.Messages(opts))
	if err != nil {
		t.Fatal(err)
	}
	sum := r.mustImport(uniqueName("generated"), string(in))
	if sum.MessageCount != 1000 {
		t.Fatalf("imported %d messages, want 1000", sum.MessageCount)
	}
	out := r.exportJsonl(sum.ChatID)
	want, got := jsonLines(t, string(in)), jsonLines(t, out)
	if len(got) != len(want) {
		t.Fatalf("export has %d lines, the input %d", len(got), len(want))
	}
	for i := range want {
		if !jsonEqual(got[i], want[i]) {
			t.Fatalf("line %d:\ngot  %s\nwant %s", i+1, show(got[i]), show(want[i]))
		}
	}
	if again := r.exportJsonl(r.mustImport(uniqueName("generated"), out).ChatID); again != out {
		t.Fatal("exporting the re-import changed the bytes")
	}
	var st []map[string]any
	r.decode(r.call("chat.getStMessages", sum.ChatID), &st)
	if len(st) != 1000 || st[999]["mes"] != want[1000]["mes"] {
		t.Fatalf("getStMessages after import: %d messages", len(st))
	}
	var listed []rigSummary
	r.decode(r.call("chat.list", map[string]any{"avatar": r.avatar}), &listed)
	if len(listed) != 2 {
		t.Fatalf("chat.list has %d chats, want the two imports", len(listed))
	}
}

// TestJsonlTolerance imports the same chat written the ways files come:
// CRLF line ends, with and without a final newline, blank lines, a BOM —
// each exports to the same bytes. A file without a header gets {} as
// metadata and a header built from the chat on export.
func TestJsonlTolerance(t *testing.T) {
	t.Parallel()
	r := openRig(t, t.TempDir())
	base := r.exportJsonl(r.mustImport(uniqueName("base"), readFixture(t)).ChatID)
	lines := strings.Split(base, "\n")
	for name, text := range map[string]string{
		"lf, no final newline": base,
		"final newline":        base + "\n",
		"crlf":                 strings.ReplaceAll(base, "\n", "\r\n"),
		"crlf, final crlf":     strings.ReplaceAll(base, "\n", "\r\n") + "\r\n",
		"blank lines":          "\n \t\n" + strings.Join(lines, "\n\n   \n") + "\n\n",
		"bom":                  "\uFEFF" + base,
		"bom, crlf, blanks":    "\uFEFF" + strings.Join(lines, "\r\n\r\n") + "\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			if got := r.exportJsonl(r.mustImport(uniqueName(name), text).ChatID); got != base {
				t.Errorf("export differs from the plain file's:\n%s", got)
			}
		})
	}

	t.Run("no header", func(t *testing.T) {
		sum := r.mustImport(uniqueName("headerless"), strings.Join(lines[1:], "\n"))
		if sum.MessageCount != len(lines)-1 {
			t.Fatalf("imported %d messages, want %d", sum.MessageCount, len(lines)-1)
		}
		var meta map[string]any
		r.decode(r.call("chat.getMetadata", sum.ChatID), &meta)
		if len(meta) != 0 {
			t.Errorf("metadata = %v, want {}", meta)
		}
		out := strings.Split(r.exportJsonl(sum.ChatID), "\n")
		if strings.Join(out[1:], "\n") != strings.Join(lines[1:], "\n") {
			t.Error("messages of a headerless file export differently")
		}
		header := jsonLines(t, out[0])[0]
		if header["user_name"] != "User" || header["character_name"] != "Seraphina" || !jsonEqual(header["chat_metadata"], map[string]any{}) {
			t.Errorf("built header = %s", show(header))
		}
		if date, _ := header["create_date"].(string); !humanizedDate.MatchString(date) {
			t.Errorf("create_date %v is not a humanized date like SillyTavern's", header["create_date"])
		}
	})

	t.Run("names for messages without one", func(t *testing.T) {
		for _, tc := range []struct{ header, user, char string }{
			{``, "User", "Seraphina"},
			{`{"user_name":"Wren","character_name":"Sera","chat_metadata":{}}`, "Wren", "Sera"},
			{`{"user_name":"unused","character_name":"unused","chat_metadata":{}}`, "User", "Seraphina"},
		} {
			text := strings.TrimPrefix(tc.header+"\n"+`{"mes":"hi","is_user":true}`+"\n"+`{"mes":"hello"}`, "\n")
			got := jsonLines(t, r.exportJsonl(r.mustImport(uniqueName("names"), text).ChatID))
			if got[1]["name"] != tc.user || got[2]["name"] != tc.char {
				t.Errorf("header %q: names %v, %v; want %s, %s", tc.header, got[1]["name"], got[2]["name"], tc.user, tc.char)
			}
		}
	})

	t.Run("header only", func(t *testing.T) {
		sum := r.mustImport(uniqueName("empty"), `{"user_name":"Wren","chat_metadata":{"a":[1]}}`)
		if sum.MessageCount != 0 {
			t.Fatalf("a header-only file imported %d messages", sum.MessageCount)
		}
		got := jsonLines(t, r.exportJsonl(sum.ChatID))
		if len(got) != 1 || got[0]["user_name"] != "Wren" || !jsonEqual(got[0]["chat_metadata"], map[string]any{"a": []int{1}}) {
			t.Errorf("export = %s", show(got))
		}
	})
}
