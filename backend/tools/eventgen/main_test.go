package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"hearth/backend/events"
)

// root is the repository root, from this package's directory.
const root = "../../.."

// TestGeneratedFilesAreCurrent regenerates the TypeScript registry and the
// docs table in memory: either differing from what is checked in means
// the registry changed without `go run ./backend/tools/eventgen`.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	t.Parallel()
	specs := events.Specs()
	ts, err := generateTS(specs)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(filepath.Join(root, tsPath))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ts, onDisk) {
		t.Errorf("%s is out of date: run go run ./backend/tools/eventgen", tsPath)
	}
	doc, err := os.ReadFile(filepath.Join(root, docsPath))
	if err != nil {
		t.Fatal(err)
	}
	want, err := generateDocs(doc, specs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, doc) {
		t.Errorf("the events table of %s is out of date: run go run ./backend/tools/eventgen", docsPath)
	}
}

// sample has one field of each kind the generator maps.
type sample struct {
	Ptr    *int            `json:"ptr"`
	Opt    *int            `json:"opt,omitempty"`
	List   []*string       `json:"list"`
	Map    map[string]bool `json:"map"`
	Raw    json.RawMessage `json:"raw"`
	Any    any             `json:"any"`
	Tagged any             `json:"tagged" ts:"Foo['x'] | 'Bar' | Record<string, Baz>"`
	Odd    string          `json:"odd-key"`
	Nested struct {
		A int `json:"a,omitempty"`
	} `json:"nested"`
	Skipped string `json:"-"`
	hidden  string
}

func TestTypeScriptTypes(t *testing.T) {
	t.Parallel()
	w := &tsWriter{usedBy: map[reflect.Type][]string{}, within: map[reflect.Type]string{}, imports: map[string]bool{}}
	got, err := w.inline(reflect.TypeFor[sample]())
	if err != nil {
		t.Fatal(err)
	}
	want := "{ ptr: number | null; opt?: number; list: (string | null)[]; map: Record<string, boolean>; raw: unknown; any: unknown; " +
		"tagged: Foo['x'] | 'Bar' | Record<string, Baz>; 'odd-key': string; nested: { a?: number } }"
	if got != want {
		t.Errorf("inline:\n got %s\nwant %s", got, want)
	}
	if !reflect.DeepEqual(w.imports, map[string]bool{"Foo": true, "Baz": true}) {
		t.Errorf("imports %v, want Foo and Baz (not the quoted 'Bar', not Record)", w.imports)
	}
	_ = sample{}.hidden
}

// TestUnsupportedTypesAreRefused: a payload field with no JSON object form
// fails the generation, naming the field.
func TestUnsupportedTypesAreRefused(t *testing.T) {
	t.Parallel()
	type intKeys struct {
		M map[int]string `json:"m"`
	}
	type channel struct {
		C chan int `json:"c"`
	}
	for _, c := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[intKeys](), "intKeys.m: map key int"},
		{reflect.TypeFor[channel](), "channel.c: chan int has no JSON form"},
	} {
		w := &tsWriter{usedBy: map[reflect.Type][]string{}, within: map[reflect.Type]string{}, imports: map[string]bool{}}
		if _, err := w.inline(c.typ); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.typ, err, c.want)
		}
	}
}

// TestDocsMarkers: the table goes between the markers and nowhere else;
// missing or doubled markers are an error, not a silent no-op.
func TestDocsMarkers(t *testing.T) {
	t.Parallel()
	specs := events.Specs()[:2]
	doc := "# API\n\nbefore\n" + docsBegin + "\nstale table\n" + docsEnd + "\nafter\n"
	got, err := generateDocs([]byte(doc), specs)
	if err != nil {
		t.Fatal(err)
	}
	want := "# API\n\nbefore\n" + docsBegin + "\n" + eventsTable(specs) + docsEnd + "\nafter\n"
	if string(got) != want {
		t.Errorf("docs:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(string(got), "| `MESSAGE_SENT` | `message_sent` | `chat.read` | `chatId, revision, index, id, message, stMessage`: ") {
		t.Errorf("no MESSAGE_SENT row in\n%s", got)
	}
	for name, bad := range map[string]string{
		"no markers": "# API\n",
		"no end":     docsBegin + "\n",
		"reversed":   docsEnd + "\n" + docsBegin + "\n",
		"two begins": docsBegin + "\n" + docsBegin + "\n" + docsEnd + "\n",
	} {
		if _, err := generateDocs([]byte(bad), specs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
