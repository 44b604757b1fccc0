package worldinfo

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/jsonx"
)

func readFixture(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t testing.TB, data []byte) *Book {
	t.Helper()
	b, err := ParseBook(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustEncode(t testing.TB, b *Book) []byte {
	t.Helper()
	out, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEncodeIdentity: a file SillyTavern wrote comes back byte for byte.
func TestEncodeIdentity(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "books", "st_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := mustEncode(t, mustParse(t, data))
			if !bytes.Equal(got, data) {
				t.Errorf("Encode(ParseBook(x)) != x\n got: %s\nwant: %s", got, data)
			}
		})
	}
}

// TestParseQuirks reads a hand-written file with what SillyTavern
// tolerates and checks both the typed view and that the bytes survive.
func TestParseQuirks(t *testing.T) {
	t.Parallel()
	b := mustParse(t, readFixture(t, "books/hand_quirks.json"))
	var keys []string
	for _, e := range b.Entries {
		keys = append(keys, e.mapKey())
	}
	if got := strings.Join(keys, ","); got != "1,5,abc" {
		t.Errorf("entry order = %s, want 1,5,abc (array indexes first, ascending)", got)
	}
	dup, fromKey, odd := b.Entries[0], b.Entries[1], b.Entries[2]
	if len(dup.Key) != 1 || dup.Key[0] != "dup2" {
		t.Errorf("repeated key: Key = %v, want the last value [dup2]", dup.Key)
	}
	if fromKey.UID != 5 {
		t.Errorf("uid from the entries key = %d, want 5", fromKey.UID)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"uid", odd.UID, 7},
		{"order 100.0", odd.Order, 100},
		{"null probability", odd.Probability, 0.0},
		{"null groupWeight", odd.GroupWeight, float64(DefaultWeight)},
		{"null position", odd.Position, PositionNone},
		{"null depth", odd.Depth, DefaultDepth},
		{"null role", odd.Role, RoleSystem},
		{"delayUntilRecursion level", odd.DelayUntilRecursion, 2},
		{"constant 1", odd.Constant, true},
		{"escaped key", odd.Key[0], "<b>"},
		{"absent depth", fromKey.Depth, DefaultDepth},
		{"absent position", fromKey.Position, PositionNone},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if _, ok := odd.Extra["custom"]; !ok {
		t.Errorf("unknown field custom lost: Extra = %v", odd.Extra)
	}

	out := mustEncode(t, b)
	for _, want := range []string{`"order": 100.0`, `"\u003cb\u003e"`, `"escaped \u00e9 and \/ slash"`, `"probability": null`, `"constant": 1`, `"hash": 12345`, `2.50`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("encoded book lost %s:\n%s", want, out)
		}
	}
	if bytes.Count(out, []byte(`"key"`)) != 3 {
		t.Errorf("want one key field per entry:\n%s", out)
	}
	if i, j, k := bytes.Index(out, []byte(`"name"`)), bytes.Index(out, []byte(`"entries"`)), bytes.Index(out, []byte(`"extra"`)); !(i < j && j < k) {
		t.Errorf("top-level order changed:\n%s", out)
	}
	again := mustEncode(t, mustParse(t, out))
	if !bytes.Equal(again, out) {
		t.Errorf("encoding is not stable:\nfirst:  %s\nsecond: %s", out, again)
	}
}

// TestEncodeEdits: changed fields are written afresh in place, fields a
// file lacked follow when they now hold a value, unknown ones stay.
func TestEncodeEdits(t *testing.T) {
	t.Parallel()
	b := mustParse(t, readFixture(t, "books/st_eldoria.json"))
	var legacy, capital *Entry
	for _, e := range b.Entries {
		switch e.UID {
		case 3:
			legacy = e
		case 10:
			capital = e
		}
	}
	legacy.IgnoreBudget = true
	legacy.Content = "Rewritten <content>"
	capital.Extra["added"] = json.RawMessage(`"new"`)
	delete(capital.Extra, "myExtensionField")
	capital.UID = 11

	out := mustEncode(t, b)
	again := mustParse(t, out)
	var got3, got11 *Entry
	for _, e := range again.Entries {
		switch e.UID {
		case 3:
			got3 = e
		case 11:
			got11 = e
		}
	}
	if got3 == nil || got11 == nil {
		t.Fatalf("entries 3 and 11 missing after the edit:\n%s", out)
	}
	if !got3.IgnoreBudget || got3.Content != "Rewritten <content>" {
		t.Errorf("edits lost: %+v", got3)
	}
	if got3.order[len(got3.order)-1] != "ignoreBudget" {
		t.Errorf("a field the file lacked should follow the others, order = %v", got3.order)
	}
	if got11.mapKey() != "11" || string(got11.Extra["added"]) != `"new"` || got11.Extra["myExtensionField"] != nil {
		t.Errorf("entry 11 = key %s extra %v", got11.mapKey(), got11.Extra)
	}
	if !bytes.Contains(out, []byte(`"Rewritten <content>"`)) {
		t.Errorf("strings are written as JSON.stringify writes them (no \\u003c):\n%s", out)
	}
}

