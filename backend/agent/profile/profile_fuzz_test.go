package profile

import (
	"bytes"
	"testing"
)

// FuzzParse: any input either parses, or is refused with issues; a parsed
// profile is a fixed point (its JSON parses to the same JSON), and Parse
// and Diagnose agree.
func FuzzParse(f *testing.F) {
	f.Add([]byte(seedExample))
	f.Add([]byte(DefaultWriter().JSON()))
	f.Add(doc(f, "context", map[string]any{"a": []any{1, nil}}, "tools.allow", []string{"workspace_commit", "workspace_finish"}))
	f.Add(doc(f, "model", map[string]any{"mode": "connection", "connectionId": "c", "temperature": 1.5}))
	f.Add(doc(f, "output.artifacts.0.path", "../x", "id", "BAD"))
	f.Add([]byte(`{"schemaVersion":1,"kind":"hearth.agentProfile","id":"a","displayName":"A"}`))
	f.Add([]byte(`[[[[[[[[[[{"a":"\"]]]]"}]]]]]]]]]]`))
	f.Add([]byte(`{"schemaVersion":1e0,"id":"\u0000","tools":{"maxRounds":-0}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := Parse(raw)
		issues := Diagnose(raw)
		if (err == nil) != (len(issues) == 0) {
			t.Fatalf("Parse err %v but Diagnose %d issues", err, len(issues))
		}
		if err != nil {
			return
		}
		out := p.JSON()
		if out == nil {
			t.Fatal("no JSON for a parsed profile")
		}
		q, err := Parse(out)
		if err != nil {
			t.Fatalf("normalised profile does not parse: %v\n%s", err, out)
		}
		if again := q.JSON(); !bytes.Equal(again, out) {
			t.Fatalf("normalising twice differs:\n%s\n%s", out, again)
		}
		if _, ok := p.MessageBody(); !ok {
			t.Fatal("parsed profile without a message body artifact")
		}
	})
}
