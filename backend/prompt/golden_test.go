package prompt

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/wI2L/jsondiff"
)

// update rewrites the golden files from what Assemble produces now:
// go test ./backend/prompt -run Golden -update, then review the diff.
var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// tokenizer is shared by the tests: it loads once per process.
var tokenizer = NewTokenizer()

// golden is what a golden file holds: the payload as sent and the budget.
type golden struct {
	Payload *Payload     `json:"payload,omitempty"`
	Tokens  *TokenCounts `json:"tokens,omitempty"`
	Prefill bool         `json:"prefill,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// checkGolden assembles in and compares the result with
// testdata/golden/<name>.json, showing an RFC 6902 diff when they differ.
func checkGolden(t *testing.T, name string, in Input) {
	t.Helper()
	var got golden
	p, err := Assemble(in, tokenizer)
	if err != nil {
		got.Error = err.Error()
	} else {
		payload := p.Payload("test-model")
		got = golden{Payload: &payload, Tokens: &p.Tokens, Prefill: p.Prefill}
	}
	gotJSON, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(gotJSON, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	patch, err := jsondiff.CompareJSON(want, gotJSON)
	if err != nil {
		t.Fatal(err)
	}
	if len(patch) > 0 {
		t.Errorf("%s differs from the golden file (want → got, RFC 6902):\n%s", name, patch)
	}
}
