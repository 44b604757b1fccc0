package worldinfo

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wI2L/jsondiff"
)

// update rewrites the golden files from what Activate produces now:
// go test ./backend/worldinfo -run Golden -update, then review the diff.
var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// activationCase is testdata/activation/case.json: a chat, its books and
// the settings, in SillyTavern's names where it has them.
type activationCase struct {
	Settings Settings `json:"settings"`
	Sources  []struct {
		World string `json:"world"`
		Kind  string `json:"kind"`
		File  string `json:"file"`
	} `json:"sources"`
	Messages []struct {
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"messages"`
	ChatLength int `json:"chatLength"`
	Global     struct {
		PersonaDescription   string `json:"personaDescription"`
		CharacterDescription string `json:"characterDescription"`
	} `json:"global"`
	Inject     []string          `json:"inject"`
	MaxContext int               `json:"maxContext"`
	Rand       []float64         `json:"rand"`
	Timed      json.RawMessage   `json:"timed"`
	Trigger    string            `json:"trigger"`
	Macros     map[string]string `json:"macros"`
}

func (c *activationCase) input(t *testing.T) Input {
	t.Helper()
	in := Input{
		Settings:   c.Settings,
		ChatLength: c.ChatLength,
		Global:     GlobalScanData{PersonaDescription: c.Global.PersonaDescription, CharacterDescription: c.Global.CharacterDescription},
		Inject:     c.Inject,
		MaxContext: c.MaxContext,
		Tokens:     words,
		Rand:       seq(t, c.Rand...),
		Trigger:    c.Trigger,
		Substitute: func(s string) string {
			for k, v := range c.Macros {
				s = strings.ReplaceAll(s, k, v)
			}
			return s
		},
	}
	for _, s := range c.Sources {
		in.Sources = append(in.Sources, Source{World: s.World, Kind: s.Kind, Book: mustParse(t, readFixture(t, filepath.Join("activation", s.File)))})
	}
	for _, m := range c.Messages {
		in.Messages = append(in.Messages, Message{Name: m.Name, Text: m.Text})
	}
	timed, err := ParseTimedState(c.Timed)
	if err != nil {
		t.Fatal(err)
	}
	in.Timed = timed
	return in
}

// TestActivationGolden activates the fixture chat, then the chat one
// message later with the timed state the first activation stored, and
// compares both results with testdata/golden/activation.json.
func TestActivationGolden(t *testing.T) {
	t.Parallel()
	var c activationCase
	if err := json.Unmarshal(readFixture(t, "activation/case.json"), &c); err != nil {
		t.Fatal(err)
	}
	first := activate(t, c.input(t))

	c.Messages = append(c.Messages, struct {
		Name string `json:"name"`
		Text string `json:"text"`
	}{"User", "I nod and leave quietly."})
	c.ChatLength++
	c.Rand = []float64{0.2, 0.3}
	in := c.input(t)
	in.Timed = first.Timed
	second := activate(t, in)

	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]*Result{"first": first, "second": second}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "activation", bytes.TrimSuffix(got.Bytes(), []byte("\n")))
}

// checkGolden compares got with testdata/golden/<name>.json, showing an
// RFC 6902 diff when they differ.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	patch, err := jsondiff.CompareJSON(want, got)
	if err != nil {
		t.Fatal(err)
	}
	if len(patch) > 0 {
		t.Errorf("%s differs from the golden file (want → got, RFC 6902):\n%s", name, patch)
	}
}