// TestNewEntryEncode: an entry made in Go is written in SillyTavern's
// template order with its template values.
func TestNewEntryEncode(t *testing.T) {
	t.Parallel()
	b := &Book{Entries: []*Entry{NewEntry(2), NewEntry(0)}}
	b.Entries[0].Key = []string{"k"}
	out := mustEncode(t, b)
	back := mustParse(t, out)
	if back.Entries[0].UID != 0 || back.Entries[1].UID != 2 {
		t.Errorf("entries not in uid order:\n%s", out)
	}
	var order []string
	for _, f := range entryFields {
		if f.name != "characterFilter" && f.name != "extensions" {
			order = append(order, f.name)
		}
	}
	if got := strings.Join(back.Entries[1].order, ","); got != strings.Join(order, ",") {
		t.Errorf("field order\n got %s\nwant %s", got, strings.Join(order, ","))
	}
	e := back.Entries[1]
	if !e.Selective || e.Order != 100 || e.Probability != 100 || !e.UseProbability || e.Depth != 4 || e.GroupWeight != 100 || e.Position != PositionBefore {
		t.Errorf("template values lost: %+v", e)
	}
}

func TestParseBookErrors(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, jsonx.MaxDepth) + "1" + strings.Repeat("}", jsonx.MaxDepth)
	many := func() string {
		var sb strings.Builder
		sb.WriteString(`{"entries":{`)
		for i := range MaxEntries + 1 {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`"` + itoa(i) + `":{}`)
		}
		sb.WriteString("}}")
		return sb.String()
	}()
	big := `{"entries":{"0":{"content":"` + strings.Repeat("x", MaxContentBytes+1) + `"}}}`
	tests := []struct {
		name, in, field, msg string
	}{
		{"not an object", `[]`, "book", "must be an object"},
		{"not JSON", `{"entries":`, "book", "not valid JSON"},
		{"trailing data", `{"entries":{}} x`, "book", "not valid JSON"},
		{"no entries", `{"name":"x"}`, "entries", "is missing"},
		{"entries array", `{"entries":[]}`, "entries", "must be an object"},
		{"entry not object", `{"entries":{"0":5}}`, `entries["0"]`, "must be an object"},
		{"key not array", `{"entries":{"0":{"key":"x"}}}`, `entries["0"].key`, "array of strings"},
		{"key item", `{"entries":{"0":{"key":["a",1]}}}`, `entries["0"].key[1]`, "must be a string"},
		{"fraction", `{"entries":{"0":{"order":1.5}}}`, `entries["0"].order`, "must be an integer"},
		{"numeric string", `{"entries":{"0":{"depth":"4"}}}`, `entries["0"].depth`, "must be an integer"},
		{"huge uid", `{"entries":{"0":{"uid":9007199254740993}}}`, `entries["0"].uid`, "within"},
		{"null uid", `{"entries":{"0":{"uid":null}}}`, `entries["0"].uid`, "got null"},
		{"string probability", `{"entries":{"0":{"probability":"5"}}}`, `entries["0"].probability`, "must be a number"},
		{"bad boolean", `{"entries":{"0":{"constant":"yes"}}}`, `entries["0"].constant`, "must be a boolean"},
		{"bad filter", `{"entries":{"0":{"characterFilter":{"names":"x"}}}}`, `entries["0"].characterFilter.names`, "array of strings"},
		{"bad extensions", `{"entries":{"0":{"extensions":[]}}}`, `entries["0"].extensions`, "must be an object"},
		{"no uid", `{"entries":{"x":{}}}`, `entries["x"].uid`, "is missing"},
		{"duplicate uid", `{"entries":{"0":{"uid":1},"1":{"uid":1}}}`, `entries["1"].uid`, "has too"},
		{"too deep", `{"entries":{},"x":` + deep + `}`, "book", "nests"},
		{"too many", many, "entries", "at most 10000"},
		{"content too big", big, `entries["0"].content`, "bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseBook([]byte(tt.in))
			e := apperr.As(err)
			if e == nil || e.Code != CodeInvalid {
				t.Fatalf("err = %v, want a %s error", err, CodeInvalid)
			}
			if e.Details["field"] != tt.field || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got field %v, message %q; want field %s, message containing %q", e.Details["field"], e.Message, tt.field, tt.msg)
			}
		})
	}
}

func TestValidateEditedBook(t *testing.T) {
	t.Parallel()
	e := NewEntry(1)
	e.Key = []string{strings.Repeat("k", MaxKeyBytes+1)}
	tests := []struct {
		name  string
		book  *Book
		field string
	}{
		{"long key", &Book{Entries: []*Entry{e}}, `entries["1"].key[0]`},
		{"nil entry", &Book{Entries: []*Entry{nil}}, "entries"},
		{"same uid", &Book{Entries: []*Entry{NewEntry(3), NewEntry(3)}}, `entries["3"]`},
		{"bad extra", &Book{Entries: []*Entry{}, Extra: jsonx.Object{"x": json.RawMessage("{")}}, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Encode(tt.book)
			if e := apperr.As(err); e == nil || e.Code != CodeInvalid || e.Details["field"] != tt.field {
				t.Errorf("Encode err = %v, want %s on %s", err, CodeInvalid, tt.field)
			}
		})
	}
}
