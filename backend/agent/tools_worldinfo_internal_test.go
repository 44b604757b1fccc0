package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hearth/backend/apperr"
	"hearth/backend/generate"
)

// TestWorldInfoReadBounds: worldinfo.read_activated reads at most 20
// entries and 20,000 characters a call, as chat.read_messages does, says
// where an entry goes on, and refuses a negative start.
func TestWorldInfoReadBounds(t *testing.T) {
	t.Parallel()
	var entries []generate.WorldInfoEntry
	for i := range 30 {
		entries = append(entries, generate.WorldInfoEntry{World: "Eldoria", UID: i, DisplayName: fmt.Sprint("entry ", i),
			Content: strings.Repeat("é", 6000)})
	}
	r := &run{snapshot: Snapshot{WorldInfoActivation: &Activation{Entries: entries}}}
	read := func(refs []int, start int) (map[string]any, error) {
		var list []map[string]any
		for _, i := range refs {
			list = append(list, map[string]any{"ref": activationRef(i, entries[i]), "start_char": start})
		}
		args, _ := json.Marshal(map[string]any{"entries": list})
		out, err := r.worldInfoRead(args)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(out)
		var got map[string]any
		json.Unmarshal(b, &got)
		return got, nil
	}
	if _, err := read(make([]int, 21), 0); apperr.As(err) == nil || apperr.As(err).Code != apperr.CodeInvalidArgument {
		t.Errorf("21 entries: %v, want invalid_argument", err)
	}
	if _, err := read([]int{0}, -1); apperr.As(err) == nil || apperr.As(err).Code != apperr.CodeInvalidArgument {
		t.Errorf("a negative start_char: %v, want invalid_argument", err)
	}
	got, err := read([]int{0, 1, 2, 3, 4}, 0)
	if err != nil {
		t.Fatal(err)
	}
	read0 := got["entries"].([]any)
	total := 0
	for _, e := range read0 {
		text := e.(map[string]any)["text"].(string)
		total += len([]rune(text))
	}
	if total != 20_000 || len(read0) != 4 {
		t.Errorf("read %d characters in %d entries, want 20,000 in 4 (6,000 + 6,000 + 6,000 + 2,000)", total, len(read0))
	}
	last := read0[3].(map[string]any)
	if last["more"] != true || last["total_chars"] != float64(6000) {
		t.Errorf("the entry cut by the budget: %v", last)
	}
	got, err = read([]int{3}, 2000)
	if err != nil {
		t.Fatal(err)
	}
	rest := got["entries"].([]any)[0].(map[string]any)
	if len([]rune(rest["text"].(string))) != 4000 || rest["more"] != false || rest["start_char"] != float64(2000) {
		t.Errorf("reading on from 2,000: %v chars, more %v", len([]rune(rest["text"].(string))), rest["more"])
	}
}
